"""The judging pages' search panel in Chromium (issue 18): `/` opens it on QA's instance judging page, a search
finds a document no run returned, the result opens beside it with the words marked, and the answer found there is
added (judged correct) without leaving the page; on BOLT's citation page a thread opened from a search gives a
citation by selecting a span in a post and pressing `f`. Both searches are logged with the item shown."""

from pathlib import Path

import pytest
from django.urls import reverse

from assess.models import Assignment, Judgment, SearchLog
from corpus.formats.bolt_forum import post_raw_text
from corpus.loading import load_collection
from corpus.models import Document
from corpus.search import build_index
from pooling.evaluations import create_evaluation
from pooling.models import PoolItem
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tests.tracks.bolt.browser.test_judging import select_in
from tests.tracks.qa.browser.test_judging import expect_text
from tracks.bolt import judging
from tracks.qa.questions import class_label
from tracks.qa.sample import build_sample

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bolt"
FOUND = "NYT_ENG_20050101.0001"
T3 = "bolt-eng-DF-183-190210-0042"


@pytest.fixture
def qa(transactional_db, make_user):
    sample = build_sample()
    collection = sample.evaluation.collections.get()
    Document.objects.create(
        collection=collection,
        docno=FOUND,
        raw=b'<DOC id="x" type="story"><TEXT><P>Coco Chanel opened her first shop in 1910.</P></TEXT></DOC>',
        text="Coco Chanel opened her first shop in 1910.",
    )
    build_index(collection)
    user = make_user("judy", "assessor")
    assignment = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=user)
    return sample, user, assignment


def test_qa_an_answer_found_by_search_is_added_from_the_judging_page(page, login, live_server, qa):
    sample, user, assignment = qa
    question = sample.questions["1.1"]
    login(page, "judy")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, question.pk]))
    page.wait_for_selector("#item-panel[data-question='1.1']")
    page.wait_for_load_state("load")  # the deferred key scripts
    page.evaluate("window.__noReload = true")  # lost on any full page load
    assert not page.locator("#search-panel").is_visible()
    page.keyboard.press("/")
    page.wait_for_selector("#search-panel", state="visible")
    assert page.evaluate("document.activeElement.id") == "search-q"
    page.keyboard.type("chanel shop")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#search-results .hit[data-docno='{FOUND}']")
    assert "<mark>Chanel</mark>" in page.locator("#search-results .snippet").first.inner_html()
    page.click(f"#search-results .hit[data-docno='{FOUND}'] button")
    page.wait_for_selector(f".search-opened[data-docno='{FOUND}'] iframe[src*='m=chanel']")
    page.fill(".search-found input[name=text]", "1910")
    page.click(".search-found button[type=submit]")
    expect_text(page, ".search-found .status", "added [")
    item = PoolItem.objects.get(topic=question, origin=PoolItem.ASSESSOR)
    assert (item.docid, item.text) == (FOUND, "1910")
    assert Judgment.objects.get(item=item, assessor=user).value["label"] == class_label(sample.evaluation)
    assert page.evaluate("window.__noReload") is True  # never left the page
    log = SearchLog.objects.get()
    assert log.query == "chanel shop" and log.topic == question and log.item_id is not None
    assert [o["docno"] for o in log.opened] == [FOUND]
    # Escape in the panel closes it and the page's keys work again
    page.focus("#search-q")
    page.keyboard.press("Escape")
    page.wait_for_selector("#search-panel", state="hidden")


@pytest.fixture
def bolt(transactional_db, make_user):
    load_collection("bolt-panel-forum", "bolt-forum", [str(FIXTURES / "forum.xml")])
    ev = create_evaluation("bolt-panel", "bolt-ir-p2", ["bolt-panel-forum"])
    load_topics(ev, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    load_run_files(
        ev, [RunFile(filename="alpha1.xml", data=(FIXTURES / "alpha1.xml").read_bytes(), team="A", priority=1)]
    )
    build_pools(ev)
    user = make_user("boltie", "assessor")
    topic = ev.topics.get(ident="1.002")
    return topic, Assignment.objects.create(evaluation=ev, topic=topic, assessor=user), user


def test_bolt_a_citation_found_by_search_is_added_from_the_citation_page(page, login, live_server, bolt):
    topic, assignment, user = bolt
    item = judging.citation_items(topic)[0]
    login(page, "boltie")
    page.goto(live_server.url + reverse("bolt:item", args=[assignment.pk, item.pk]))
    page.wait_for_selector("#citation-panel")
    page.wait_for_load_state("load")
    page.keyboard.press("/")
    page.wait_for_selector("#search-panel", state="visible")
    page.keyboard.type('"hope foundation" good work')
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#search-results .hit[data-docno='{T3}']")
    page.click(f"#search-results .hit[data-docno='{T3}'] button")
    post = "#search-open [data-post=p3]"
    page.wait_for_selector(post)
    wanted = "Say what you want, the Hope Foundation does good work."
    at = page.locator(post).inner_text().index(wanted)
    select_in(page, post, at, at + len(wanted))
    page.keyboard.press("f")
    expect_text(page, "#search-open [data-found-status]", "Added citation 1.002-A1")
    found = PoolItem.objects.get(topic=topic, origin=PoolItem.ASSESSOR)
    doc = Document.objects.get(docno=T3)
    raw = post_raw_text(bytes(doc.raw), doc.meta, "p3")
    assert raw[found.data["offset"] : found.data["offset"] + found.data["length"]] == wanted
    assert Judgment.objects.get(item=found, assessor=user).value["rel"] == "yes"
    log = SearchLog.objects.get()
    assert log.item_id == item.pk and [o["docno"] for o in log.opened] == [T3]
