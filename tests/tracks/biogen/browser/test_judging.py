"""BioGen judging in Chromium, keyboard only: an assessor opens a citation (the sentence beside the cited abstract
in the viewer's frame), judges it supports with one key, marks the supporting words (highlighted in the frame),
then moves to the next unjudged item and judges an answer and a sentence."""

from pathlib import Path

import pytest
from django.urls import reverse

from assess.models import Assignment, Judgment
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.models import PoolItem
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tests.conftest import PASSWORD
from tracks.biogen import judging

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "biogen"


def wait_status(page, text):
    page.wait_for_function("(t) => document.getElementById('status').textContent.includes(t)", arg=text)


def panel_is(page, condition):
    """Wait until the item panel `p` meets `condition`, a JavaScript expression (while a page loads there is none)."""
    page.wait_for_function(f"() => {{ const p = document.getElementById('item-panel'); return !!p && ({condition}); }}")


@pytest.fixture
def assigned(transactional_db, make_user):
    """Topic 1 of a pooled BioGen evaluation, assigned to ann: (ann, topic, assignment)."""
    ann = make_user("ann", "assessor")
    load_collection("bg-pubmed", "pubmed", [str(FIXTURES / "pubmed.jsonl")])
    ev = create_evaluation("bg", judging.TRACK, ["bg-pubmed"])
    load_topics(ev, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    load_run_files(ev, [RunFile("alpha-run1.json", (FIXTURES / "alpha-run1.json").read_bytes(), "Team Alpha")])
    build_pools(ev)
    topic = ev.topics.get(ident="1")
    return ann, topic, Assignment.objects.create(evaluation=ev, topic=topic, assessor=ann)


def test_the_topic_page_answers_u_and_question_mark(page, login, live_server, assigned):
    """The page "My assignments" leads to: ? lists its keys, u opens the first unjudged item (issue 25)."""
    ann, topic, assignment = assigned
    login(page, "ann")
    page.goto(live_server.url + reverse("biogen:topic", args=[assignment.pk]))
    page.wait_for_load_state()  # "load": the deferred key scripts run
    page.keyboard.press("?")
    page.wait_for_selector("#key-help[open]")
    assert "first unjudged item" in page.locator("#key-help").inner_text()
    page.keyboard.press("Escape")
    page.wait_for_selector("#key-help", state="hidden")
    first = page.get_attribute("#start", "href")
    page.keyboard.press("u")
    page.wait_for_url(f"**{first}")
    page.wait_for_selector("#item-text")


def test_judge_a_citation_with_the_keyboard(page, login, live_server, assigned):
    ann, topic, assignment = assigned
    citation = PoolItem.objects.get(topic=topic, docid="31000103")

    login(page, "ann")
    page.goto(live_server.url + reverse("biogen:item", args=[assignment.pk, citation.pk]))
    page.wait_for_load_state()  # "load": the deferred key scripts run
    assert "In overweight patients" in page.locator("#item-text").inner_text()
    frame = page.locator("iframe.biogen-frame[sandbox]")
    assert frame.count() == 1
    page.frame_locator("iframe.biogen-frame").locator("body").wait_for()
    wait_status(page, "Not judged yet")

    page.keyboard.press("1")  # supports
    wait_status(page, "Saved: supports (version 1)")
    assert page.locator("#judged-count").inner_text() == "1"
    assert page.locator("button[data-label=supports]").get_attribute("aria-pressed") == "true"

    page.keyboard.press("e")  # the supporting words
    assert page.evaluate("document.activeElement.id") == "evidence"
    page.keyboard.type("39% lower risk of myocardial infarction")
    page.keyboard.press("Enter")
    wait_status(page, "Saved: supports (version 2)")
    assert page.locator("#evidence-list li").all_inner_texts() == ["39% lower risk of myocardial infarction"]
    marks = page.frame_locator("iframe.biogen-frame").locator("mark")
    marks.first.wait_for()
    assert "39% lower risk of myocardial infarction" in " ".join(marks.all_inner_texts())

    judgment = Judgment.objects.get(item=citation, assessor=ann)
    assert judgment.value == {"label": "supports", "evidence": ["39% lower risk of myocardial infarction"]}
    assert judgment.version == 2 and judgment.changes.count() == 2

    page.keyboard.press("u")  # the next unjudged item after this one: another citation
    panel_is(page, f"p.dataset.item !== '{citation.pk}'")
    assert page.locator("#item-panel").get_attribute("data-kind") == "citation"
    wait_status(page, "Not judged yet")
    page.keyboard.press("3")  # neutral
    wait_status(page, "Saved: neutral")

    page.goto(live_server.url + reverse("biogen:topic", args=[assignment.pk]))
    page.click("#start")  # the first unjudged item: the answer
    panel_is(page, "p.dataset.kind === 'answer'")  # (after a navigation: no panel for a moment)
    page.keyboard.press("y")
    wait_status(page, "Saved: accurate")
    page.keyboard.press("j")  # the next item: a sentence
    panel_is(page, "p.dataset.kind === 'sentence'")
    page.keyboard.press("2")
    wait_status(page, "Saved: unnecessary")
    labels = sorted(Judgment.objects.filter(assessor=ann).values_list("value__label", flat=True))
    assert labels == ["accurate", "neutral", "supports", "unnecessary"]


def test_the_next_item_is_swapped_in_with_its_url_and_saves_on_it(page, login, live_server, assigned, make_user):
    """j brings the next item's panel in without a page load (assess/item_nav.py, static/js/item_nav.js): a key typed
    at once after j judges the item that arrives, the URL is the item's (back, forward and a reload show the item
    the URL names), the focus is on the new panel, and a citation arriving gets its abstract's frame."""
    ann, topic, assignment = assigned
    items = judging.topic_items(topic)
    at = next(n for n, i in enumerate(items) if n and i.data["kind"] == "citation")  # a citation after another item
    before, citation = items[at - 1], items[at]

    def url(item):
        return reverse("biogen:item", args=[assignment.pk, item.pk])

    login(page, "ann")
    page.goto(live_server.url + url(before))
    page.wait_for_load_state()  # "load": the deferred key scripts run
    page.evaluate("() => { window.__noReload = true; }")  # gone after any page load
    page.keyboard.press("j")
    page.keyboard.press("1")  # typed before the next item is there: meant for it (supports)
    page.wait_for_url(f"**{url(citation)}")
    panel_is(page, f"p.dataset.item === '{citation.pk}'")
    wait_status(page, "Saved: supports (version 1)")
    assert Judgment.objects.get(item=citation, assessor=ann).value["label"] == "supports"
    assert not Judgment.objects.filter(item=before).exists()  # nothing landed on the item left
    assert page.evaluate("() => window.__noReload") is True
    assert page.evaluate("() => document.activeElement.id") == "item-panel"
    assert page.title() == f"Citation {citation.pool_id} · Assay"
    frame = page.locator("#item-panel iframe.biogen-frame[sandbox]")
    frame.wait_for()  # put in from its <template> by frames.js, as on a page opened anew
    assert citation.docid in frame.get_attribute("src")
    page.frame_locator("iframe.biogen-frame").locator("body").wait_for()
    assert page.locator("template[data-frame-later]").count() == 0

    page.go_back()  # the item before, asked for again (not from a cache)
    page.wait_for_url(f"**{url(before)}")
    panel_is(page, f"p.dataset.item === '{before.pk}'")
    wait_status(page, "Not judged yet")
    page.go_forward()
    page.wait_for_url(f"**{url(citation)}")
    panel_is(page, f"p.dataset.item === '{citation.pk}'")
    wait_status(page, "Judged supports (version 1)")
    page.keyboard.press("3")  # the panel came back live, with its version
    wait_status(page, "Saved: neutral (version 2)")
    page.reload()
    page.wait_for_load_state()
    assert page.evaluate("() => window.__noReload") is None
    panel_is(page, f"p.dataset.item === '{citation.pk}'")
    assert page.locator("button[data-label=neutral]").get_attribute("aria-pressed") == "true"
    assert Judgment.objects.get(item=citation, assessor=ann).version == 2

    make_user("carl", "assessor")  # an assessor of no topic: neither the page nor its panel
    page.context.clear_cookies()  # ann logged out
    login(page, "carl")
    refused = page.request.get(live_server.url + url(citation), headers={"HX-Request": "true"})
    assert refused.status == 404 and citation.text not in refused.text()


def test_a_move_that_fails_says_so_and_the_keys_stay_with_the_item(page, login, live_server, assigned):
    """The next item's panel cannot be had (a server error): the status line says so, the item and its URL stay,
    and the next key judges it (no key is left held for a panel that never comes); then j works again."""
    ann, topic, assignment = assigned
    first, second = judging.topic_items(topic)[:2]

    def url(item):
        return reverse("biogen:item", args=[assignment.pk, item.pk])

    login(page, "ann")
    page.goto(live_server.url + url(first))
    page.wait_for_load_state()  # "load": the deferred key scripts run
    key = page.get_attribute("#labels [data-label]", "data-key")
    label = page.get_attribute("#labels [data-label]", "data-label")
    page.route(f"**{url(second)}", lambda route: route.fulfill(status=500, body="down"))
    page.keyboard.press("j")
    wait_status(page, "Could not open that item; try again.")
    assert page.url.endswith(url(first)) and page.get_attribute("#item-panel", "data-item") == str(first.pk)
    page.keyboard.press(key)
    wait_status(page, f"Saved: {label} (version 1)")
    assert Judgment.objects.get(item=first, assessor=ann).value["label"] == label
    page.unroute(f"**{url(second)}")
    page.keyboard.press("j")
    page.wait_for_url(f"**{url(second)}")
    panel_is(page, f"p.dataset.item === '{second.pk}'")


def test_a_move_after_the_session_ended_goes_to_the_login_page_and_back(page, login, live_server, assigned):
    """The session ends while an item is on screen (logged out in another tab): the next item's panel is not had
    (the login page swapped into it, as before), the whole page goes to the login page, and logging in again
    brings the assessor back to the item they were on."""
    ann, topic, assignment = assigned
    first = judging.topic_items(topic)[0]
    here = reverse("biogen:item", args=[assignment.pk, first.pk])
    login(page, "ann")
    page.goto(live_server.url + here)
    page.wait_for_load_state()  # "load": the deferred key scripts run
    page.context.clear_cookies()
    page.keyboard.press("j")
    page.wait_for_url(lambda url: url.endswith(f"{reverse('login')}?next={here}"))  # the page it was on
    assert page.locator("#item-panel").count() == 0
    page.fill("input[name=username]", "ann")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**{here}")
    panel_is(page, f"p.dataset.item === '{first.pk}'")
