"""BioGen pages per role: the assessor's topic and item pages (keys from the key map, the cited abstract only in
the viewer's sandboxed frame), JSON saves with versions (409), the organizer's overview, adjudication and the
run checker page's report."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from assess.models import Assignment, Invitation
from tests.samples import assert_item_read_with_session
from tests.test_keymap import assert_page_keys
from tests.tracks.biogen.test_pipeline import FIXTURES, SHARED, items_of, judged, pooled  # noqa: F401 (fixtures)
from tests.tracks.biogen.test_pipeline import evaluation as evaluation  # noqa: F401
from tracks.biogen import judging
from tracks.biogen import keys as biogen_keys


def test_the_assessor_judges_a_citation_as_json_with_versions(client, judged):
    ev, ann, bob, items, by_pmid = judged
    assignment = Assignment.objects.get(assessor=ann)
    citation = by_pmid["31000103"]
    client.force_login(ann)
    html = assert_page_keys(client, reverse("biogen:item", args=[assignment.pk, citation.pk]), biogen_keys.ITEM.ident)
    assert "In overweight patients it lowered the risk of myocardial infarction." in html
    assert 'sandbox data-frame-src="/corpus/' in html and "31000103" in html
    assert 'data-label="supports" data-key="1"' in html and 'data-label="partially_supports"' not in html
    assert "UKPDS 34" not in html  # the abstract itself only inside the frame
    url = reverse("biogen:judge", args=[citation.pk])
    stale = client.post(url, json.dumps({"version": 0, "value": {"label": "neutral"}}), content_type="application/json")
    assert stale.status_code == 409 and stale.json()["value"]["label"] == "supports" and stale.json()["version"] == 1
    with CaptureQueriesContext(connection) as seen:
        ok = client.post(
            url,
            json.dumps(
                {"version": 1, "value": {"label": "supports", "evidence": ["39% lower risk of myocardial infarction"]}}
            ),
            content_type="application/json",
        )
    assert ok.status_code == 200 and ok.json()["version"] == 2
    assert_item_read_with_session(seen.captured_queries)
    assert "m=39%25+lower+risk+of+myocardial+infarction" in ok.json()["frame_url"]
    frame = client.get(ok.json()["frame_url"].split("#")[0])
    assert b'<mark class="hl' in frame.content and b"39% lower risk of myocardial infarction" in frame.content
    bad = client.post(url, json.dumps({"version": 2, "value": {"label": "accurate"}}), content_type="application/json")
    assert bad.status_code == 400 and "a citation is judged" in bad.json()["error"]


def test_the_topic_page_lists_every_item_with_progress(client, judged):
    ev, ann, bob, items, by_pmid = judged
    client.force_login(bob)
    assignment = Assignment.objects.get(assessor=bob)
    html = client.get(reverse("biogen:topic", args=[assignment.pk])).content.decode()
    assert "Does metformin reduce cardiovascular events" in html and "second assessor" in html
    assert html.count('data-kind="citation"') == 6 and html.count('data-kind="sentence"') == 5
    assert 'id="start"' in html and "0 of 13 judged" in html
    html = assert_page_keys(client, reverse("biogen:topic", args=[assignment.pk]), biogen_keys.TOPIC.ident)
    assert 'data-key="u" id="start"' in html  # u opens the first unjudged item


def test_other_roles_cannot_judge(client, judged, make_user, participant):
    ev, ann, bob, items, by_pmid = judged
    assignment = Assignment.objects.get(assessor=ann)
    other = make_user("carl", "assessor")
    client.force_login(other)
    assert client.get(reverse("biogen:topic", args=[assignment.pk])).status_code == 404
    url = reverse("biogen:judge", args=[by_pmid["31000101"].pk])
    body = json.dumps({"version": 1, "value": {"label": "neutral"}})
    assert client.post(url, body, content_type="application/json").status_code == 403
    client.force_login(participant)
    assert client.get(reverse("biogen:topic", args=[assignment.pk])).status_code == 403
    assert client.get(reverse("biogen:overview", args=[ev.slug])).status_code == 403
    assert client.get(reverse("biogen:adjudication", args=[ev.slug])).status_code == 403


def test_the_organizer_overview_and_adjudication(client, judged, organizer, make_user):
    ev, ann, bob, items, by_pmid = judged
    citation = by_pmid["31000102"]
    judging.judge_item(bob, citation, {"label": "supports", "evidence": []}, 0)
    client.force_login(organizer)
    html = client.get(reverse("biogen:overview", args=[ev.slug])).content.decode()
    assert '<tr data-topic="1"><td>1</td>' in html and "<td>2</td><td>5</td><td>6</td><td>13</td>" in html
    assert "1 of 1 disagreements open" in html
    html = assert_page_keys(client, reverse("biogen:adjudication", args=[ev.slug]), biogen_keys.QUEUE.ident)
    assert 'data-key="u"' in html
    page = reverse("biogen:adjudicate", args=[ev.slug, citation.pk])
    html = assert_page_keys(client, page, biogen_keys.ADJUDICATION.ident)
    assert "Primary (ann): <strong>contradicts</strong>" in html and "Second (bob): <strong>supports</strong>" in html
    response = client.post(
        reverse("biogen:decide", args=[ev.slug, citation.pk]), {"version": "0", "adopt": "secondary"}
    )
    assert response.status_code == 302
    assert [row[3].value["label"] for row in judging.adjudication_queue(ev)] == ["supports"]
    again = client.post(reverse("biogen:decide", args=[ev.slug, citation.pk]), {"version": "0", "label": "neutral"})
    assert again.status_code == 409 and b"changed elsewhere" in again.content
    assert f'href="{page}"'.encode() in again.content  # back to the item, and to the queue
    assert f'href="{reverse("biogen:adjudication", args=[ev.slug])}"'.encode() in again.content
    # an invited adjudicator who judged the topic never sees it; the topic's assessors are not adjudicators
    Invitation.objects.create(evaluation=ev, user=ann, kind=Invitation.ADJUDICATOR, invited_by=organizer)
    client.force_login(ann)
    assert client.get(page).status_code == 404


@pytest.mark.parametrize("name", ["alpha-run1.json", "beta-run1-bad.json"])
def test_the_run_checker_page_shows_the_check_report(client, evaluation, participant, name):  # noqa: F811
    client.force_login(participant)
    with open(FIXTURES / name, "rb") as f:
        html = client.post(reverse("pooling:run_check"), {"evaluation": evaluation.slug, "file": f}).content.decode()
    assert "note: sentences split by spaCy" in html
    if name == "alpha-run1.json":
        assert "no problems" in html and "Run alpha-run1" in html
    else:
        assert "4 problems" in html and "not in the allowed PubMed collection" in html
        assert "only the first 3 count, 31000206 dropped" in html


def test_the_run_report_has_every_measure_per_topic_rows_and_a_plot(client, judged, organizer):
    from scoring.rescore import rescore_evaluation

    ev = judged[0]
    rescore_evaluation(ev.id)
    client.force_login(organizer)
    html = client.get(reverse("scoring:run_report", args=[ev.slug, "alpha-run1"])).content.decode()
    assert '<tr data-measure="document_recall"><td>Document recall</td>' in html
    assert "Precision: difference from the median, per topic" in html and "<svg" in html
    # topic 1: the answer, 3 sentences and 4 citations of alpha, all judged; topics 2 and 3: none of 7 and 8
    assert "Accuracy per topic" in html and "8 of 8 items judged" in html and "0 of 7 items judged" in html
    # topics 2 and 3 are not judged yet: the report says so, naming them
    assert "Not fully judged yet: topics 2, 3. Their unjudged answers" in html
    assert "union of the relevant PMIDs every run cited" in html and "weighted mean of its question types" not in html
    data = client.get(reverse("scoring:run_report_json", args=[ev.slug, "alpha-run1"])).json()
    assert [r["key"] for r in data["summary"]][:2] == ["accuracy", "precision"]
    assert data["summary"][0]["value"] == 1.0


def test_moving_between_items_gets_the_item_panel_only_and_only_for_its_assessor(client, judged, participant):
    """htmx (the item links' hx-get) gets the item's panel with its <title>; a direct load and htmx restoring history
    get the whole page (assess.item_nav); the panel is refused as the page is."""
    ev, ann, bob, items, by_pmid = judged
    assignment = Assignment.objects.get(assessor=ann)
    ordered = judging.topic_items(assignment.topic)
    url = reverse("biogen:item", args=[assignment.pk, ordered[1].pk])
    client.force_login(ann)
    panel = client.get(url, headers={"HX-Request": "true"})
    html = panel.content.decode()
    assert html.startswith("<title>") and f"{ordered[1].pool_id} · Assay</title>" in html
    assert html.count("data-item-panel") == 1 and "<!doctype" not in html and 'id="topic"' not in html
    assert f'data-item="{ordered[1].pk}"' in html and 'id="biogen-state"' in html
    assert 'data-item-nav hx-target="#item-panel" hx-swap="outerHTML" hx-push-url="true"' in html
    following = reverse("biogen:item", args=[assignment.pk, ordered[2].pk])
    assert f'href="{following}" hx-get="{following}"' in html  # a plain link still works without script
    assert {"HX-Request", "HX-History-Restore-Request"} <= {v.strip() for v in panel["Vary"].split(",")}
    for headers in ({}, {"HX-Request": "true", "HX-History-Restore-Request": "true"}):
        page = client.get(url, headers=headers).content.decode()
        assert page.startswith("<!doctype html>") and 'id="topic"' in page and page.count("data-item-panel") == 1
        assert 'hx-history-elt hx-history="false"' in page and "js/item_nav.js" in page
    for who, status in ((bob, 404), (participant, 403)):  # bob judges the topic too, under his own assignment
        client.force_login(who)
        assert client.get(url, headers={"HX-Request": "true"}).status_code == status
