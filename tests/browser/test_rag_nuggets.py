"""TREC RAG nuggets and their assignment in Chromium, keyboard only: the primary assessor takes the machine's
suggestions (y accepts, o makes the next one okay first, n rejects), types a nugget of their own (t, Enter), then
assigns every nugget to an answer with one digit each (the next nugget becomes current), and changes one."""

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
from tracks.rag.suggestions import load_suggestions

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
    load_suggestions(ev, (FIXTURES / "nuggets-suggested.jsonl").read_bytes(), "n.jsonl", ann)
    topic = ev.topics.get(ident="2024-145")
    return ann, topic, Assignment.objects.create(evaluation=ev, topic=topic, assessor=ann)


def nuggets(topic):
    return [(n.text, importance) for n, importance in judging.nuggets_of(topic)]


def test_nuggets_from_suggestions_then_assigned_with_the_keyboard(page, login, live_server, assigned):
    ann, topic, assignment = assigned
    login(page, "ann")
    page.goto(live_server.url + reverse("rag:nuggets", args=[assignment.pk]))
    page.wait_for_load_state()
    assert page.locator(".suggestion").count() == 5
    with page.expect_navigation():
        page.keyboard.press("y")  # "Caffeine blocks adenosine receptors", vital as proposed
    page.wait_for_load_state()
    page.keyboard.press("o")  # the next one ("... reduces total sleep time", proposed vital) made okay
    assert page.locator(".suggestion[aria-current=true] .importance").inner_text() == "okay"
    with page.expect_navigation():
        page.keyboard.press("y")
    page.wait_for_load_state()
    with page.expect_navigation():
        page.keyboard.press("n")  # "Caffeine half-life is about five hours": rejected
    page.wait_for_load_state()
    page.keyboard.press("t")
    assert page.evaluate("document.activeElement.id") == "new-nugget"
    page.keyboard.type("Tea has less caffeine than coffee")
    with page.expect_navigation():
        page.keyboard.press("Enter")  # vital, the new nugget's default
    page.wait_for_load_state()
    assert nuggets(topic) == [
        ("Caffeine blocks adenosine receptors", "vital"),
        ("Caffeine reduces total sleep time", "okay"),
        ("Tea has less caffeine than coffee", "vital"),
    ]
    topic.refresh_from_db()
    assert [s["text"] for s in judging.suggestions(topic)] == [
        "Caffeine reduces deep sleep",
        "Sensitivity depends on genes (CYP1A2)",
    ]
    assert page.locator("#nuggets li").count() == 3
    with page.expect_navigation():
        page.click("#nuggets li:nth-child(2) .importance-toggle")  # "... total sleep time" made vital again
    page.wait_for_load_state()
    assert nuggets(topic)[1] == ("Caffeine reduces total sleep time", "vital")

    answer = judging.topic_items(topic, "answer")[0]
    page.goto(live_server.url + reverse("rag:assign", args=[assignment.pk, answer.pk]))
    page.wait_for_load_state()
    assert page.locator(".rag-row").count() == 3
    for key in ("1", "2", "3"):  # support, partial support, no support; each moves to the next nugget
        page.keyboard.press(key)
    page.wait_for_function("() => document.querySelectorAll('.rag-row .row-status.error').length === 0"
                           " && [...document.querySelectorAll('.rag-row')].every(r => r.dataset.label)"
                           " && document.getElementById('judged-count').textContent === '1'")  # fmt: skip
    page.keyboard.press("k")  # back to the second nugget, now fully supported
    page.keyboard.press("1")
    page.wait_for_function(
        "() => document.querySelectorAll('.rag-row')[1].querySelector('.row-status').textContent.includes('saved')"
        " && document.querySelectorAll('.rag-row')[1].dataset.label === 'support'"
    )
    j = Judgment.objects.get(item=answer, assessor=ann)
    ids = [str(n.pk) for n, _ in judging.nuggets_of(topic)]
    assert j.value == {"label": "assigned", "nuggets": dict(zip(ids, ["support", "support", "not_support"]))}
    # keys typed while a save is out are combined into the next one (docs/save-protocol.md): 3 or 4 saves
    assert 3 <= j.version <= 4
