"""Assisted judging in Chromium (issue 30) on TREC RAG's relevance page under *reveal after* (nothing of the
suggestion before the assessor's own grade is saved, the page stays on the segment after that first save, then `g`
takes the suggested grade through the page's own save and moves on, the judgment marked as made with it visible),
on RAG's answer page (a suggested assignment taken whole) and on QA's nugget page (a row's suggested nuggets)."""

import pytest
from django.urls import reverse

from assess import assist
from assess.models import Assignment, Judgment, Nugget, Suggestion
from tests.browser.test_rag_nuggets import assigned  # noqa: F401 (a fixture)
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
