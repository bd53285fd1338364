"""TREC RAG relevance in Chromium, keyboard only: a cited segment beside the topic, graded with one key (4 =
perfectly relevant), after which the page goes on to the next ungraded segment by itself."""

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


def test_grade_a_segment_and_go_on_with_the_keyboard(page, login, live_server, assigned):
    ann, topic, assignment = assigned
    first, second = judging.topic_items(topic, "relevance")[:2]
    login(page, "ann")
    page.goto(live_server.url + reverse("rag:relevance", args=[assignment.pk, first.pk]))
    page.wait_for_load_state()
    assert page.locator("#segment-id").inner_text() == first.docid
    # the frame came inside a <template> (no frame while parsing) and frames.js put it in with its src
    frame = page.locator("iframe.rag-frame[sandbox]")
    assert frame.count() == 1 and page.locator("template[data-frame-later]").count() == 0
    assert "/frame/" in frame.get_attribute("src")
    page.frame_locator("iframe.rag-frame").locator("body").wait_for()
    with page.expect_navigation(url=f"**{reverse('rag:relevance', args=[assignment.pk, second.pk])}"):
        page.keyboard.press("4")  # perfectly relevant (grade 3), then the next ungraded segment
    assert Judgment.objects.get(item=first, assessor=ann).value == {"label": "3", "nuggets": {}}
    page.wait_for_load_state()
    assert page.locator("#segment-id").inner_text() == second.docid
    assert page.locator("#judged-count").inner_text() == "1"
    page.keyboard.press("k")  # back: the grade is shown pressed
    page.wait_for_url(f"**{reverse('rag:relevance', args=[assignment.pk, first.pk])}")
    assert page.locator("button[data-label='3']").get_attribute("aria-pressed") == "true"
