"""What the assessor feels: Chromium drives the judging pages against the production configuration (the web server,
PostgreSQL, collected static files, DEBUG off) and times, inside the page, from the keydown to

- saved: the page shows the save answered (QA instance: the judgment bar comes back marked saved; nugget match:
  the row comes back marked saved; BOLT citation, BioGen item, TREC RAG relevance, support and nugget
  assignment: the status line says "Saved (version N)" (BioGen: "Saved: label (version N)"), seen by a
  MutationObserver);
- next item interactive: the next item is on screen and keys act on it (QA instance: htmx has processed the new
  item panel, the moment assess.js replays keys typed ahead; nugget match: the next row is the current one, at the
  next frame; BOLT citation, BioGen item and TREC RAG's pages: htmx has processed the next item's panel
  (#citation-panel, [data-item-panel] of assess/item_nav.py), which the page's script then binds in the same
  event: BioGen's next item (j), RAG relevance's next ungraded segment (swapped in by the grade itself once
  saved), RAG support's next segment and nugget assignment's next answer (after the last row's digit, the
  next-page key)).

Every judging page of the tracks is covered; QA4MRE has none (its runs are scored against the gold answers).

Times are taken with performance.now() in the page (a keydown listener in the capture phase, and the page's own
events), so Playwright's round trips are not in them. Baseline: the keydown of the judging key to the next frame
the browser draws, the floor of any response. Of "saved", the save request itself (Resource Timing: start to the
answer's last byte) is given apart as request_p50/p95; the rest is the page's own work around it. Of a panel
swapped in, its request (htmx's XMLHttpRequest, start to last byte) is given as request_p50 of "next".
Goal on this machine (issue 19): p95 <= 100 ms next item interactive, <= 50 ms saved (issue 32: on every page).

Where the time went: htmx wires swapped-in content only after its settle delay (20 ms by default), so every
answer was on screen 20 ms before keys could act on it, and "saved" (the swapped element's htmx:load) came 20 ms
late too. templates/base.html sets defaultSettleDelay to 0 (it serves CSS transitions of swapped-in attributes,
which no page uses). Paired, alternating, 2 runs each (load 2.0-3.3, 2 cores): QA instance saved p50 49.0-49.6 ->
21.4-22.9 ms (p95 65.5-69.0 -> 35.8-39.7), next item p50 49.4-53.1 -> 29.0-32.2 ms (p95 53.6-58.6 -> 35.3-46.9);
nugget match saved p50 36.3-37.7 -> 16.3-17.6 ms; BOLT citation next p50 45.9-46.9 -> 24.5-25.8 ms (p95
54.7-57.4 -> 43.9-46.2), saved (not htmx) p50 24.5-33.4 ms either way. Of a QA save's ~21 ms, the request is
~11.5 ms (p95 28 ms).

Every judging page (issue 32), two runs back to back with three other engineers' benchmarks on the 2 cores (load
average 5.4 -> 8.9 and 7.2 -> 14.6; CPU probe 0.289 -> 0.523 and 0.541 -> 0.189 s, 0.22 s when the machine is
quiet), p95 saved / p50 saved / p50 of its request, ms:
  QA instance 83.1 / 57.7 / 47.4 and 100.9 / 56.6 / 49.8; QA nugget match 50.3 / 33.3 / 27.4 and 58.5 / 39.8 /
  33.8; BOLT citation 77.2 / 48.4 / 37.9 and 94.4 / 48.2 / 33.8; BioGen item 66.3 / 28.1 / 22.2 and 93.0 / 35.6 /
  31.7; RAG relevance 117.2 / 43.4 / 42.8 and 74.3 / 43.2 / 43.5; RAG support 67.1 / 40.3 / 32.5 and 99.2 / 37.1 /
  32.8; RAG nugget assignment 53.7 / 36.4 / 33.3 and 70.5 / 31.5 / 28.1.
None meets 50 ms at that load (nor did QA and BOLT, 83-101 ms, against the issue's 57.8 / 58.4 and 53.4 / 73.3):
the page's own share of a save is 0-14 ms at p50 (saved minus its request) and the p95 is the request's (its
p95 45.6-100.4 ms), i.e. the server's save path under load, not the pages' scripts or swaps. Next item p95 (p50)
of the pages opened anew: BioGen 196.9 (93.2) and 180.7 (113.9), RAG relevance 211.5 (132.7) and 240.3 (178.5),
support 182.9 (148.7) and 231.0 (149.3), nugget assignment 224.9 (111.4) and 117.2 (110.0, 5 pages); in the
second run, p50 parts: request 45.6-74.1, parse 18.2-77.1, scripts 2.6-13.3 ms (relevance also 27.7 ms before
navigating: its save). BioGen's and RAG's relevance and support pages took 45-77 ms to parse against 18 ms for
the nugget assignment page; the htmx swap that BOLT and QA use for their next item (56-67 ms p50) would save the
request's page render and the parse, a change of those pages' navigation left for later.
A third run, quieter (load 3.4 -> 7.1, probe 0.284 -> 0.327): saved p95 (p50 / request p50) QA instance 102.8
(64.2 / 49.1), nugget match 39.5 (27.8 / 22.6), BOLT 86.2 (45.4 / 36.6), BioGen 56.1 (31.9 / 25.6), RAG relevance
84.7 (50.1 / 37.7), support 95.4 (39.2 / 30.0), nugget assignment 62.4 (35.9 / 30.3): only nugget match met 50 ms;
parse of a page opened 46-68 ms on BioGen and RAG relevance/support against 25 ms on nugget assignment. Not the
document frame: with it replaced by an empty div (one run, 12 presses, load 6.4) those pages still parsed in
44-47 ms; what costs there is still to find.
It was the document frame after all, the iframe element itself rather than its document: those pages are small
(6.0-6.4 KB of HTML, 106-117 elements, no inline SVG, no large select, nothing blocking in <head>; the nugget
assignment page is 8.2 KB, 147 elements, with no frame), and Chromium's trace (Playwright's tracing, load ~5) of
a relevance page showed ParseHTML stopping at the <iframe> line: creating the child frame (its about:blank
document and window, ~10 ms) used up the parser's budget, so it yielded to a layout and paint before the rest
and domInteractive came 20-30 ms later (the previous page's frame being detached falls in the next page's
commit, inside "parse", too). The empty-div run above, alone at load 6.4, did not show the difference; paired in
one session it shows. Opening each page 18 times by URL (Navigation Timing, p50 parse, in one session, load 4.5
-> 13.9): relevance 55.6 and 69.4 ms with the frame,
23.9 without any; support 52.2 and 68.0 against 22.1. The frame now comes inside a <template> (inert to the
parser: `document_frame ... later=True`, templates/corpus/_frame.html) that static/js/frames.js puts in at
DOMContentLoaded, after the page's deferred scripts have bound its keys and at the moment it used to get its src
anyway; the same 18 openings (load 12.0 -> 17.4): relevance 70.9 -> 42.9 ms, support 53.4 -> 30.0 ms. Then this
benchmark, 30 presses, alternated before/after (before: 15 presses first), load average 9.4-15.5 throughout
(other engineers' work), CPU probe 0.22-0.64 s against 0.22 quiet; p50 parse / scripts, next item p50 (p95), ms:
  before  relevance 54.8 / 9.1, 150.2 (190.8); 70.9 / 18.9, 222.6 (284.9); 87.7 / 11.1, 201.1 (258.0)
  after   relevance 46.5 / 2.8, 173.2 (227.2); 35.8 / 3.2, 162.3 (218.3); 63.9 / 3.3, 142.2 (177.5)
  before  support 56.4 / 21.0, 141.1 (187.5); 70.4 / 13.2, 145.3 (226.3); 75.1 / 16.6, 152.0 (244.8)
  after   support 70.3 / 6.0, 163.5 (215.6); 38.5 / 5.3, 128.3 (185.8); 42.1 / 7.9, 115.2 (155.4)
  nugget assignment (unchanged, the load's witness): parse 45.5, 65.9, 71.1 before; 62.3, 73.0, 55.9 after.
Parse over the nugget page's in the same run: relevance 1.20, 1.08, 1.23 -> 0.75, 0.49, 1.14; support 1.24,
1.07, 1.06 -> 1.13, 0.53, 0.75; the scripts part (the frame's src set by frames.js) 9-21 -> 3-8 ms. BioGen's
item pages parse as before (36.0-64.2 against 37.8-51.2): of its items only citations show the abstract's frame,
and its pages without one parse in 2.5 ms of main-thread work in the trace, the rest of the 30-40 ms waiting for
the 2 loaded cores. What remains of next item at this load is the request (30-66 ms p50), the CPU the previous
page's frame still takes (its own renderer process, starting and laying out the document, when keys come fast)
and the machine; the htmx swap of BOLT and QA would also save the page's commit and parse, not done here.

Done since (issue 32): BioGen's item and TREC RAG's relevance, support and nugget assignment pages swap the next
item's panel in as BOLT's does (assess/item_nav.py, static/js/item_nav.js) instead of opening a page. Four pairs,
before (the previous commit's tree and this benchmark as it was: the new page's DOMContentLoaded) and after (the
panel processed by htmx) alternated in one session, 30 presses each, load average 8.5-16.9 throughout (other
engineers' work), CPU probe 0.16-0.45 s (0.22 quiet); next item p50/p95 ms, before -> after, pair by pair:
BioGen 66/88 -> 33/56, 95/131 -> 40/78, 77/113 -> 54/82, 98/159 -> 47/129 (p50 ratio 0.42-0.70); RAG relevance
(from the grade: its save, then the next ungraded segment) 100/139 -> 80/116, 123/187 -> 104/135, 124/151 ->
103/143, 135/186 -> 96/125 (0.71-0.85); support 98/151 -> 68/99, 82/125 -> 56/103, 97/185 -> 47/78, 97/162 ->
81/101 (0.48-0.84); nugget assignment (5 moves a run) 78/295 -> 45/54, 104/133 -> 47/153, 83/90 -> 52/63, 117/139
-> 44/55 (0.38-0.63). BOLT citation, unchanged, the load's witness: 74/109 -> 46/67, 65/106 -> 56/85, 51/89 ->
64/160, 70/107 -> 49/86 (0.62-1.25), so part of the drop is the machine. The panel's request p50 (14-51 ms) is
about the page's (20-59 ms): the view renders the same context; the swap saves the page's commit, parse and
scripts. Saved p95 is unchanged (the request's, under that load: 50 ms is met by none of these pages). A pair
before these is left out: its after run overlapped the helper's own tests. One more pair once BOLT's bolt.js moved
to the shared item_nav.js too (load 13.7-14.4, probe 0.16-0.35 s): BioGen 77/119 -> 47/94, relevance 114/155 ->
104/161, support 126/233 -> 75/109, nugget assignment 120/173 -> 47/78, BOLT 62/126 -> 59/84 (no worse for it).

On a quiet machine (nothing else running; merged commit 5ce8b59; load 1.3 -> 0.1, probe 0.144 / 0.130 s;
--presses 30), key -> saved p95 / key -> next item interactive p95, ms: QA instance 31.4 / 40.1, nugget match
17.5 / 12.3, BOLT citation 40.8 / 47.4, BioGen item 27.6 / 22.9, RAG relevance 26.2 / 46.2, RAG support 29.0 /
26.8, RAG nugget assignment 17.3 / 24.1; baseline keydown -> next frame p50 8.0. Every judging page meets both
goals (<= 50 saved, <= 100 next item) there; under load the tail is the server's request.
"""

import os
import uuid
from pathlib import Path

from benchmarks import production
from benchmarks.harness import Result, percentile, setup_django
from benchmarks.production import free_port

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "bolt"
PASSWORD = "bench-browser-pw-7319"

# Installed in every page before its scripts: the last keydown's time, and the times of what followed it.
HOOKS = """
window.__lat = {t0: null, marks: []};
document.addEventListener('keydown', () => {
  const lat = window.__lat;
  lat.t0 = performance.now(); lat.marks = []; lat.frame = null; lat.saved = 0;
  requestAnimationFrame(() => { lat.frame = performance.now(); });  // the next frame: the floor of any response
}, true);
document.addEventListener('htmx:load', (e) => {
  const elt = e.detail.elt;
  const id = elt && elt.id ? elt.id : '';
  const saved = elt && elt.getAttribute && (elt.getAttribute('data-saved') === '1'
                || (elt.matches && elt.matches('[data-match-row]') && !!elt.querySelector('.status .ok')));
  // an item's panel swapped in: BOLT's citation, or a page of assess/item_nav.py (BioGen, TREC RAG)
  const panel = !!(elt && elt.querySelector && (elt.id === 'citation-panel' || elt.querySelector('#citation-panel')
                   || elt.matches('[data-item-panel]') || elt.querySelector('[data-item-panel]')));
  window.__lat.marks.push([id, saved, performance.now(), panel]);
});
// BOLT's, BioGen's and TREC RAG's status line is written by their own scripts, not swapped in: the moment it says
// a new "Saved (version N)" (BioGen: "Saved: label (version N)")
new MutationObserver(() => {
  const lat = window.__lat, s = document.getElementById('status'), text = s ? s.textContent : '';
  if (lat.t0 !== null && !lat.saved && /^Saved\\b.*\\(version \\d+\\)/.test(text) && text !== window.__before) {
    lat.saved = performance.now();
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


TAKE_SAVED = "() => { const v = window.__lat.saved - window.__lat.t0; window.__lat.saved = 0; return v; }"

# The save's own request, from Resource Timing: from its start to the last byte of the answer (network, server),
# so what the page spent before and after it is the rest of "saved". The buffer is emptied each time (it holds 250).
TAKE_REQUEST = """() => {
  const t0 = window.__lat.t0;
  const e = performance.getEntriesByType('resource').find(
    e => e.startTime >= t0 && (e.initiatorType === 'xmlhttprequest' || e.initiatorType === 'fetch'));
  performance.clearResourceTimings();
  return e ? e.responseEnd - e.startTime : null;
}"""


def add_arguments(parser):
    parser.add_argument("--items", type=int, default=40, help="pool items of each QA question")
    parser.add_argument("--presses", type=int, default=30, help="timed key presses per measure")


def build_data(n_items):
    from django.contrib.auth.models import Group, User

    from assess.models import Assignment, Nugget
    from corpus.loading import load_collection
    from pooling.evaluations import create_evaluation
    from pooling.pools import build_pools
    from pooling.runs import RunFile, load_run_files
    from pooling.topics import load_topics
    from tracks.qa.sample import build_sample

    user = User.objects.create(username="bench-assessor")
    user.set_password(PASSWORD)
    user.save()
    user.groups.add(Group.objects.get_or_create(name="assessor")[0])
    sample = build_sample(slug="bench-browser", items_per_question=n_items)
    qa = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=user)
    other = sample.questions["1.3"]
    for i, text in enumerate(
        ["founded in Paris", "known for the little black dress", "sold No. 5", "owned by Wertheimers"]
    ):
        Nugget.objects.create(topic=other, text=text, position=i, created_by=user)

    load_collection("bench-browser-forum", "bolt-forum", [str(FIXTURES / "forum.xml")])
    bolt = create_evaluation("bench-browser-bolt", "bolt-ir-p2", ["bench-browser-forum"])
    load_topics(bolt, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    files = [
        RunFile(filename=n, data=(FIXTURES / n).read_bytes(), team="Team Alpha", priority=1) for n in ("alpha1.xml",)
    ]
    load_run_files(bolt, files)
    build_pools(bolt)
    topic = max(bolt.topics.filter(parent__isnull=True), key=lambda t: t.pool_items.count())
    bolt_assignment = Assignment.objects.create(evaluation=bolt, topic=topic, assessor=user)
    return sample, qa, bolt_assignment


def build_other_tracks(user):
    """BioGen and TREC RAG evaluations from the tests' fixtures, pooled, one topic of each assigned to `user`
    (four nuggets on the RAG topic, for its nugget assignment page): {name: (assignment, its item ids)}."""
    from assess.models import Assignment, Nugget
    from corpus.loading import load_collection
    from pooling.evaluations import create_evaluation
    from pooling.pools import build_pools
    from pooling.runs import RunFile, load_run_files
    from pooling.topics import load_topics
    from tracks.biogen import judging as biogen
    from tracks.rag import demo as rag_demo
    from tracks.rag import judging as rag

    fixtures = ROOT / "tests" / "fixtures"
    load_collection("bench-browser-pubmed", "pubmed", [str(fixtures / "biogen" / "pubmed.jsonl")])
    bg = create_evaluation("bench-browser-biogen", biogen.TRACK, ["bench-browser-pubmed"])
    load_topics(bg, (fixtures / "biogen" / "topics.jsonl").read_bytes(), "topics.jsonl")
    load_run_files(bg, [RunFile("alpha-run1.json", (fixtures / "biogen" / "alpha-run1.json").read_bytes(), "Alpha")])
    build_pools(bg)
    bg_topic = max(bg.topics.all(), key=lambda t: len(biogen.topic_items(t)))
    bg_assignment = Assignment.objects.create(evaluation=bg, topic=bg_topic, assessor=user)

    load_collection("bench-browser-segments", "msmarco-v2.1-segmented", [str(fixtures / "rag" / "segments.jsonl")])
    ev = create_evaluation("bench-browser-rag", rag.TRACK, ["bench-browser-segments"])
    load_topics(ev, (fixtures / "rag" / "topics.jsonl").read_bytes(), "topics.jsonl")
    runs = [RunFile(name, (fixtures / "rag" / name).read_bytes(), team) for name, team in rag_demo.RUNS]
    load_run_files(ev, runs)
    build_pools(ev)
    topic = max(ev.topics.all(), key=lambda t: len(rag.topic_items(t)))
    rag_assignment = Assignment.objects.create(evaluation=ev, topic=topic, assessor=user)
    for i, text in enumerate(["caffeine raises alertness", "leaves turn red in autumn", "compost feeds soil", "none"]):
        Nugget.objects.create(topic=topic, text=text, position=i, created_by=user)
    return {
        "biogen": (bg_assignment, [i.pk for i in biogen.topic_items(bg_topic)]),
        "relevance": (rag_assignment, [i.pk for i in rag.topic_items(topic, "relevance")]),
        "support": (rag_assignment, list(range(1, len(rag.support_batches(topic)) + 1))),
        "answer": (rag_assignment, [i.pk for i in rag.topic_items(topic, "answer")]),
    }


# Before a key whose save the status line reports: the line emptied (two rows' saves may both say "version 1").
CLEAR_STATUS = """() => {
  const s = document.getElementById('status'); if (s) s.textContent = '';
  window.__before = ''; window.__lat.saved = 0;
}"""


def _open(page, url):
    page.goto(url)
    page.wait_for_load_state("load")


def _saved_here(page, key):
    """Press `key` on a page whose status line reports the save: ms to "saved", and the save request's own ms."""
    page.evaluate(CLEAR_STATUS)
    page.keyboard.press(key)
    page.wait_for_function("() => !!window.__lat.saved")
    return page.evaluate(TAKE_SAVED), page.evaluate(TAKE_REQUEST)


# After a key that swapped the next item's panel in: the panel's own request (htmx's, an XMLHttpRequest; a save
# is a fetch), start to last byte.
TAKE_PANEL_REQUEST = """() => {
  const t0 = window.__lat.t0;
  const e = performance.getEntriesByType('resource').find(
    e => e.startTime >= t0 && e.initiatorType === 'xmlhttprequest');
  return e ? e.responseEnd - e.startTime : null;
}"""


def _swapped(page, key=None):
    """Press `key` (None: the key was pressed already), which swaps the next item's panel in: (ms to the panel
    processed by htmx, which the page's script then binds; {"request": the panel's request ms})."""
    if key is not None:
        page.keyboard.press(key)
    ms = _elapsed(page, "m => m[3]")
    return ms, {"request": page.evaluate(TAKE_PANEL_REQUEST)}


def biogen_item(page, base, assignment, items, presses):
    """BioGen's item page: a label key saves (the status line says so), j swaps the next item's panel in."""
    from django.urls import reverse

    first = base + reverse("biogen:item", args=[assignment.pk, items[0]])
    _open(page, first)
    saved, following, requests, loads = [], [], [], []
    for n in range(presses):
        keys = page.evaluate("() => [...document.querySelectorAll('#labels [data-label]')].map(b => b.dataset.key)")
        ms, request = _saved_here(page, keys[n % 2])
        saved.append(ms)
        requests.append(request)
        next_key = page.evaluate("() => { const a = document.getElementById('next'); return a && a.dataset.key; }")
        if next_key:
            arrived, parts = _swapped(page, next_key)
            following.append(arrived)
            loads.append(parts)
        else:  # the last item: back to the first (not timed)
            _open(page, first)
    return saved, following, requests, loads


def rag_relevance(page, base, assignment, items, presses):
    """TREC RAG's relevance page: a grade saves and, once answered, the page swaps the next ungraded segment's panel
    in (data-advance); "next" is that panel processed, from the same key. A segment graded already has no next
    ungraded one once all are: its page is opened directly (not timed) and only the save is."""
    from django.urls import reverse

    saved, following, requests, loads = [], [], [], []
    for n in range(presses):
        _open(page, base + reverse("rag:relevance", args=[assignment.pk, items[n % len(items)]]))
        page.evaluate(CLEAR_STATUS)
        advance = page.evaluate("() => document.getElementById('rows').dataset.advance")
        digit = "12"[n % 2]
        if advance:
            page.keyboard.press(digit)
            page.wait_for_function("() => !!window.__lat.saved")
            ms = page.evaluate(TAKE_SAVED)
            arrived, parts = _swapped(page)
            saved.append(ms)
            following.append(arrived)
            loads.append(parts)
            requests.append(page.evaluate(TAKE_REQUEST))  # the save's (a fetch, the first request after the key)
        else:
            ms, request = _saved_here(page, digit)
            saved.append(ms)
            requests.append(request)
    return saved, following, requests, loads


def rag_rows(page, base, name, assignment, pages, presses):
    """TREC RAG's pages of rows (support: the sentences citing one segment; answer: the nuggets of one answer): a
    digit saves the current row's judgment (the answer's, on the nugget page) and makes the next row current; past
    the last row, the next-segment (next-answer) key swaps the next panel in, timed as "next"."""
    from django.urls import reverse

    route = {"support": "rag:support", "answer": "rag:assign"}[name]
    first = base + reverse(route, args=[assignment.pk, pages[0]])
    _open(page, first)
    saved, following, requests, loads = [], [], [], []
    for n in range(presses):
        row = page.evaluate(
            "() => { const rows = [...document.querySelectorAll('#rows .rag-row')];"
            " const at = rows.findIndex(r => r.getAttribute('aria-current') === 'true');"
            " return [at, rows.length, [...rows[Math.max(at, 0)].querySelectorAll('.judge-row [data-n]')]"
            ".map(b => b.dataset.n)]; }"
        )
        at, count, digits = row
        ms, request = _saved_here(page, digits[n % 2])
        saved.append(ms)
        requests.append(request)
        if at == count - 1:  # the last row: on to the next page
            next_key = page.evaluate(
                "() => { const a = document.getElementById('next-batch'); return a && a.dataset.key; }"
            )
            if next_key:
                arrived, parts = _swapped(page, next_key)
                following.append(arrived)
                loads.append(parts)
            else:
                _open(page, first)
    return saved, following, requests, loads


def _frame(page):
    """Milliseconds from the last keydown to the next frame the browser drew."""
    page.wait_for_function("() => window.__lat.frame !== null")
    return page.evaluate("() => window.__lat.frame - window.__lat.t0")


def _elapsed(page, condition):
    """Milliseconds from the last keydown to the first mark meeting `condition` (a JS function of a mark)."""
    try:
        page.wait_for_function(f"() => window.__lat.marks.some({condition})", timeout=30000)
    except Exception:
        marks = page.evaluate("() => JSON.stringify(window.__lat)")
        raise RuntimeError(f"{page.url}: nothing met {condition} after the key; seen {marks}") from None
    return page.evaluate(f"() => window.__lat.marks.find({condition})[2] - window.__lat.t0")


def qa_instance(page, base, sample, assignment, presses):
    from django.urls import reverse

    page.goto(base + reverse("qa:question", args=[assignment.pk, sample.questions["1.1"].pk]))
    page.wait_for_load_state("load")
    saved, following, baseline, requests = [], [], [], []
    for n in range(presses):
        page.keyboard.press(str(1 + n % 2))
        baseline.append(_frame(page))
        saved.append(_elapsed(page, "m => m[0] === 'judge-bar' && m[1]"))
        requests.append(page.evaluate(TAKE_REQUEST))
        page.keyboard.press("j")
        following.append(_elapsed(page, "m => m[0] === 'item-panel'"))
    return saved, following, baseline, requests


def qa_match(page, base, sample, assignment, presses):
    from django.urls import reverse

    page.goto(base + reverse("qa:question", args=[assignment.pk, sample.questions["1.3"].pk]))
    page.wait_for_load_state("load")
    page.evaluate("document.activeElement.blur()")  # the new-nugget field takes the focus: keys go to the rows
    saved, following, requests = [], [], []
    for n in range(presses):
        page.keyboard.press(str(1 + n % 4))
        saved.append(_elapsed(page, "m => m[1]"))
        requests.append(page.evaluate(TAKE_REQUEST))
        page.keyboard.press("j")  # the cursor moves in the page: the next row is current at the next frame
        following.append(_frame(page))
    return saved, following, requests


def bolt_citation(page, base, assignment, items, presses):
    from django.urls import reverse

    page.goto(base + reverse("bolt:item", args=[assignment.pk, items[0]]))
    page.wait_for_load_state("load")
    saved, following, requests = [], [], []
    index, step = 0, 1
    for n in range(presses):
        page.evaluate("() => { window.__before = document.getElementById('status').textContent; }")
        page.keyboard.press("ynm"[n % 3])
        page.wait_for_function("() => !!window.__lat.saved")
        saved.append(page.evaluate(TAKE_SAVED))
        requests.append(page.evaluate(TAKE_REQUEST))
        # j (k on the way back from the last citation) opens another page: keydown here, load event there
        if not 0 <= index + step < len(items):
            step = -step
        index += step
        key = "j" if step > 0 else "k"
        page.keyboard.press(key)  # htmx brings the next citation's panel in and pushes its URL
        following.append(_elapsed(page, "m => m[3]"))
    return saved, following, requests


def run(args):
    from benchmarks.judging import cpu_probe

    load_before = os.getloadavg()[0]
    probe_before = cpu_probe()
    setup_django("assay_bench_browser")
    from django.db import connection
    from playwright.sync_api import sync_playwright

    from tracks.bolt import judging

    sample, qa, bolt = build_data(args.items)
    others = build_other_tracks(qa.assessor)
    citations = [item.pk for item in judging.citation_items(bolt.topic)]  # (no ORM once Playwright's loop runs)
    connection.close()
    port = free_port()
    queue = f"assay-bench-browser-{uuid.uuid4().hex[:8]}"
    broker = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/0")
    # saves ask for rescoring on a queue of this run's own (nothing consumes it; deleted at the end)
    server = production.start_server(production.environment(broker, queue), port)
    base = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page()
            page.add_init_script(HOOKS)
            page.goto(f"{base}/login/")
            page.fill("input[name=username]", "bench-assessor")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_load_state()
            qa_instance(page, base, sample, qa, 3)  # warm the server's workers and the browser's caches
            inst_saved, inst_next, baseline, inst_req = qa_instance(page, base, sample, qa, args.presses)
            match_saved, match_next, match_req = qa_match(page, base, sample, qa, args.presses)
            bolt_saved, bolt_next, bolt_req = bolt_citation(page, base, bolt, citations, args.presses)
            measured = {
                "BioGen item": biogen_item(page, base, *others["biogen"], args.presses),
                "TREC RAG relevance": rag_relevance(page, base, *others["relevance"], args.presses),
                "TREC RAG support": rag_rows(page, base, "support", *others["support"], args.presses),
                "TREC RAG nugget assignment": rag_rows(page, base, "answer", *others["answer"], args.presses),
            }
            browser.close()
    finally:
        production.stop(server)
        production.drop_queue(broker, queue)

    base_p50 = percentile(baseline, 50)
    extra = {"load_average_before": load_before, "load_average_after": os.getloadavg()[0], "cpus": os.cpu_count()}
    results = [Result("baseline: keydown to next frame p50", base_p50, "ms", notes="QA instance page", extra=extra)]
    for page_name, saved, following, requests, loads in (
        ("QA instance", inst_saved, inst_next, inst_req, []),
        ("QA nugget match", match_saved, match_next, match_req, []),
        ("BOLT citation", bolt_saved, bolt_next, bolt_req, []),
        *((name, *values) for name, values in measured.items()),
    ):
        for what, values, goal, parts in (
            ("key -> saved", saved, "<= 50", requests),
            ("key -> next item interactive", following, "<= 100", loads),
        ):
            if not values:
                continue
            p50, p95 = percentile(values, 50), percentile(values, 95)
            detail = {"p50": p50, "max": max(values), "n": len(values), "p50_to_baseline": p50 / base_p50}
            # where the time went: the request (the save's, or the next page's own), and the page around it
            if parts and isinstance(parts[0], dict):  # a page opened: each part's p50 too
                detail.update({f"{k}_p50": percentile([p[k] for p in parts if p], 50) for k in parts[0]})
                parts = [p["request"] for p in parts if p]
            timed = [r for r in parts if r is not None]
            if timed:
                detail.update(request_p50=percentile(timed, 50), request_p95=percentile(timed, 95))
            results.append(Result(f"{page_name}: {what} p95", p95, "ms", goal=goal, extra=detail))
    results += [Result("CPU probe before", probe_before, "s"), Result("CPU probe after", cpu_probe(), "s")]
    return results
