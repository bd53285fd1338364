"""Accounts in the browser (issue 17, item 4): invitation by a one-time link, password change and reset by e-mail,
login throttling with an organizer's unlock, user management; and the audit log of it all (item 5)."""

import re
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import call_command
from django.urls import reverse

from core.models import AuditEntry
from tests.conftest import PASSWORD

NEW_PASSWORD = "a-fresh-Passphrase-42"


@pytest.fixture
def org(client, organizer):
    client.login(username="org", password=PASSWORD)
    return client


def _link_in(text):
    return re.search(r"https?://[^/\s]+(/account/reset/\S+/)", text).group(1)


def _set_password(client, link, password=NEW_PASSWORD):
    form = client.get(link, follow=True)
    assert form.status_code == 200 and 'id="password-set-form"' in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": password, "new_password2": password})
    assert done.status_code == 302 and done.url == reverse("password_reset_complete")


def test_invitation_sets_a_password_once(org, client):
    page = org.post(
        reverse("accounts:users"),
        {"username": "newbie", "email": "newbie@example.org", "roles": ["assessor"], "teams": ""},
    )
    assert page.status_code == 200 and 'id="invitation-link"' in page.content.decode()
    [message] = mail.outbox
    assert message.to == ["newbie@example.org"]
    link = _link_in(message.body)
    user = User.objects.get(username="newbie")
    assert not user.has_usable_password() and user.groups.get().name == "assessor"
    client.logout()
    _set_password(client, link)
    assert client.login(username="newbie", password=NEW_PASSWORD)
    client.logout()
    again = client.get(link, follow=True)
    assert 'id="invalid-link"' in again.content.decode()  # one time only
    entry = AuditEntry.objects.get(action="user invited")
    assert entry.username == "org" and entry.after["roles"] == ["assessor"]


def test_password_change(client, participant):
    client.login(username="par", password=PASSWORD)
    url = reverse("password_change")
    assert client.get(url).status_code == 200
    wrong = client.post(url, {"old_password": "nope", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert wrong.status_code == 200 and "error" in wrong.content.decode()
    done = client.post(url, {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    client.logout()
    assert not client.login(username="par", password=PASSWORD)
    assert client.login(username="par", password=NEW_PASSWORD)


def test_password_change_needs_a_login(client, db):
    assert client.get(reverse("password_change")).status_code == 302


def test_password_reset_by_email(client, participant):
    participant.email = "par@example.org"
    participant.save()
    sent = client.post(reverse("password_reset"), {"email": "par@example.org"})
    assert sent.status_code == 302
    unknown = client.post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert unknown.status_code == 302  # says the same: no account's existence leaks
    [message] = mail.outbox
    _set_password(client, _link_in(message.body))
    assert client.login(username="par", password=NEW_PASSWORD)


def _login(client, password):
    return client.post(reverse("login"), {"username": "par", "password": password})


def test_failed_logins_lock_the_account_until_an_organizer_unlocks_it(client, participant, organizer, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, "wrong").status_code == 200
    locked = _login(client, "wrong")
    assert locked.status_code == 429 and "Too many failed logins" in locked.content.decode()
    right = _login(client, PASSWORD)
    assert right.status_code == 429 and "_auth_user_id" not in client.session  # even the right password
    client.login(username="org", password=PASSWORD)
    users = client.get(reverse("accounts:users")).content.decode()
    assert "locked (failed logins)" in users
    assert client.post(reverse("accounts:user_unlock", args=[participant.pk])).status_code == 302
    assert AuditEntry.objects.get(action="user unlocked").target == "par"
    client.logout()
    assert _login(client, PASSWORD).status_code == 302


def test_unlock_command(client, participant, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "wrong")
    assert _login(client, PASSWORD).status_code == 429
    out = StringIO()
    call_command("unlock_user", "par", stdout=out)
    assert out.getvalue().strip() == "par: unlocked"
    assert _login(client, PASSWORD).status_code == 302


def test_organizer_changes_roles_teams_and_deactivates(org, participant, client):
    url = reverse("accounts:user_detail", args=[participant.pk])
    saved = org.post(url, {"roles": ["participant", "assessor"], "teams": "Team Alpha, Team Zeta", "email": ""})
    assert saved.status_code == 302
    assert sorted(participant.teams.values_list("name", flat=True)) == ["Team Alpha", "Team Zeta"]
    entry = AuditEntry.objects.get(action="user changed")
    assert entry.before["roles"] == ["participant"] and entry.after["roles"] == ["assessor", "participant"]
    assert entry.before["active"] is True
    org.post(url, {"roles": ["participant"], "teams": "Team Alpha", "email": "", "active": ""})
    participant.refresh_from_db()
    assert not participant.is_active
    client.logout()
    assert not client.login(username="par", password=PASSWORD)


def test_an_organizer_cannot_lock_themself_out(org, organizer):
    page = org.post(reverse("accounts:user_detail", args=[organizer.pk]), {"roles": ["assessor"], "active": "on"})
    assert page.status_code == 400 and "cannot take your own organizer role" in page.content.decode()


@pytest.mark.parametrize("name", ["accounts:users", "accounts:audit_log"])
def test_user_pages_are_for_organizers_only(client, participant, assessor, name):
    for username in ("par", "ass"):
        client.login(username=username, password=PASSWORD)
        assert client.get(reverse(name)).status_code == 403


def test_audit_log_page_and_csv(org, participant):
    call_command("update_user", "par", "--role", "assessor", stdout=StringIO())
    page = org.get(reverse("accounts:audit_log")).content.decode()
    assert "user changed" in page and "(server)" in page
    csv = org.get(reverse("accounts:audit_log") + "?format=csv&action=user+changed")
    lines = csv.content.decode().splitlines()
    assert lines[0] == "at,username,action,target,before,after,reason"
    assert len(lines) == 2 and ",(server),user changed,par," in lines[1]
    out = StringIO()
    call_command("audit_log", "--action", "user changed", stdout=out)
    assert out.getvalue().splitlines()[1:] == lines[1:]


def test_invite_command_prints_the_link(db):
    out = StringIO()
    call_command("invite_user", "cmd", "--role", "participant", "--team", "Team Q", stdout=out)
    assert "/account/reset/" in out.getvalue()
    assert User.objects.get(username="cmd").teams.get().name == "Team Q"
