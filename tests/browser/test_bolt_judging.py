"""BOLT judging in Chromium: a topic judged with the keyboard only, relspans marked and removed, a citation
found in a thread, and a grouping view judged."""
from pathlib import Path

import pytest
from django.urls import reverse

from assess.models import Assignment, Judgment
from corpus.formats.bolt_forum import post_raw_text
from corpus.loading import load_collection
from corpus.models import Document
from pooling import bolt
from pooling.loading import RunFile, create_evaluation, load_run_files, load_topics
from pooling.models import PoolItem
from pooling.pools import build_pools

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bolt"
T3 = "bolt-eng-DF-183-190210-0042"


@pytest.fixture
def topic(transactional_db, make_user):
    load_collection("bolt-browser-forum", "bolt-forum", [str(FIXTURES / "forum.xml")])
    ev = create_evaluation("bolt-browser", "bolt-ir-p2", ["bolt-browser-forum"])
    load_topics(ev, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    load_run_files(ev, [RunFile(filename=n, data=(FIXTURES / n).read_bytes(), team="Team Alpha", priority=1)
                        for n in ("alpha1.xml", "alpha1-groups.xml")])
    build_pools(ev)
    user = make_user("boltie", "assessor")
    t = ev.topics.get(ident="1.002")
    return t, Assignment.objects.create(evaluation=ev, topic=t, assessor=user), user


def wait_status(page, text):
    page.wait_for_function("(t) => document.getElementById('status').textContent.includes(t)", arg=text)


def select_in(page, selector, start, end):
    """Select characters start..end of the element's text, across its child nodes, like a mouse drag."""
    page.evaluate("""([sel, start, end]) => {
        const root = document.querySelector(sel);
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        let pos = 0, node;
        while ((node = walker.nextNode())) {
            const len = node.textContent.length;
            if (start >= pos && start <= pos + len && !range.__started) { range.setStart(node, start - pos); range.__started = true; }
            if (end >= pos && end <= pos + len) { range.setEnd(node, end - pos); break; }
            pos += len;
        }
        const s = window.getSelection(); s.removeAllRanges(); s.addRange(range);
    }""", [selector, start, end])


def test_judge_a_topic_with_the_keyboard(page, login, live_server, topic):
    t, assignment, user = topic
    items = bolt.citation_items(t)
    login(page, "boltie")
    page.goto(live_server.url + reverse("bolt:item", args=[assignment.pk, items[0].pk]))
    assert page.locator("iframe[sandbox]").count() == 1
    assert "Rumours about its funding count as relevant." in page.locator("#topic").inner_text()
    page.keyboard.press("y")
    wait_status(page, "Saved (version 1)")
    page.keyboard.press("2")  # translation problematic
    wait_status(page, "Saved (version 2)")
    page.keyboard.press("c")  # source checked
    wait_status(page, "Saved (version 3)")
    page.keyboard.press("j")  # next citation
    page.wait_for_url(f"**/item/{items[1].pk}/")
    page.keyboard.press("n")
    wait_status(page, "Saved (version 1)")
    page.keyboard.press("j")
    page.wait_for_url(f"**/item/{items[2].pk}/")
    page.keyboard.press("m")
    wait_status(page, "Saved (version 1)")
    page.keyboard.press("1")
    wait_status(page, "Saved (version 2)")
    values = {j.item_id: j.value for j in Judgment.objects.filter(assessor=user, kind="citation")}
    assert values[items[0].pk] == {"rel": "yes", "trans": "problematic", "chksrc": True, "relspans": []}
    assert values[items[1].pk] == {"rel": "no", "trans": "na", "chksrc": False, "relspans": []}
    assert values[items[2].pk] == {"rel": "maybe", "trans": "accept", "chksrc": False, "relspans": []}
    page.keyboard.press("k")  # back: the saved judgment is shown
    page.wait_for_url(f"**/item/{items[1].pk}/")
    assert page.locator("[data-rel=no]").get_attribute("aria-pressed") == "true"


def test_mark_and_remove_relspans(page, login, live_server, topic):
    t, assignment, user = topic
    item = next(i for i in bolt.citation_items(t) if i.text.startswith("I heard Dr. Karim Nassar"))
    login(page, "boltie")
    page.goto(live_server.url + reverse("bolt:item", args=[assignment.pk, item.pk]))
    page.keyboard.press("y")
    wait_status(page, "Saved (version 1)")
    start = item.text.index("Karim Nassar")
    select_in(page, "#passage", start, start + len("Karim Nassar"))
    page.keyboard.press("r")
    wait_status(page, "Saved (version 2)")
    gulf = item.text.index("money from the Gulf")
    select_in(page, "#passage", gulf, gulf + len("money from the Gulf"))  # across the first mark's nodes
    page.click("#add-relspan")
    wait_status(page, "Saved (version 3)")
    assert page.locator("#passage mark.relspan").all_inner_texts() == ["Karim Nassar", "money from the Gulf"]
    judgment = Judgment.objects.get(item=item, assessor=user)
    assert judgment.value["relspans"] == [[start, 12], [gulf, 19]]
    page.click("#relspans li[data-relspan='0'] button")  # remove the first with the mouse
    wait_status(page, "Saved (version 4)")
    page.keyboard.press("x")  # and the other with the keyboard
    wait_status(page, "Saved (version 5)")
    assert page.locator("#passage mark").count() == 0
    judgment.refresh_from_db()
    assert judgment.value["relspans"] == [] and judgment.value["rel"] == "yes"
    assert judgment.changes.count() == 5


def test_add_an_assessor_found_citation(page, login, live_server, topic):
    t, assignment, user = topic
    login(page, "boltie")
    page.goto(live_server.url + reverse("bolt:find", args=[assignment.pk]) + f"?thread={T3}")
    wanted = "Say what you want, the Hope Foundation does good work."
    shown = page.locator("[data-post=p3]").inner_text()
    at = shown.index(wanted)
    select_in(page, "[data-post=p3]", at, at + len(wanted))
    page.keyboard.press("f")
    wait_status(page, "Added citation 1.002-A1")
    item = PoolItem.objects.get(topic=t, origin=PoolItem.ASSESSOR)
    doc = Document.objects.get(docno=T3)
    raw = post_raw_text(bytes(doc.raw), doc.meta, "p3")
    assert raw[item.data["offset"]:item.data["offset"] + item.data["length"]] == wanted
    assert item.text == wanted
    assert Judgment.objects.get(item=item, assessor=user).value["rel"] == "yes"
    assert page.locator("#found a").inner_text() == "1.002-A1"
    # Across an entity: the selection shows "&", the raw text holds "&amp;" (5 characters).
    t1 = "bolt-eng-DF-170-181103-8882"
    page.goto(live_server.url + reverse("bolt:find", args=[assignment.pk]) + f"?thread={t1}")
    wanted = "2 pounds & the trains"
    shown = page.locator("[data-post=p1]").inner_text()
    at = shown.index(wanted)
    select_in(page, "[data-post=p1]", at, at + len(wanted))
    page.click("#add-found")
    wait_status(page, "Added citation 1.002-A2")
    item = PoolItem.objects.get(topic=t, pool_id="1.002-A2")
    doc = Document.objects.get(docno=t1)
    raw = post_raw_text(bytes(doc.raw), doc.meta, "p1")
    assert raw[item.data["offset"]:item.data["offset"] + item.data["length"]] == "2 pounds &amp; the trains"
    assert item.text == wanted and item.data["length"] == len(wanted) + 4


def test_judge_a_grouping_view(page, login, live_server, topic):
    t, assignment, user = topic
    (_, view), = bolt.grouping_views(t).items()
    login(page, "boltie")
    page.goto(live_server.url + reverse("bolt:topic", args=[assignment.pk]))
    page.click("#views a")
    page.check("input[name=view-relevant][value=yes]")
    page.check("input[name=view-useful][value=yes]")
    page.check("input[name=g0-relevant][value=yes]")
    page.check("input[name=g0-cohesive][value=yes]")
    page.check("input[name=g0-scope][value=no]")
    page.check("input[name=g0-m0][value=yes]")
    page.check("input[name=g0-m1][value=no]")
    page.check("input[name=g1-relevant][value=no]")
    page.keyboard.press("s")
    page.wait_for_selector("#saved")
    assert page.locator("input[name=g0-scope][value=no]").is_checked()
    value = Judgment.objects.get(item=view, kind="grouping", assessor=user).value
    assert value["relevant"] is True and value["useful"] is True
    assert value["groups"]["0"] | {"members": None} == {"relevant": True, "cohesive": True, "scope": False,
                                                          "members": None}
    assert sorted(value["groups"]["0"]["members"].values()) == [False, True]
    assert value["groups"]["1"]["relevant"] is False
