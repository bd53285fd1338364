"""Judging pages over HTTP: who may open what, htmx saves with version checks, organizer pages, lean saves."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from assess import agreement
from assess.models import Assignment, Invitation, Judgment


@pytest.fixture
def setup(sample, make_user):
    me = make_user("me", "assessor")
    other = make_user("other", "assessor")
    mine = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=me)
    return sample, me, other, mine


def login(client, user):
    client.force_login(user)  # the login form itself is tested in tests/browser
    return client


def judging_urls(sample, assignment):
    q, nq = sample.questions["1.1"], sample.questions["1.3"]
    it = sample.items["1.1"][0]
    return [
        reverse("qa:assignment", args=[assignment.pk]),
        reverse("qa:question", args=[assignment.pk, q.pk]),
        reverse("qa:question", args=[assignment.pk, nq.pk]),
        reverse("qa:item_panel", args=[assignment.pk, q.pk, it.pk]),
        reverse("qa:classes", args=[assignment.pk, sample.questions["1.2"].pk]),
        reverse("qa:nuggets", args=[assignment.pk, nq.pk]),
    ]


def test_assessor_opens_own_pages(client, setup):
    sample, me, _, mine = setup
    login(client, me)
    for url in judging_urls(sample, mine):
        assert client.get(url).status_code == 200, url
    body = client.get(reverse("qa:question", args=[mine.pk, sample.questions["1.1"].pk])).content.decode()
    assert 'data-key="1"' in body and "globally-correct" in body and 'id="key-list"' in body


def test_assessor_cannot_open_or_change_another_assessors_assignment(client, setup):
    sample, me, other, mine = setup
    login(client, other)
    for url in judging_urls(sample, mine):
        assert client.get(url).status_code == 404, url
    it = sample.items["1.1"][0]
    response = client.post(reverse("qa:judge", args=[it.pk]), {"label": "incorrect", "version": 0})
    assert response.status_code == 404
    nugget_item = sample.items["1.3"][0]
    assert client.post(reverse("qa:match", args=[nugget_item.pk]), {"version": 0}).status_code == 404
    assert not Judgment.objects.exists()


def test_participant_cannot_open_any_judging_page(client, setup, participant, organizer):
    sample, me, _, mine = setup
    login(client, participant)
    it = sample.items["1.1"][0]
    urls = judging_urls(sample, mine) + [
        reverse("assess:my_assignments"),
        reverse("assess:item_history", args=[it.pk]),
        reverse("assess:question_history", args=[it.topic_id]),
        reverse("qa:vote_series", args=[sample.series[0].pk]),
        reverse("qa:adjudication", args=[sample.evaluation.slug]),
        reverse("assess:organize", args=[sample.evaluation.slug]),
    ]
    for url in urls:
        assert client.get(url).status_code == 403, url
    assert client.post(reverse("qa:judge", args=[it.pk]), {"label": "incorrect", "version": 0}).status_code == 403
    assert not Judgment.objects.exists()


def test_organizer_pages_refuse_assessors(client, setup):
    sample, me, _, _ = setup
    login(client, me)
    assert client.get(reverse("assess:organize", args=[sample.evaluation.slug])).status_code == 403
    assert client.get(reverse("qa:adjudication", args=[sample.evaluation.slug])).status_code == 404


def test_htmx_save_and_refused_stale_save(client, setup):
    sample, me, _, _ = setup
    login(client, me)
    it = sample.items["1.1"][0]
    url = reverse("qa:judge", args=[it.pk])
    ok = client.post(url, {"label": "non-exact", "version": 0}, headers={"HX-Request": "true"})
    assert ok.status_code == 200 and b"saved" in ok.content and b'name="version" value="1"' in ok.content
    stale = client.post(url, {"label": "incorrect", "version": 0}, headers={"HX-Request": "true"})
    assert stale.status_code == 409
    body = stale.content.decode()
    assert "changed elsewhere" in body and 'value="1"' in body and "current" in body
    assert Judgment.objects.get(item=it).value["label"] == "non-exact"
    bad = client.post(url, {"label": "great", "version": 1})
    assert bad.status_code == 400 and b"unknown label" in bad.content


def test_the_bar_marks_the_label_just_saved_with_its_buttons_rendered_once(client, setup):
    """The label buttons are a fragment rendered once per label set and current label (issue 32): each save still
    marks its own label, and only that one."""
    from tracks.qa import instance_views

    sample, me, _, _ = setup
    login(client, me)
    instance_views._labels_html.cache_clear()
    bodies = []
    for item, label in zip(sample.items["1.1"][:2], ("non-exact", "incorrect")):
        response = client.post(reverse("qa:judge", args=[item.pk]), {"label": label, "version": 0})
        bodies.append(response.content.decode())
    again = client.post(reverse("qa:judge", args=[sample.items["1.1"][0].pk]), {"label": "non-exact", "version": 1})
    bodies.append(again.content.decode())
    for body, label in zip(bodies, ("non-exact", "incorrect", "non-exact")):
        assert body.count("label-btn current") == 1 and body.count('aria-pressed="true"') == 1
        assert f'value="{label}" data-key="' in body and 'class="label-btn current" aria-pressed="true"><kbd>' in body
        current = body.split("label-btn current")[0].rsplit("<button", 1)[1]
        assert f'value="{label}"' in current
    assert 'data-key="1"' in bodies[0] and "globally-correct" in bodies[0]
    assert instance_views._labels_html.cache_info().hits >= 1  # the third save reused the first one's buttons


def test_save_path_is_lean(client, setup, django_assert_max_num_queries):
    sample, me, _, _ = setup
    login(client, me)
    it = sample.items["1.1"][0]
    client.post(reverse("qa:judge", args=[it.pk]), {"label": "incorrect", "version": 0})
    # session+user+roles in one query, item+question+closure+assignment in one, judgment+history+stale mark in
    # one statement on PostgreSQL (tests/test_save_path.py); the ORM fallback used on SQLite takes more
    with django_assert_max_num_queries(3 if connection.vendor == "postgresql" else 12):
        response = client.post(reverse("qa:judge", args=[it.pk]), {"label": "non-exact", "version": 1})
    assert response.status_code == 200


def test_item_navigation_and_history(client, setup):
    sample, me, _, mine = setup
    login(client, me)
    q = sample.questions["1.1"]
    first, second = sample.items["1.1"][:2]
    client.post(reverse("qa:judge", args=[first.pk]), {"label": "incorrect", "version": 0})
    panel = client.get(reverse("qa:item_panel", args=[mine.pk, q.pk, 0])).content.decode()
    assert second.text in panel  # the first unjudged item
    history = client.get(reverse("assess:item_history", args=[first.pk])).content.decode()
    assert "incorrect" in history and "me" in history
    end = client.get(reverse("qa:item_panel", args=[mine.pk, q.pk, 0]) + "?want=end").content.decode()
    assert "next question 1.2" in end
    # what auto-advance follows at the end of a question: 1.1 has items left, so 1.2 is next
    assert "Items are left in question 1.2" in end and "data-advance" in end


def test_history_in_words(client, setup):
    """The history says what was saved in words, never a Python repr (issue 25)."""
    sample, me, _, mine = setup
    login(client, me)
    q = sample.questions["1.2"]
    item = sample.items["1.2"][0]
    client.post(reverse("qa:judge", args=[item.pk]), {"label": "incorrect", "version": 0})
    client.post(reverse("qa:judge", args=[item.pk]), {"new_class": "1", "class_label": "Kidman", "version": 1})
    for url in (reverse("assess:item_history", args=[item.pk]), reverse("assess:question_history", args=[q.pk])):
        html = client.get(url).content.decode()
        assert "{" not in html.split("<table", 1)[1] and "None" not in html, url
        assert "<td>incorrect</td>" in html and "globally-correct, class “Kidman”</td>" in html, url


def test_the_end_of_the_series_says_auto_advance_stops(client, setup):
    sample, me, _, mine = setup
    login(client, me)
    qs = [q for q in sample.questions.values() if q.parent_id == mine.topic_id and q.ident != "1.3"]
    sample.questions.pop("1.3").delete()
    for q in qs:
        for item in sample.items[q.ident]:
            client.post(reverse("qa:judge", args=[item.pk]), {"label": "incorrect", "version": 0})
    end = client.get(reverse("qa:item_panel", args=[mine.pk, qs[-1].pk, 0]) + "?want=end").content.decode()
    assert "auto-advance stops here" in end and "data-advance" not in end


def test_second_assessor_sees_only_own_judgments(client, setup, make_user):
    sample, me, other, _ = setup
    second = Assignment.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], assessor=other, role=Assignment.SECONDARY
    )
    it = sample.items["1.1"][0]
    login(client, me)
    client.post(reverse("qa:judge", args=[it.pk]), {"label": "unsupported", "version": 0})
    client.logout()
    login(client, other)
    panel = client.get(reverse("qa:item_panel", args=[second.pk, it.topic_id, it.pk])).content.decode()
    assert "label-btn current" not in panel and "not judged yet" in panel
    # the nugget question is the primary's
    assert client.get(reverse("qa:question", args=[second.pk, sample.questions["1.3"].pk])).status_code == 404


def test_organizer_overview_shows_progress_time_and_agreement(client, setup, organizer):
    sample, me, other, _ = setup
    Assignment.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], assessor=other, role=Assignment.SECONDARY
    )
    for user, labels in ((me, ["incorrect", "globally-correct"]), (other, ["incorrect", "incorrect"])):
        login(client, user)
        for it, label in zip(sample.items["1.1"][:2], labels):
            client.post(reverse("qa:judge", args=[it.pk]), {"label": label, "version": 0})
        client.logout()
    login(client, organizer)
    body = client.get(reverse("assess:organize", args=[sample.evaluation.slug])).content.decode()
    assert "1 open of 1 disagreements" in body
    assert "<td>me · other</td><td>2</td><td>0.500</td>" in body
    queue = client.get(reverse("qa:adjudication", args=[sample.evaluation.slug])).content.decode()
    assert sample.items["1.1"][1].docid in queue


def test_organizer_invites_and_closes(client, setup, organizer):
    sample, me, other, _ = setup
    login(client, organizer)
    slug = sample.evaluation.slug
    client.post(
        reverse("assess:invite", args=[slug]), {"kind": "voter", "series": sample.series[0].pk, "user": other.pk}
    )
    assert Invitation.objects.filter(user=other, kind="voter").exists()
    client.post(reverse("assess:closure", args=[sample.questions["1.1"].pk, "close"]))
    client.logout()
    login(client, me)
    it = sample.items["1.1"][0]
    response = client.post(reverse("qa:judge", args=[it.pk]), {"label": "incorrect", "version": 0})
    assert response.status_code == 423 and b"closed" in response.content
    client.logout()
    login(client, other)
    assert client.get(reverse("qa:vote_series", args=[sample.series[0].pk])).status_code == 200


def test_kappa_and_percent_agreement_by_hand():
    # 10 items: both "c" 4 times, both "i" 3 times, a says c / b says i twice, a says i / b says c once.
    pairs = [("c", "c")] * 4 + [("i", "i")] * 3 + [("c", "i")] * 2 + [("i", "c")]
    assert agreement.percent_agreement(pairs) == pytest.approx(0.7)
    # p_o = .7; a: c 6, i 4; b: c 5, i 5; p_e = (6*5 + 4*5) / 100 = .5; kappa = (.7 - .5) / .5 = .4
    assert agreement.cohens_kappa(pairs) == pytest.approx(0.4)
    assert agreement.cohens_kappa([("c", "c")] * 3) == 1.0
    assert agreement.cohens_kappa([]) is None and agreement.percent_agreement([]) is None


def test_list_save_renders_the_classes_panel_only_when_membership_changed(client, setup, django_assert_max_num_queries):
    """The panel lists each class's members: a label that leaves the item's class as it was sends the bar alone."""
    from assess.models import AnswerClass

    sample, me, _, _ = setup
    login(client, me)
    it = sample.items["1.2"][0]
    url = reverse("qa:judge", args=[it.pk])
    panel = 'id="classes-panel"'
    first = client.post(url, {"label": "incorrect", "version": 0}, headers={"HX-Request": "true"}).content.decode()
    assert panel not in first  # no class before or after
    # a factoid save's three statements (the write returns the class the item was in) + the classes for ⇧digits
    with django_assert_max_num_queries(4 if connection.vendor == "postgresql" else 14):
        relabel = client.post(url, {"label": "unsupported", "version": 1}, headers={"HX-Request": "true"})
    assert relabel.status_code == 200 and panel not in relabel.content.decode()
    cls = AnswerClass.objects.create(topic=sample.questions["1.2"], label="Nicole Kidman", created_by=me)
    entry = f'<li id="class-{cls.pk}" data-class-id="{cls.pk}" hx-swap-oob="true">'
    joined = client.post(url, {"answer_class": cls.pk, "version": 2}, headers={"HX-Request": "true"}).content.decode()
    # into a class: that class's entry of the panel comes out of band with its new member, the rest stays
    assert entry in joined and "(1 instance)" in joined and it.text in joined and panel not in joined
    left = client.post(url, {"label": "incorrect", "version": 3}, headers={"HX-Request": "true"}).content.decode()
    assert entry in left and "(0 instances)" in left and panel not in left  # out of it again
    client.post(url, {"answer_class": cls.pk, "version": 4}, headers={"HX-Request": "true"})
    cls.delete()  # (as a merge in another tab would): the entry to update is gone, so the whole panel comes
    gone = client.post(url, {"label": "incorrect", "version": 5}, headers={"HX-Request": "true"}).content.decode()
    assert panel in gone and entry not in gone
    stale = client.post(url, {"label": "non-exact", "version": 1}, headers={"HX-Request": "true"})
    assert stale.status_code == 409 and panel in stale.content.decode()  # a conflict shows everything as stored


def test_the_series_page_says_when_nothing_is_left(client, setup):
    """Once every item is judged the series page no longer offers u for "the first with items left" (issue 25)."""
    sample, me, _, mine = setup
    login(client, me)
    sample.questions.pop("1.3").delete()
    page = client.get(reverse("qa:assignment", args=[mine.pk])).content.decode()
    assert "Press <kbd>u</kbd> to open question 1.1, the first with items left to judge" in page
    for q in sample.questions.values():
        for item in sample.items[q.ident]:
            client.post(reverse("qa:judge", args=[item.pk]), {"label": "incorrect", "version": 0})
    page = client.get(reverse("qa:assignment", args=[mine.pk])).content.decode()
    assert "the first with items left" not in page and 'data-key="u"' not in page
    assert "Every question of this series is judged" in page


def test_auto_advance_goes_on_to_a_nugget_question_by_its_page(client, setup):
    """The next question with items left may be one of nuggets: auto-advance opens its page (a link, not a panel)."""
    sample, me, _, mine = setup
    login(client, me)
    for ident in ("1.1", "1.2"):
        for item in sample.items[ident]:
            client.post(reverse("qa:judge", args=[item.pk]), {"label": "incorrect", "version": 0})
    end = client.get(reverse("qa:item_panel", args=[mine.pk, sample.questions["1.2"].pk, 0]) + "?want=end")
    nuggets = reverse("qa:question", args=[mine.pk, sample.questions["1.3"].pk])
    assert f'<a data-advance href="{nuggets}">open question 1.3 (nuggets)</a>' in end.content.decode()


def test_nugget_saves_read_their_item_or_nugget_with_the_session_and_keep_every_refusal(
    client, setup, make_user, organizer
):
    """Issue 32: the match save reads its item, the vote its nugget with who may vote on it, in the session's
    statement (no read of their own); an unknown or another's item or nugget is still a 404 and a revoked session
    saves nothing."""
    from assess import judging
    from config.models import Session
    from tests.samples import assert_item_read_with_session
    from tracks.qa import nugget_judging

    sample, me, other, mine = setup
    q = sample.questions["1.3"]
    nugget = nugget_judging.create_nugget(me, q, "founded in 1909")
    item = sample.items["1.3"][0]
    login(client, me)
    with CaptureQueriesContext(connection) as seen:
        r = client.post(reverse("qa:match", args=[item.pk]), {"version": 0, "nuggets": [nugget.pk]})
    assert r.status_code == 200 and "saved" in r.content.decode()
    assert_item_read_with_session(seen.captured_queries, tables=("pooling_poolitem", "assess_assignment"))
    nugget_reads = [q["sql"] for q in seen.captured_queries if 'FROM "assess_nugget"' in q["sql"]]
    assert len(nugget_reads) == 1, nugget_reads  # the question's nuggets, read once: the save checks against them
    with CaptureQueriesContext(connection) as seen:
        r = client.post(reverse("qa:vote", args=[nugget.pk]), {"vote": "vital", "version": 0})
    assert r.status_code == 200 and "saved" in r.content.decode()
    tables = ("assess_nugget", "assess_assignment", "assess_invitation")
    assert_item_read_with_session(seen.captured_queries, "n", tables)
    if connection.vendor == "postgresql":
        assert len(seen.captured_queries) == 2  # the session's statement with the nugget, and the write
    assert client.post(reverse("qa:match", args=[2**62]), {"version": 0}).status_code == 404
    assert client.post(reverse("qa:vote", args=[2**62]), {"vote": "okay", "version": 0}).status_code == 404
    # a voter the organizer invited votes as the second; the other assessor, not invited, finds nothing
    voter = make_user("voter", "assessor")
    judging.invite(organizer, sample.evaluation, voter, Invitation.VOTER, sample.series[0])
    login(client, voter)
    with CaptureQueriesContext(connection) as seen:
        assert client.post(reverse("qa:vote", args=[nugget.pk]), {"vote": "okay", "version": 0}).status_code == 200
    assert_item_read_with_session(seen.captured_queries, "n", tables)
    login(client, other)
    assert client.post(reverse("qa:vote", args=[nugget.pk]), {"vote": "okay", "version": 0}).status_code == 404
    assert client.post(reverse("qa:match", args=[item.pk]), {"version": 0}).status_code == 404
    Session.objects.all().delete()  # revoked: nothing is saved for nobody
    assert client.post(reverse("qa:vote", args=[nugget.pk]), {"vote": "okay", "version": 0}).status_code in (302, 403)
    answer = client.post(reverse("qa:match", args=[sample.items["1.3"][1].pk]), {"version": 0})
    assert answer.status_code in (302, 403)
    assert sorted(Judgment.objects.values_list("kind", "assessor__username", "role")) == [
        ("nugget_match", "me", "primary"),
        ("nugget_vote", "me", "primary"),
        ("nugget_vote", "voter", "secondary"),
    ]


def test_the_bars_judge_url_is_what_reverse_gives(client, setup):
    """instance_views.judge_url builds the save's URL from parts found once: the same text as reverse, under a
    script prefix too, and in the bar a save answers with."""
    from django.urls import set_script_prefix

    from tracks.qa.instance_views import judge_url

    sample, me, _, _ = setup
    for item_id in (1, 42, 9_223_372_036_854_775_807):
        assert judge_url(item_id) == reverse("qa:judge", args=[item_id])
    set_script_prefix("/mounted/")
    try:
        assert judge_url(42) == reverse("qa:judge", args=[42]) == "/mounted/assess/item/42/judge"
    finally:
        set_script_prefix("/")
    item = sample.items["1.1"][0]
    url = reverse("qa:judge", args=[item.pk])
    answer = login(client, me).post(url, {"label": "incorrect", "version": 0})
    assert answer.status_code == 200 and f'hx-post="{url}"'.encode() in answer.content
