"""What the assessor feels: Chromium drives the judging pages against the production configuration (gunicorn,
PostgreSQL, collected static files, DEBUG off) and times, inside the page, from the keydown to

- saved: the page shows the save answered (QA instance: the judgment bar comes back marked saved; nugget match:
  the row comes back marked saved; BOLT citation: the status line says "Saved (version N)");
- next item interactive: the next item is on screen and keys act on it (QA instance: the new item panel has been
  processed by htmx, the moment assess.js replays keys typed ahead; nugget match: the next row is the current one;
  BOLT citation: a new page whose load event has fired, when its key handler is installed).

Times are taken with performance.now() in the page (a keydown listener in the capture phase, and the page's own
events), so Playwright's round trips are not in them. Baseline: the same measurement of a key the page handles
without any request (QA: "?" opens the key list), so the ratio shows what the server adds.
Goal on this machine (issue 19): p95 <= 100 ms next item interactive, <= 50 ms saved.
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
  lat.t0 = performance.now(); lat.marks = []; lat.frame = null;
  try { sessionStorage.setItem('__benchKey', String(performance.timeOrigin + lat.t0)); } catch (e) {}
  requestAnimationFrame(() => { lat.frame = performance.now(); });  // the next frame: the floor of any response
}, true);
document.addEventListener('htmx:load', (e) => {
  const elt = e.detail.elt;
  const id = elt && elt.id ? elt.id : '';
  const saved = elt && elt.getAttribute && (elt.getAttribute('data-saved') === '1'
                || (elt.matches && elt.matches('[data-match-row]') && !!elt.querySelector('.status .ok')));
  const panel = !!(elt && elt.querySelector && (elt.id === 'citation-panel' || elt.querySelector('#citation-panel')));
  window.__lat.marks.push([id, saved, performance.now(), panel]);
});
"""


TAKE_SAVED = "() => { const v = window.__lat.saved - window.__lat.t0; window.__lat.saved = 0; return v; }"


def add_arguments(parser):
    parser.add_argument("--items", type=int, default=40, help="pool items of each QA question")
    parser.add_argument("--presses", type=int, default=30, help="timed key presses per measure")


def build_data(n_items):
    from django.contrib.auth.models import Group, User

    from assess.models import Assignment, Nugget
    from corpus.loading import load_collection
    from pooling.loading import RunFile, create_evaluation, load_run_files, load_topics
    from pooling.pools import build_pools
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
    saved, following, baseline = [], [], []
    for n in range(presses):
        page.keyboard.press(str(1 + n % 2))
        baseline.append(_frame(page))
        saved.append(_elapsed(page, "m => m[0] === 'judge-bar' && m[1]"))
        page.keyboard.press("j")
        following.append(_elapsed(page, "m => m[0] === 'item-panel'"))
    return saved, following, baseline


def qa_match(page, base, sample, assignment, presses):
    from django.urls import reverse

    page.goto(base + reverse("qa:question", args=[assignment.pk, sample.questions["1.3"].pk]))
    page.wait_for_load_state("load")
    page.evaluate("document.activeElement.blur()")  # the new-nugget field takes the focus: keys go to the rows
    saved, following = [], []
    for n in range(presses):
        page.keyboard.press(str(1 + n % 4))
        saved.append(_elapsed(page, "m => m[1]"))
        page.keyboard.press("j")  # the cursor moves in the page: the next row is current at the next frame
        following.append(_frame(page))
    return saved, following


def bolt_citation(page, base, assignment, items, presses):
    from django.urls import reverse

    page.goto(base + reverse("bolt:item", args=[assignment.pk, items[0]]))
    page.wait_for_load_state("load")
    saved, following = [], []
    index, step = 0, 1
    for n in range(presses):
        page.evaluate("() => { window.__before = document.getElementById('status').textContent; }")
        page.keyboard.press("ynm"[n % 3])
        page.wait_for_function(
            "() => { const s = document.getElementById('status').textContent;"
            " if (/^Saved \\(version/.test(s) && s !== window.__before && !window.__lat.saved)"
            " window.__lat.saved = performance.now(); return !!window.__lat.saved; }",
            polling="raf",
        )
        saved.append(
            page.evaluate("() => { const v = window.__lat.saved - window.__lat.t0; window.__lat.saved = 0; return v; }")
        )
        # j (k on the way back from the last citation) opens another page: keydown here, load event there
        if not 0 <= index + step < len(items):
            step = -step
        index += step
        key = "j" if step > 0 else "k"
        page.keyboard.press(key)  # htmx brings the next citation's panel in and pushes its URL
        following.append(_elapsed(page, "m => m[3]"))
    return saved, following


def run(args):
    load_before = os.getloadavg()[0]
    setup_django("assay_bench_browser")
    from django.db import connection
    from playwright.sync_api import sync_playwright

    from tracks.bolt import judging

    sample, qa, bolt = build_data(args.items)
    citations = [item.pk for item in judging.citation_items(bolt.topic)]  # (no ORM once Playwright's loop runs)
    connection.close()
    port = free_port()
    queue = f"assay-bench-browser-{uuid.uuid4().hex[:8]}"
    broker = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/0")
    # saves ask for rescoring on a queue of this run's own (nothing consumes it; deleted at the end)
    server = production.start_gunicorn(production.environment(broker, queue), port)
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
            inst_saved, inst_next, baseline = qa_instance(page, base, sample, qa, args.presses)
            match_saved, match_next = qa_match(page, base, sample, qa, args.presses)
            bolt_saved, bolt_next = bolt_citation(page, base, bolt, citations, args.presses)
            browser.close()
    finally:
        production.stop(server)
        production.drop_queue(broker, queue)

    base_p50 = percentile(baseline, 50)
    extra = {"load_average_before": load_before, "load_average_after": os.getloadavg()[0], "cpus": os.cpu_count()}
    results = [Result("baseline: keydown to next frame p50", base_p50, "ms", notes="QA instance page", extra=extra)]
    for page_name, saved, following in (
        ("QA instance", inst_saved, inst_next),
        ("QA nugget match", match_saved, match_next),
        ("BOLT citation", bolt_saved, bolt_next),
    ):
        for what, values, goal in (
            ("key -> saved", saved, "<= 50"),
            ("key -> next item interactive", following, "<= 100"),
        ):
            p50, p95 = percentile(values, 50), percentile(values, 95)
            results.append(
                Result(
                    f"{page_name}: {what} p95",
                    p95,
                    "ms",
                    goal=goal,
                    extra={"p50": p50, "max": max(values), "n": len(values), "p50_to_baseline": p50 / base_p50},
                )
            )
    return results
