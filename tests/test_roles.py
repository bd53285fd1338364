"""Each role lands on its own home page and is refused everywhere it does not belong; anonymous users log in."""

import pytest
from django.urls import reverse

from config.roles import RoleRequiredMixin, role_required
from tests.conftest import PASSWORD

HOMES = {
    "organizer": "pooling:evaluation_list",
    "assessor": "assess:my_assignments",
    "participant": "pooling:my_runs",
}


@pytest.mark.parametrize("role", sorted(HOMES))
def test_each_role_lands_on_its_home(client, make_user, role):
    make_user("u", role, team="T" if role == "participant" else None)
    assert client.login(username="u", password=PASSWORD)
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert response["Location"] == reverse(HOMES[role])
    assert client.get(response["Location"]).status_code == 200


@pytest.mark.parametrize("role", sorted(HOMES))
@pytest.mark.parametrize("page", sorted(set(HOMES.values())))
def test_role_pages_refuse_other_roles(client, make_user, role, page):
    make_user("u", role, team="T" if role == "participant" else None)
    client.login(username="u", password=PASSWORD)
    expected = 200 if HOMES[role] == page else 403
    assert client.get(reverse(page)).status_code == expected


@pytest.mark.parametrize("page", sorted(set(HOMES.values())) + ["home", "corpus:collection_list"])
def test_anonymous_users_are_sent_to_login(client, db, page):
    response = client.get(reverse(page))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_user_without_role_is_told_so(client, django_user_model):
    django_user_model.objects.create_user("nobody", password=PASSWORD)
    client.login(username="nobody", password=PASSWORD)
    response = client.get(reverse("home"))
    assert response.status_code == 403
    assert b"No role yet" in response.content


def test_superuser_counts_as_organizer(client, django_user_model):
    django_user_model.objects.create_superuser("root", password=PASSWORD)
    client.login(username="root", password=PASSWORD)
    assert client.get(reverse("home"))["Location"] == reverse("pooling:evaluation_list")


def test_participant_sees_only_own_team_runs(client, make_user):
    from accounts.models import Team
    from pooling.models import Evaluation, Run

    make_user("alice", "participant", team="Team Alpha")
    evaluation = Evaluation.objects.create(slug="e", title="E", track="tac2008-qa")
    Run.objects.create(evaluation=evaluation, team=Team.objects.get(name="Team Alpha"), tag="alphaRUN1")
    Run.objects.create(evaluation=evaluation, team=Team.objects.create(name="Team Beta"), tag="betaRUN1")
    client.login(username="alice", password=PASSWORD)
    body = client.get(reverse("pooling:my_runs")).content.decode()
    assert "alphaRUN1" in body
    assert "betaRUN1" not in body


def test_assessor_sees_only_own_assignments(client, make_user):
    from assess.models import Assignment
    from pooling.models import Evaluation, Topic

    me = make_user("me", "assessor")
    other = make_user("other", "assessor")
    evaluation = Evaluation.objects.create(slug="e", title="E", track="tac2008-qa")
    mine = Topic.objects.create(evaluation=evaluation, ident="1", kind="series", text="Target MINE")
    theirs = Topic.objects.create(evaluation=evaluation, ident="2", kind="series", text="Target THEIRS", position=1)
    Assignment.objects.create(evaluation=evaluation, topic=mine, assessor=me)
    Assignment.objects.create(evaluation=evaluation, topic=theirs, assessor=other)
    client.login(username="me", password=PASSWORD)
    body = client.get(reverse("assess:my_assignments")).content.decode()
    assert "Target MINE" in body
    assert "Target THEIRS" not in body


def test_decorator_states_its_roles_and_refuses_unknown_ones():
    with pytest.raises(ValueError):
        role_required("admin")
    assert role_required("organizer", "assessor")(lambda r: None).allowed_roles == {"organizer", "assessor"}


def test_mixin_checks_roles(rf, make_user):
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied
    from django.http import HttpResponse
    from django.views import View

    class AssessorsOnly(RoleRequiredMixin, View):
        allowed_roles = ("assessor",)

        def get(self, request):
            return HttpResponse("ok")

    request = rf.get("/x")
    request.user = make_user("a", "assessor")
    assert AssessorsOnly.as_view()(request).content == b"ok"
    request.user = make_user("p", "participant")
    with pytest.raises(PermissionDenied):
        AssessorsOnly.as_view()(request)
    request.user = AnonymousUser()
    assert AssessorsOnly.as_view()(request).status_code == 302


def test_logout_ends_the_session(client, organizer):
    client.login(username="org", password=PASSWORD)
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("pooling:evaluation_list")).status_code == 302


def test_an_htmx_request_without_a_session_sends_the_whole_page_to_login(client, db):
    """htmx follows a redirect itself and would swap the login page into the panel it asked for (the next item,
    once the session has ended): it gets HX-Redirect instead, back to the page the browser shows."""
    page = reverse("assess:my_assignments")
    panel = client.get(page, headers={"HX-Request": "true", "HX-Current-URL": f"http://testserver{page}?x=1"})
    assert panel.status_code == 200 and "Location" not in panel
    assert panel["HX-Redirect"] == f"{reverse('login')}?next={page}%3Fx%3D1"
    # another origin's current URL is not trusted: back to the request's own path
    other = client.get(page, headers={"HX-Request": "true", "HX-Current-URL": "http://elsewhere.example/x"})
    assert other["HX-Redirect"] == f"{reverse('login')}?next={page}"
    # a plain load is redirected as before; a save keeps its own answer ("Not saved", the save protocol)
    assert client.get(page).status_code == 302
    saved = client.post(page, headers={"HX-Request": "true"})
    assert saved.status_code == 302 and "HX-Redirect" not in saved
