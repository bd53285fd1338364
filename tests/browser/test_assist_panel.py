"""The assisted-judging panel in Chromium (issue 30) on QA's instance judging page: a *reveal after* item shows
only a placeholder until the assessor's own label is saved, then the suggestion and its rationale appear beside
the item, `g` accepts it through the page's own save, and the panel marks the judgment as made with the
suggestion visible, the assessor's own label kept in the history."""

import pytest
from django.urls import reverse

from assess import assist
from assess.models import Assignment, Judgment, Suggestion
from pooling.models import PoolItem
from tests.tracks.biogen.browser.test_judging import assigned as biogen_assigned  # noqa: F401 (a fixture)
from tests.tracks.bolt.browser.test_judging import topic as bolt_topic  # noqa: F401 (a fixture)
from tests.tracks.qa.browser.test_judging import expect_text
from tracks.qa.sample import build_sample

pytestmark = pytest.mark.browser


@pytest.fixture
def qa(transactional_db, make_user):
    sample = build_sample()
    user = make_user("judy", "assessor")
    assignment = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=user)
    for item in sample.items["1.1"]:
        Suggestion.objects.create(
            evaluation=sample.evaluation,
            topic=item.topic,
            kind="instance",
            item=item,
            value={"label": "globally-correct"},
            rationale="The document reports it.",
            source="model",
            source_name="tiny-instruct",
        )
    assist.set_design(sample.evaluation, unit="item", conditions=["reveal_after"], seed=3)
    return sample, user, assignment


def test_reveal_after_then_accept_with_one_key(page, login, live_server, qa):
    sample, user, assignment = qa
    question = sample.questions["1.1"]
    item = sample.items["1.1"][0]
    login(page, "judy")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, question.pk]))
    page.wait_for_selector("#item-panel[data-question='1.1']")
    page.wait_for_load_state("load")
    expect_text(page, "#assist-panel", "once you have saved your own judgment")
    assert "The document reports it." not in page.content()

    page.keyboard.press("1")  # incorrect: the assessor's own judgment
    page.wait_for_selector("#assist-panel.shown")
    expect_text(page, "#assist-panel", "The document reports it.")
    expect_text(page, "#assist-mark", "saved before this suggestion was shown")
    assert Judgment.objects.get(item=item).value["label"] == "incorrect"

    page.keyboard.press("g")  # accept: the page's own button for the suggested label
    expect_text(page, "#assist-mark", "saved with this suggestion visible (your own, before it: incorrect)")
    judgment = Judgment.objects.get(item=item)
    assert (judgment.value["label"], judgment.version) == ("globally-correct", 2)
    assert [c.after["label"] for c in judgment.changes.order_by("version")] == ["incorrect", "globally-correct"]


def test_biogen_suggest_first_accepted_with_one_key(page, login, live_server, biogen_assigned):
    """BioGen's JSON saves: the suggestion is beside the citation from the start, `g` saves its label through
    the page's own save, and the panel, asked again after the save, marks the judgment."""
    from tracks.biogen.measures import CITATION_LABELS

    ann, topic, assignment = biogen_assigned
    citation = PoolItem.objects.get(topic=topic, docid="31000103")
    label = CITATION_LABELS[1]
    Suggestion.objects.create(
        evaluation=topic.evaluation,
        topic=topic,
        kind="biogen",
        item=citation,
        value={"label": label},
        rationale="The abstract reports the opposite.",
        source="file",
        source_name="s.jsonl",
    )
    assist.set_design(topic.evaluation, unit="item", conditions=["suggest_first"], seed=1)
    login(page, "ann")
    page.goto(live_server.url + reverse("biogen:item", args=[assignment.pk, citation.pk]))
    page.wait_for_load_state()
    expect_text(page, "#assist-panel", "The abstract reports the opposite.")
    page.keyboard.press("g")
    page.wait_for_function("(t) => document.getElementById('status').textContent.includes(t)", arg="(version 1)")
    expect_text(page, "#assist-mark", "saved with this suggestion visible")
    assert Judgment.objects.get(item=citation, assessor=ann).value["label"] == label


def test_bolt_reveal_after_across_citations(page, login, live_server, bolt_topic):
    """BOLT's queued JSON saves: the suggestion appears once the citation is judged, `g` takes its relevance, and
    the next citation (its panel swapped in by htmx) starts hidden again."""
    from tracks.bolt import judging as bolt_judging

    t, assignment, user = bolt_topic
    items = bolt_judging.citation_items(t)
    for item in items[:2]:
        Suggestion.objects.create(
            evaluation=t.evaluation,
            topic=t,
            kind="citation",
            item=item,
            value={"rel": "yes"},
            rationale="The post names the funding.",
            source="model",
            source_name="tiny-instruct",
        )
    assist.set_design(t.evaluation, unit="item", conditions=["reveal_after"], seed=5)
    login(page, "boltie")
    page.goto(live_server.url + reverse("bolt:item", args=[assignment.pk, items[0].pk]))
    page.wait_for_load_state()
    expect_text(page, "#assist-panel", "once you have saved your own judgment")
    page.keyboard.press("n")  # not relevant: the assessor's own
    expect_text(page, "#assist-panel", "The post names the funding.")
    page.keyboard.press("g")
    expect_text(page, "#assist-mark", "saved with this suggestion visible (your own, before it: relevant: no)")
    assert Judgment.objects.get(item=items[0], assessor=user).value["rel"] == "yes"
    page.keyboard.press("j")
    page.wait_for_url(f"**/item/{items[1].pk}/")
    expect_text(page, "#assist-panel", "once you have saved your own judgment")
    assert "The post names the funding." not in page.content()
