"""TREC RAG relevance in Chromium, keyboard only: a cited segment beside the topic, graded with one key (4 =
perfectly relevant), after which the page goes on to the next ungraded segment by itself (its panel swapped in, no page load)."""

from pathlib import Path

import pytest
from django.urls import reverse

from assess.models import Assignment, Judgment
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tracks.rag import judging

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rag"


@pytest.fixture
def assigned(transactional_db, make_user):
    ann = make_user("ann", "assessor")
    load_collection("rag-segs", "msmarco-v2.1-segmented", [str(FIXTURES / "segments.jsonl")])
    ev = create_evaluation("rag", judging.TRACK, ["rag-segs"])
    load_topics(ev, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    load_run_files(ev, [RunFile("alpha-2024.jsonl", (FIXTURES / "alpha-2024.jsonl").read_bytes(), "Team Alpha")])
    build_pools(ev)
    topic = ev.topics.get(ident="2024-145")
    return ann, topic, Assignment.objects.create(evaluation=ev, topic=topic, assessor=ann)


def row_is(page, item):
    """Wait until the segment on screen is `item`'s (its panel swapped in and bound)."""
    page.wait_for_function("(pk) => !!document.querySelector(`#relevance [data-item='${pk}']`)", arg=str(item.pk))


def test_grade_a_segment_and_go_on_with_the_keyboard(page, login, live_server, assigned, make_user):
    """A grade saves, then the next ungraded segment's panel is swapped in (no page load: assess/item_nav.py) with
    its URL; a grade typed at once goes to the segment that arrives; back, forward and a reload show the segment
    the URL names; a stranger gets no panel."""
    ann, topic, assignment = assigned
    first, second, third = judging.topic_items(topic, "relevance")[:3]

    def url(item):
        return reverse("rag:relevance", args=[assignment.pk, item.pk])

    login(page, "ann")
    page.goto(live_server.url + url(first))
    page.wait_for_load_state()
    page.evaluate("() => { window.__noReload = true; }")  # gone after any page load
    assert page.locator("#segment-id").inner_text() == first.docid
    # the frame came inside a <template> (no frame while parsing) and frames.js put it in with its src
    frame = page.locator("iframe.rag-frame[sandbox]")
    assert frame.count() == 1 and page.locator("template[data-frame-later]").count() == 0
    first_frame = frame.get_attribute("src")
    assert "/frame/" in first_frame
    page.frame_locator("iframe.rag-frame").locator("body").wait_for()
    page.keyboard.press("4")  # perfectly relevant (grade 3), then the next ungraded segment
    page.wait_for_url(f"**{url(second)}")
    row_is(page, second)
    assert Judgment.objects.get(item=first, assessor=ann).value == {"label": "3", "nuggets": {}}
    assert page.locator("#segment-id").inner_text() == second.docid
    assert page.locator("#judged-count").inner_text() == "1"
    assert page.evaluate("() => document.activeElement.id") == "relevance"
    assert page.title() == f"Relevance · {second.docid} · Assay"
    frame = page.locator("#relevance iframe.rag-frame[sandbox]")
    frame.wait_for()  # the swapped segment's frame, put in from its <template> as on a page opened anew
    assert "/frame/" in frame.get_attribute("src") and frame.get_attribute("src") != first_frame
    assert page.locator("template[data-frame-later]").count() == 0
    page.go_back()  # the first segment, asked for again: its grade shown
    page.wait_for_url(f"**{url(first)}")
    row_is(page, first)
    assert page.locator("button[data-label='3']").get_attribute("aria-pressed") == "true"
    page.go_forward()
    page.wait_for_url(f"**{url(second)}")
    row_is(page, second)
    # j, and a grade typed at once: the grade is meant for the third segment, the one that arrives
    page.keyboard.press("j")
    page.keyboard.press("3")
    page.wait_for_url(f"**{url(third)}")
    page.wait_for_function("() => document.getElementById('judged-count').textContent === '2'")
    grades = {j.item_id: j.value["label"] for j in Judgment.objects.filter(assessor=ann)}
    assert grades == {first.pk: "3", third.pk: "2"}  # nothing landed on the second
    assert page.evaluate("() => window.__noReload") is True
    page.reload()  # the whole page of the segment the URL names (the third's grade went on from it)
    page.wait_for_load_state()
    assert page.evaluate("() => window.__noReload") is None
    shown = page.get_attribute("#relevance [data-item]", "data-item")
    assert page.url.rstrip("/").endswith(f"/{shown}")

    make_user("carl", "assessor")  # an assessor of no topic: neither the page nor its panel
    page.context.clear_cookies()
    login(page, "carl")
    refused = page.request.get(live_server.url + url(second), headers={"HX-Request": "true"})
    assert refused.status == 404 and second.docid not in refused.text()
