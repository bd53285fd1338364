"""A model server's nugget proposals in Chromium (issue 30), on TREC RAG's nugget page and QA's nugget workspace:
under *reveal after* the page holds none until the assessor marks their own list done; then `y` accepts a
proposal (RAG: the current row, as the page's other suggestions; QA: the first, as edited in its box), and the
nugget is logged as a model proposal."""

from pathlib import Path

import pytest
from django.urls import reverse

from assess import assist, assist_nuggets
from assess.models import Assignment, StructureChange, Suggestion
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tracks.rag import judging

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rag"
FIRST = "Caffeine blocks adenosine receptors"


@pytest.fixture
def proposed(transactional_db, make_user):
    ann = make_user("ann", "assessor")
    load_collection("rag-segs", "msmarco-v2.1-segmented", [str(FIXTURES / "segments.jsonl")])
    ev = create_evaluation("rag", judging.TRACK, ["rag-segs"])
    load_topics(ev, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    load_run_files(ev, [RunFile("alpha-2024.jsonl", (FIXTURES / "alpha-2024.jsonl").read_bytes(), "Team Alpha")])
    build_pools(ev)
    topic = ev.topics.get(ident="2024-145")
    assist.set_design(ev, unit="topic", conditions=["reveal_after"], seed=5)
    nuggets = [{"text": FIRST, "importance": "vital"}, {"text": "Caffeine cuts deep sleep", "importance": "okay"}]
    Suggestion.objects.create(
        evaluation=ev, topic=topic, kind=assist_nuggets.KIND, value={"nuggets": nuggets}, rationale="from [1]",
        source="model", source_name="tiny-instruct", prompt="p",
    )  # fmt: skip
    return ann, topic, Assignment.objects.create(evaluation=ev, topic=topic, assessor=ann)


def test_a_proposal_waits_for_the_own_list_then_y_accepts_it(page, login, live_server, proposed):
    ann, topic, assignment = proposed
    login(page, "ann")
    page.goto(live_server.url + reverse("rag:nuggets", args=[assignment.pk]))
    page.wait_for_load_state()
    assert page.locator(".proposal").count() == 0 and FIRST not in page.content()
    with page.expect_navigation():
        page.click("#list-done")
    page.wait_for_load_state()
    assert page.locator(".proposal").count() == 2
    assert page.locator(".suggestion[aria-current=true] .suggestion-text").input_value() == FIRST
    with page.expect_navigation():
        page.keyboard.press("y")
    page.wait_for_load_state()
    assert [(n.text, importance) for n, importance in judging.nuggets_of(topic)] == [(FIRST, "vital")]
    assert page.locator(".proposal").count() == 1
    created = StructureChange.objects.get(topic=topic, action="nugget.create")
    assert created.after["from"] == "model proposal"


def test_qa_workspace_a_proposal_after_the_own_list_then_y_accepts_it(
    page, login, live_server, transactional_db, make_user
):
    """QA's nugget workspace, reveal after: the button marks the own list done (the workspace swaps in the
    proposals), then `y` accepts the first as edited in its box, with its vital/okay vote."""
    from assess.models import Judgment, Nugget
    from tracks.qa.sample import build_sample

    sample = build_sample()
    nora = make_user("nora", "assessor")
    assignment = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=nora)
    question = sample.questions["1.3"]
    assist.set_design(sample.evaluation, unit="topic", conditions=["reveal_after"], seed=2)
    nuggets = [{"text": "Founded in 1909", "importance": "vital"}, {"text": "Based in Clichy", "importance": "okay"}]
    Suggestion.objects.create(
        evaluation=sample.evaluation, topic=question, kind=assist_nuggets.KIND, value={"nuggets": nuggets},
        source="model", source_name="tiny-instruct", prompt="p",
    )  # fmt: skip
    login(page, "nora")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, question.pk]))
    page.wait_for_selector("#list-done")
    assert page.locator("#nugget-proposals").count() == 0 and "Founded in 1909" not in page.content()
    page.click("#list-done")
    page.wait_for_selector("#nugget-proposals li.proposal")
    page.fill("#nugget-proposals li.proposal input[name=text]", "Founded in 1909 in Paris")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("y")
    page.wait_for_function("() => document.querySelectorAll('#nugget-proposals li.proposal').length === 1")
    (nugget,) = Nugget.objects.filter(topic=question)
    assert nugget.text == "Founded in 1909 in Paris"
    assert Judgment.objects.get(nugget=nugget, kind="nugget_vote").value == {"vote": "vital"}
