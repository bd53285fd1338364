"""TREC RAG pages per role: the topic page, support batched by segment and relevance (the segment only in the
viewer's sandboxed frame), nugget assignment, the nugget page with suggestions, JSON saves with versions (409),
another assessor's pages not found, text from runs escaped, the organizer's overview and adjudication."""

import json

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from assess.models import Assignment, Judgment, Nugget
from tests.samples import assert_item_read_with_session
from tests.test_keymap import assert_page_keys
from tests.tracks.rag.test_pipeline import FIXTURES, T, items, judged, pooled, seg  # noqa: F401 (fixtures)
from tracks.rag import judging
from tracks.rag import keys as rag_keys
from tracks.rag.suggestions import load_suggestions


def post(client, url, body):
    return client.post(url, json.dumps(body), content_type="application/json")


def test_the_support_page_shows_the_segment_once_beside_every_sentence_citing_it(client, judged):
    ev, topic, ann = judged
    a = Assignment.objects.get(assessor=ann)
    client.force_login(ann)
    html = assert_page_keys(client, reverse("rag:topic", args=[a.pk]), rag_keys.TOPIC.ident)
    assert 'id="start"' in html and "how does caffeine affect sleep" in html
    number = next(n for n, (s, _) in enumerate(judging.support_batches(topic), start=1) if s == seg(0, 1))
    html = assert_page_keys(client, reverse("rag:support", args=[a.pk, number]), rag_keys.SUPPORT.ident)
    assert "Caffeine taken six hours before bed cut sleep by more than an hour." in html
    assert 'sandbox data-frame-src="/corpus/' in html and "1000%231_400" in html
    assert "controlled study" not in html  # the segment's text only inside the frame
    assert html.count('class="rag-row"') == 1 and 'data-label="partial_support" data-n="2"' in html
    assert client.get(reverse("rag:support", args=[a.pk, 99])).status_code == 404


def test_the_assessor_saves_as_json_with_versions(client, judged):
    ev, topic, ann = judged
    client.force_login(ann)
    r = items(topic, "relevance")[seg(0, 0)]
    url = reverse("rag:judge", args=[r.pk])
    with CaptureQueriesContext(connection) as seen:
        first = post(client, url, {"version": 0, "value": {"label": "3"}})
    assert first.status_code == 200 and first.json()["version"] == 1
    assert_item_read_with_session(seen.captured_queries)
    stale = post(client, url, {"version": 0, "value": {"label": "1"}})
    assert stale.status_code == 409 and stale.json()["value"]["label"] == "3" and stale.json()["version"] == 1
    bad = post(client, url, {"version": 1, "value": {"label": "full_support"}})
    assert bad.status_code == 400 and "judged 0, 1, 2, 3" in bad.json()["error"]
    no_version = post(client, url, {"value": {"label": "2"}})
    assert no_version.status_code == 400 and "which version" in no_version.json()["error"]
    assert Judgment.objects.get(item=r).value == {"label": "3", "nuggets": {}}


def test_nuggets_are_made_from_suggestions_and_assigned_per_answer(client, judged):
    ev, topic, ann = judged
    a = Assignment.objects.get(assessor=ann)
    load_suggestions(ev, (FIXTURES / "nuggets-suggested.jsonl").read_bytes(), "n.jsonl", ann)
    client.force_login(ann)
    html = assert_page_keys(client, reverse("rag:nuggets", args=[a.pk]), rag_keys.NUGGETS.ident)
    assert html.count('class="rag-row suggestion"') == 5 and 'value="Caffeine blocks adenosine receptors"' in html
    url = reverse("rag:suggestion", args=[a.pk, 1])
    assert post(client, url, {"action": "accept", "text": "Caffeine blocks adenosine", "importance": "vital"}).json()[
        "ok"
    ]
    assert post(client, url, {"action": "reject"}).json()["ok"]  # the next one moved up to 1
    assert post(client, reverse("rag:suggestion", args=[a.pk, 9]), {"action": "reject"}).status_code == 400
    made = post(client, reverse("rag:nugget_create", args=[a.pk]), {"text": "Avoid late coffee", "importance": "okay"})
    twice = post(
        client, reverse("rag:nugget_create", args=[a.pk]), {"text": "avoid  LATE coffee", "importance": "okay"}
    )
    assert made.status_code == 200 and twice.status_code == 400 and "already says" in twice.json()["error"]
    n1, n2 = Nugget.objects.filter(topic=topic).order_by("position")
    html = client.get(reverse("rag:nuggets", args=[a.pk])).content.decode()
    assert html.count('data-version="1"><span class="nugget-text">') == 2 and html.count("make it okay") == 1
    answer = next(iter(items(topic, "answer").values()))
    html = assert_page_keys(client, reverse("rag:assign", args=[a.pk, answer.pk]), rag_keys.ASSIGN.ident)
    assert html.count('class="rag-row"') == 2 and "Avoid late coffee" in html and ">vital<" in html
    url = reverse("rag:judge", args=[answer.pk])
    held = {str(n1.pk): "support", str(n2.pk): "partial_support"}
    assert post(client, url, {"version": 0, "value": {"label": "assigned", "nuggets": held}}).status_code == 200
    wrong = post(client, url, {"version": 1, "value": {"label": "assigned", "nuggets": {"999999": "support"}}})
    assert wrong.status_code == 400 and "999999" in wrong.json()["error"]
    changed = post(client, reverse("rag:nugget", args=[a.pk, n2.pk]), {"action": "importance", "importance": "vital",
                                                                       "version": 1})  # fmt: skip
    assert changed.status_code == 200 and changed.json()["value"] == {"vote": "vital"}
    assert post(client, reverse("rag:nugget", args=[a.pk, n2.pk]), {"action": "delete"}).status_code == 200
    assert Judgment.objects.get(item=answer).value["nuggets"] == {str(n1.pk): "support"}


def test_other_people_cannot_judge_or_change_nuggets(client, judged, make_user, participant):
    ev, topic, ann = judged
    a = Assignment.objects.get(assessor=ann)
    bob = make_user("bob", "assessor")
    client.force_login(bob)
    assert client.get(reverse("rag:topic", args=[a.pk])).status_code == 404
    r = items(topic, "relevance")[seg(0, 0)]
    assert post(client, reverse("rag:judge", args=[r.pk]), {"version": 0, "value": {"label": "3"}}).status_code == 403
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=bob, role=Assignment.SECONDARY)
    mine = Assignment.objects.get(assessor=bob)
    refused = post(client, reverse("rag:nugget_create", args=[mine.pk]), {"text": "x", "importance": "okay"})
    assert refused.status_code == 403 and "primary assessor" in refused.json()["error"]
    client.force_login(participant)
    assert client.get(reverse("rag:topic", args=[a.pk])).status_code == 403
    assert client.get(reverse("rag:overview", args=[ev.slug])).status_code == 403


def test_text_from_runs_is_escaped(client, judged):
    ev, topic, ann = judged
    answer = next(iter(items(topic, "answer").values()))
    answer.text = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    answer.save()
    a = Assignment.objects.get(assessor=ann)
    client.force_login(ann)
    html = client.get(reverse("rag:assign", args=[a.pk, answer.pk])).content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_overview_and_adjudication_for_organizers(client, judged, make_user, organizer):
    ev, topic, ann = judged
    bob = make_user("bob", "assessor")
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=bob, role=Assignment.SECONDARY)
    r = items(topic, "relevance")[seg(0, 0)]
    judging.judge_item(ann, r, {"label": "3"}, 0)
    judging.judge_item(bob, r, {"label": "1"}, 0)
    client.force_login(organizer)
    html = client.get(reverse("rag:overview", args=[ev.slug])).content.decode()
    assert f'data-topic="{T}"' in html and "1 of 1 disagreements open" in html
    html = assert_page_keys(client, reverse("rag:adjudicate", args=[ev.slug, r.pk]), rag_keys.ADJUDICATION.ident)
    assert "Primary (ann)" in html and "Second (bob)" in html
    done = client.post(reverse("rag:decide", args=[ev.slug, r.pk]), {"version": "0", "label": "2"})
    assert done.status_code == 302
    assert Judgment.objects.get(item=r, role=Judgment.ADJUDICATED).value == {"label": "2", "nuggets": {}}
    stale = client.post(reverse("rag:decide", args=[ev.slug, r.pk]), {"version": "0", "label": "1"})
    assert stale.status_code == 409 and reverse("rag:adjudication", args=[ev.slug]) in stale.content.decode()


def test_the_organizer_loads_suggestions_on_the_overview(client, judged, organizer):
    ev, topic, ann = judged
    client.force_login(organizer)
    url = reverse("rag:suggestions_upload", args=[ev.slug])
    bad = SimpleUploadedFile("bad.jsonl", b'{"qid": "nope", "query": "", "nuggets": []}\n')
    refused = client.post(url, {"file": bad})
    assert refused.status_code == 400 and "bad.jsonl:1: rag has no topic &#x27;nope&#x27;" in refused.content.decode()
    good = SimpleUploadedFile("n.jsonl", (FIXTURES / "nuggets-suggested.jsonl").read_bytes())
    done = client.post(url, {"file": good}, follow=True)
    assert "11 suggested nuggets loaded for 3 topics." in done.content.decode()
    topic.refresh_from_db()
    assert len(judging.suggestions(topic)) == 5
    client.force_login(ann)
    assert client.post(url, {"file": good}).status_code == 403


def test_moving_between_segments_and_answers_gets_the_panel_only_and_only_for_its_assessor(
    client, judged, make_user, participant
):
    """htmx (the nav links' hx-get) gets the relevance, support or answer panel with its <title>; a direct load and
    htmx restoring history get the whole page (assess.item_nav); the panel is refused as the page is."""
    ev, topic, ann = judged
    a = Assignment.objects.get(assessor=ann)
    relevance = judging.topic_items(topic, "relevance")
    answers = judging.topic_items(topic, "answer")
    pages = {
        "relevance": reverse("rag:relevance", args=[a.pk, relevance[0].pk]),
        "batch": reverse("rag:support", args=[a.pk, 1]),
        "assign": reverse("rag:assign", args=[a.pk, answers[0].pk]),
    }
    client.force_login(ann)
    following = reverse("rag:relevance", args=[a.pk, relevance[1].pk])
    html = client.get(pages["relevance"], headers={"HX-Request": "true"}).content.decode()
    assert f'href="{following}" hx-get="{following}"' in html  # a plain link still works without script
    for panel_id, url in pages.items():
        panel = client.get(url, headers={"HX-Request": "true"})
        html = panel.content.decode()
        assert html.startswith("<title>") and " · Assay</title>" in html, url
        assert html.count("data-item-panel") == 1 and "<!doctype" not in html and 'id="topic"' not in html, url
        assert f'id="{panel_id}"' in html and 'id="key-list"' not in html
        assert f'data-item-nav hx-target="#{panel_id}" hx-swap="outerHTML" hx-push-url="true"' in html
        nav = html[html.index("data-item-nav") : html.index("</nav>")]
        assert nav.count('hx-get="') == nav.count('<a href="') - 1  # every item link but the topic's
        assert {"HX-Request", "HX-History-Restore-Request"} <= {v.strip() for v in panel["Vary"].split(",")}
        for headers in ({}, {"HX-Request": "true", "HX-History-Restore-Request": "true"}):
            page = client.get(url, headers=headers).content.decode()
            assert page.startswith("<!doctype html>") and 'id="topic"' in page and page.count("data-item-panel") == 1
            assert 'hx-history-elt hx-history="false"' in page and "js/item_nav.js" in page
    bob = make_user("bob", "assessor")
    for who, status in ((bob, 404), (participant, 403)):
        client.force_login(who)
        for url in pages.values():
            assert client.get(url, headers={"HX-Request": "true"}).status_code == status, url
