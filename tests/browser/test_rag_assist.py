"""Assisted judging on TREC RAG's relevance page in Chromium (issue 30), under *reveal after*: nothing of the
suggestion before the assessor's own grade is saved, and the page stays on the segment after that first save (so
the suggestion is seen); then the suggestion appears, `g` takes its grade through the page's own save and moves
on, and the judgment is marked as made with the suggestion visible, the assessor's own grade kept."""

import pytest
from django.urls import reverse

from assess import assist
from assess.models import Judgment, Suggestion
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
