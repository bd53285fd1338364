"""Assisted judging in Chromium (issue 30) on TREC RAG's relevance page under *reveal after* (nothing of the
suggestion before the assessor's own grade is saved, the page stays on the segment after that first save, then `g`
takes the suggested grade through the page's own save and moves on, the judgment marked as made with it visible),
on RAG's answer page (a suggested assignment taken whole) and on QA's nugget page (a row's suggested nuggets)."""

import pytest
from django.urls import reverse

from assess import assist
from assess.models import Assignment, Judgment, Nugget, Suggestion
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tests.browser.test_rag_nuggets import FIXTURES, assigned  # noqa: F401 (a fixture)
from tests.tracks.qa.browser.test_judging import expect_text
from tracks.rag import judging

pytestmark = pytest.mark.browser
RATIONALE = "The segment gives the hours of sleep lost."


def test_relevance_reveal_after_then_accept_with_one_key(page, login, live_server, assigned):
    ann, topic, assignment = assigned
    first, second = judging.topic_items(topic, "relevance")[:2]
    Suggestion.objects.create(
        evaluation=topic.evaluation, topic=topic, kind="rag", item=first, value={"label": "2"},
        rationale=RATIONALE, source="file", source_name="umbrela.qrels",
    )  # fmt: skip
    assist.set_design(topic.evaluation, unit="item", conditions=["reveal_after"], seed=2)
    url = live_server.url + reverse("rag:relevance", args=[assignment.pk, first.pk])
    login(page, "ann")
    page.goto(url)
    page.wait_for_load_state()
    expect_text(page, "#assist-panel", "once you have saved your own judgment")
    assert RATIONALE not in page.content()

    page.keyboard.press("2")  # related ("1"): the assessor's own grade; the page stays to show the suggestion
    expect_text(page, "#assist-panel", RATIONALE)
    expect_text(page, "#assist-mark", "saved before this suggestion was shown")
    assert page.url == url and Judgment.objects.get(item=first).value["label"] == "1"

    page.keyboard.press("g")  # accept: the page's own button for grade 2, then on to the next segment as usual
    page.wait_for_url(f"**{reverse('rag:relevance', args=[assignment.pk, second.pk])}")
    judgment = Judgment.objects.get(item=first)
    assert (judgment.value["label"], judgment.version) == ("2", 2)
    assert [c.after["label"] for c in judgment.changes.order_by("version")] == ["1", "2"]
    page.goto(url)
    expect_text(page, "#assist-mark", "saved with this suggestion visible (your own, before it: related)")


def test_an_answers_suggested_assignment_is_taken_whole_with_one_key(page, login, live_server, assigned):
    """Suggest first on the answer page: `g` assigns every nugget as the suggestion does (over the one the
    assessor chose first), in one save of the answer's judgment."""
    ann, topic, assignment = assigned
    n1, n2 = (Nugget.objects.create(topic=topic, text=t, position=p, created_by=ann) for p, t in ((1, "A"), (2, "B")))
    answer = judging.topic_items(topic, "answer")[0]
    Suggestion.objects.create(
        evaluation=topic.evaluation, topic=topic, kind="rag", item=answer,
        value={"label": "assigned", "nuggets": {str(n1.pk): "support", str(n2.pk): "partial_support"}},
        rationale=RATIONALE, source="file", source_name="a.jsonl",
    )  # fmt: skip
    assist.set_design(topic.evaluation, unit="item", conditions=["suggest_first"], seed=2)
    login(page, "ann")
    page.goto(live_server.url + reverse("rag:assign", args=[assignment.pk, answer.pk]))
    page.wait_for_load_state()
    expect_text(page, "#assist-panel", "nuggets assigned: 1 support, 1 partial_support")
    page.keyboard.press("3")  # the first nugget: no support, the assessor's own
    page.wait_for_function("() => document.querySelectorAll('.rag-row')[0].dataset.label === 'not_support'"
                           " && document.getElementById('status').textContent.includes('version 1')")  # fmt: skip
    page.keyboard.press("g")
    page.wait_for_function("() => document.querySelectorAll('.rag-row')[1].dataset.label === 'partial_support'"
                           " && document.getElementById('status').textContent.includes('version 2')")  # fmt: skip
    expect_text(page, "#assist-mark", "saved with this suggestion visible")
    judgment = Judgment.objects.get(item=answer, assessor=ann)
    assert judgment.value["nuggets"] == {str(n1.pk): "support", str(n2.pk): "partial_support"}


def test_qa_nugget_match_suggestion_accepted_with_one_key(page, login, live_server, transactional_db, make_user):
    """QA's nugget page, suggest first: the current answer string's row shows the machine's nuggets by number, and
    `g` ticks exactly them and saves the row as a change of its boxes would."""
    from tracks.qa.sample import build_sample

    sample = build_sample()
    nora = make_user("nora", "assessor")
    assignment = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=nora)
    question = sample.questions["1.3"]
    first, second, third = (
        Nugget.objects.create(topic=question, text=t, position=p, created_by=nora)
        for p, t in ((1, "Founded in 1909"), (2, "Paris headquarters"), (3, "Known for perfume"))
    )
    item = sample.items["1.3"][0]
    Suggestion.objects.create(
        evaluation=sample.evaluation, topic=question, kind="nugget_match", item=item,
        value={"nuggets": [third.pk, first.pk]}, rationale=RATIONALE, source="file", source_name="assign.jsonl",
    )  # fmt: skip
    assist.set_design(sample.evaluation, unit="item", conditions=["suggest_first"], seed=2)
    login(page, "nora")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, question.pk]))
    page.wait_for_load_state()
    expect_text(page, f"#match-{item.pk} .assist-row", "nuggets 1, 3")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("g")
    expect_text(page, f"#match-{item.pk} .assist-mark", "saved with this suggestion visible")
    assert Judgment.objects.get(item=item, kind="nugget_match").value == {"nuggets": sorted([first.pk, third.pk])}


@pytest.fixture
def two_runs(transactional_db, make_user):
    """Team Alpha's and Beta's answers to 2024-145: some segments cited by a sentence of each."""
    ann = make_user("ann", "assessor")
    load_collection("rag-segs", "msmarco-v2.1-segmented", [str(FIXTURES / "segments.jsonl")])
    ev = create_evaluation("rag", judging.TRACK, ["rag-segs"])
    load_topics(ev, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    runs = [RunFile(n, (FIXTURES / n).read_bytes(), "Team " + n[:4]) for n in ("alpha-2024.jsonl", "beta-2025.jsonl")]
    load_run_files(ev, runs)
    build_pools(ev)
    topic = ev.topics.get(ident="2024-145")
    return ann, topic, Assignment.objects.create(evaluation=ev, topic=topic, assessor=ann)


def test_support_panel_follows_the_current_sentence(page, login, live_server, two_runs):
    """RAG's support page judges every sentence citing one segment: the one panel is the current sentence's, `g`
    presses that sentence's own button, and moving on brings the next sentence's (still hidden) panel."""
    ann, topic, assignment = two_runs
    number, batch = next((n, b) for n, (_, b) in enumerate(judging.support_batches(topic), start=1) if len(b) >= 2)
    for item in batch[:2]:
        Suggestion.objects.create(
            evaluation=topic.evaluation, topic=topic, kind="rag", item=item, value={"label": "full_support"},
            rationale=f"{RATIONALE} ({item.pk})", source="file", source_name="s.jsonl",
        )  # fmt: skip
    assist.set_design(topic.evaluation, unit="item", conditions=["reveal_after"], seed=2)
    login(page, "ann")
    page.goto(live_server.url + reverse("rag:support", args=[assignment.pk, number]))
    page.wait_for_load_state()
    expect_text(page, "#assist-panel", "once you have saved your own judgment")
    page.keyboard.press("3")  # no support: the assessor's own; the sentence stays current
    expect_text(page, "#assist-panel", f"({batch[0].pk})")
    page.keyboard.press("g")
    page.wait_for_function(f"() => document.querySelector('#assist-panel[data-assist-item=\"{batch[1].pk}\"]')")
    expect_text(page, "#assist-panel", "once you have saved your own judgment")
    assert RATIONALE not in page.locator("#assist-panel").inner_text()
    judgment = Judgment.objects.get(item=batch[0], assessor=ann)
    assert (judgment.value["label"], judgment.version) == ("full_support", 2)
    assert not Judgment.objects.filter(item=batch[1]).exists()
