"""TREC RAG support judging in Chromium, keyboard only, batched by segment: from the topic page `u` opens the first
segment with unjudged sentences, the segment is shown once in the viewer's sandboxed frame beside every sentence
(of every run) that cites it, a number judges the current sentence and moves to the next, `k` goes back, `u` goes
on to the next segment with unjudged sentences; each save is kept with its version. Each segment's panel is swapped
in (no page load) with its URL: back, forward and a reload show the segment the URL names, and a digit typed at once
after `]` judges the segment that arrives."""

from pathlib import Path

import pytest
from django.urls import reverse

from assess.models import Assignment, Judgment, Nugget
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
    """Topic 2024-145 with the answers of two runs (2024 and 2025 shapes), assigned to ann."""
    ann = make_user("ann", "assessor")
    load_collection("rag-segs", "msmarco-v2.1-segmented", [str(FIXTURES / "segments.jsonl")])
    ev = create_evaluation("rag", judging.TRACK, ["rag-segs"])
    load_topics(ev, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    files = [RunFile(n, (FIXTURES / n).read_bytes(), "Team Alpha") for n in ("alpha-2024.jsonl", "beta-2025.jsonl")]
    assert [r.problems for r in load_run_files(ev, files)] == [[], []]
    build_pools(ev)
    topic = ev.topics.get(ident="2024-145")
    return ann, topic, Assignment.objects.create(evaluation=ev, topic=topic, assessor=ann)


def row_saved(page, n, label):
    """Row n (1-based) shows `label` saved (the database is checked after)."""
    page.wait_for_function(
        "([n, label]) => { const r = document.querySelectorAll('.rag-row')[n - 1];"
        " return r.dataset.label === label && r.querySelector('.row-status').textContent.includes('saved'); }",
        arg=[n, label],
    )


def current(page):
    return page.evaluate("[...document.querySelectorAll('.rag-row')].findIndex(r => r.ariaCurrent === 'true') + 1")


def test_support_batched_by_segment_with_the_keyboard_only(page, login, live_server, assigned):
    ann, topic, assignment = assigned
    batches = judging.support_batches(topic)
    shared = next(n for n, (_, items) in enumerate(batches, start=1) if len(items) == 2)  # cited by both runs
    assert len(batches) == 5  # alpha cites 4 segments, beta 3, two of them the same (one sentence identical)

    login(page, "ann")
    page.goto(live_server.url + reverse("rag:topic", args=[assignment.pk]))
    page.wait_for_load_state()  # "load": the deferred key scripts run
    page.keyboard.press("u")
    page.wait_for_url(f"**{reverse('rag:support', args=[assignment.pk, 1])}")
    page.wait_for_load_state()
    segid, items = batches[0]
    assert page.locator("#segment-id").inner_text() == segid
    assert page.locator("iframe.rag-frame[sandbox]").count() == 1  # the segment, once, in the sandboxed viewer
    body = page.frame_locator("iframe.rag-frame").locator("body")
    assert "adenosine" in body.inner_text()
    assert page.locator(".rag-row .item-text").all_inner_texts() == [i.text for i in items]

    page.keyboard.press("1")  # full support
    row_saved(page, 1, "full_support")
    assert page.locator("#judged-count").inner_text() == "1"

    page.evaluate("() => { window.__noReload = true; }")  # gone after any page load
    for n in range(2, shared + 1):  # on to the segment both runs cite, one segment at a time: ] next segment
        page.keyboard.press("]")  # its panel swapped in (assess/item_nav.py), its URL pushed
        page.wait_for_url(f"**{reverse('rag:support', args=[assignment.pk, n])}")
        page.wait_for_function("(s) => document.getElementById('batch').dataset.segment === s", arg=batches[n - 1][0])
    assert page.evaluate("() => window.__noReload") is True
    assert page.evaluate("() => document.activeElement.id") == "batch"
    assert page.title() == f"Support · segment {shared} of {len(batches)} · Assay"
    segid, items = batches[shared - 1]
    assert page.locator("#segment-id").inner_text() == segid and page.locator(".rag-row").count() == 2
    assert current(page) == 1
    page.keyboard.press("3")  # the first sentence: no support; the second becomes current
    row_saved(page, 1, "no_support")
    assert current(page) == 2
    page.keyboard.press("1")  # the second: full support
    row_saved(page, 2, "full_support")
    page.keyboard.press("k")  # back to the first, and change it
    assert current(page) == 1
    page.keyboard.press("2")
    row_saved(page, 1, "partial_support")
    assert page.locator("#judged-count").inner_text() == "2"

    saved = {j.item_id: (j.value["label"], j.version) for j in Judgment.objects.filter(assessor=ann)}
    assert saved == {
        batches[0][1][0].pk: ("full_support", 1),
        items[0].pk: ("partial_support", 2),
        items[1].pk: ("full_support", 1),
    }

    page.keyboard.press("u")  # the next segment with unjudged sentences (the one after, not the first: judged)
    expected = next(n for n in list(range(shared + 1, 6)) + list(range(2, shared)))
    page.wait_for_url(f"**{reverse('rag:support', args=[assignment.pk, expected])}")
    page.wait_for_function(
        "(s) => document.getElementById('batch').dataset.segment === s", arg=batches[expected - 1][0]
    )
    assert page.evaluate("() => window.__noReload") is True

    # back: the segment both runs cite, asked for again, with its saved judgments; forward, then a reload
    page.go_back()
    page.wait_for_url(f"**{reverse('rag:support', args=[assignment.pk, shared])}")
    page.wait_for_function("(s) => document.getElementById('batch').dataset.segment === s", arg=segid)
    assert [r.get_attribute("data-label") for r in page.locator(".rag-row").all()] == [
        "partial_support",
        "full_support",
    ]
    page.go_forward()
    page.wait_for_url(f"**{reverse('rag:support', args=[assignment.pk, expected])}")
    page.wait_for_function(
        "(s) => document.getElementById('batch').dataset.segment === s", arg=batches[expected - 1][0]
    )
    # ] and a digit typed at once: the digit judges the first sentence of the segment that arrives
    following = expected % len(batches) + 1
    assert following > expected  # (the fixture: segment 1 judged, the both-cited one, then one after it)
    page.keyboard.press("]")
    page.keyboard.press("3")
    page.wait_for_url(f"**{reverse('rag:support', args=[assignment.pk, following])}")
    row_saved(page, 1, "no_support")
    assert Judgment.objects.get(item=batches[following - 1][1][0], assessor=ann).value["label"] == "no_support"
    assert not Judgment.objects.filter(item__in=batches[expected - 1][1], assessor=ann).exists()
    page.reload()
    page.wait_for_load_state()
    assert page.evaluate("() => window.__noReload") is None


def test_the_next_answer_is_swapped_in_and_a_digit_typed_at_once_assigns_on_it(page, login, live_server, assigned):
    """Nugget assignment moves between answers as support does (assess/item_nav.py): `]` brings the next answer's
    panel in with its URL, a digit typed at once assigns the first nugget of that answer, back shows the first."""
    ann, topic, assignment = assigned
    first, second = judging.topic_items(topic, "answer")[:2]
    nuggets = [Nugget.objects.create(topic=topic, text=t, position=i, created_by=ann) for i, t in enumerate(["a", "b"])]

    def url(answer):
        return reverse("rag:assign", args=[assignment.pk, answer.pk])

    login(page, "ann")
    page.goto(live_server.url + url(first))
    page.wait_for_load_state()
    page.evaluate("() => { window.__noReload = true; }")  # gone after any page load
    page.keyboard.press("]")
    page.keyboard.press("1")  # meant for the second answer's first nugget: support
    page.wait_for_url(f"**{url(second)}")
    row_saved(page, 1, "support")
    assert Judgment.objects.get(item=second, assessor=ann).value == {
        "label": "assigned",
        "nuggets": {str(nuggets[0].pk): "support"},
    }
    assert not Judgment.objects.filter(item=first).exists()
    assert page.evaluate("() => window.__noReload") is True
    assert page.evaluate("() => document.activeElement.id") == "assign"
    assert current(page) == 2  # the next nugget is current
    page.go_back()
    page.wait_for_url(f"**{url(first)}")
    page.wait_for_function("() => document.querySelector('#assign h2').textContent.startsWith('Answer 1 of')")
    assert page.locator(".rag-row").first.get_attribute("data-label") == ""
