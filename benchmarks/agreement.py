"""Live agreement at TREC 2007 size with one judgment set (issue 29, deliverable 7's agreement half): what the
rescoring worker's agreement step adds to a rescoring pass, and that the save path never reaches it.

The evaluation and the set are benchmarks.rankings' (70 series, 515 questions, 51 runs, all judged; a set copying
every official instance and match judgment with one instance label in ten flipped):

- **a full refresh** (scoring.agreement_store.refresh: every topic, every kind, the human comparison and the set):
  median and best of --repeat;
- **in place (before)**: --in-place passes, each after one judgment changed (its version bumped and the question
  marked stale, as a save does), with the step the worker used to take after each: the marks read and those
  questions refreshed at once;
- **sustained judging** for --seconds: passes back to back, each after one changed judgment, then the worker's hook
  (scoring.agreement_schedule.request_refresh, as scoring.tasks.rescore_stale calls it), the refresh task it queues
  run here when due (scoring.tasks.refresh_agreement_due: every question changed since, by the fingerprints), over
  whole periods. Goal: hooks and refreshes add at most 10 % to the passes' time (the baseline being the passes
  themselves in the same run); also the delay from a change to the end of the refresh that took it in;
- **the save path**: --saves judgments saved through assess.judging.save_judgment with every entry point of
  scoring.agreement_store and scoring.agreement_schedule replaced by a counter: it must stay 0, with the saves'
  p50/p99.

The load average is recorded before and after. Scratch database `assay_bench_agreement` (--reuse keeps it).

Measured (`--reuse --repeat 1 --seconds 180 --saves 100`, 2026-11-28; 2 cores, load average 1.8 before, 2.1 after):
a full refresh 2.8 s; in place, 17 ms after each 70 ms pass (24 %; 63 ms against ~250 ms at load 15 earlier);
spaced, 2,049 passes in 168.3 s, hooks 0.5 ms each, 31 refreshes of 295 ms: 6.1 % added to rescoring; a change in
the agreement 5.5 s later (median), 12.5 s at most; save path 0 calls in 100 saves (p50 1.1 ms, p99 8.7 ms). At
load 4-8 (120 s, the hook then still reading the marks before each pass, 3.4 ms): 8.4 %, refreshes 611 ms each.
"""

import os
import random
import statistics
import time
import uuid

from benchmarks.harness import Result, Timer, closing_rows, setup_django
from benchmarks.save_path_probe import saves_calling


def add_arguments(parser):
    parser.add_argument("--series", type=int, default=70)
    parser.add_argument("--questions", type=int, default=515)
    parser.add_argument("--runs", type=int, default=51)
    parser.add_argument("--repeat", type=int, default=3, help="full refreshes timed")
    parser.add_argument("--seconds", type=float, default=60, help="length of the sustained judging phase")
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--in-place", type=int, default=30, help="passes timed with the step in place (before)")
    parser.add_argument("--reuse", action="store_true", help="keep the scratch database and its data if present")


def run(args):
    os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
    os.environ["CELERY_QUEUE"] = f"assay-bench-{uuid.uuid4().hex[:8]}"
    setup_django("assay_bench_agreement", fresh=not args.reuse)
    from benchmarks import rankings as shared
    from scoring.tasks import refresh_rankings

    load_before = os.getloadavg()
    original = refresh_rankings.apply_async
    refresh_rankings.apply_async = lambda *a, **k: None  # the rankings are benchmarks.rankings' business
    try:
        ev, _ = shared._evaluation(args)
        results = _refreshes(ev, args)
        results += _in_place(ev, args)
        results += _sustained(ev, args)
        results += _saves(ev, args)
    finally:
        refresh_rankings.apply_async = original
    return results + closing_rows(load_before)


def _refreshes(ev, args):
    from scoring import agreement_store
    from scoring.models import Agreement

    times = []
    for _ in range(args.repeat):
        with Timer() as t:
            rows = agreement_store.refresh(ev.pk)
        times.append(t.seconds)
    total = Agreement.objects.filter(evaluation=ev, topic__isnull=True, judgment_set__isnull=False, kind="instance")
    stats = total.first().stats if total.exists() else {}
    note = f"{rows} topic rows; the set's instance labels: {stats.get('items')} in common, kappa {stats.get('kappa')}"
    return [
        Result("full refresh (median)", statistics.median(times), "s", notes=note, extra={"all": times}),
        Result("full refresh (best)", min(times), "s"),
    ]


def _judgments(ev):
    from assess.models import Judgment

    return [
        (jid, tid, dict(value))
        for jid, tid, value in Judgment.objects.filter(evaluation=ev, kind="instance", role=Judgment.PRIMARY)
        .order_by("id")
        .values_list("id", "topic_id", "value")
    ]


def _in_place(ev, args):
    """The step as it was: after every pass, the pass's questions refreshed in place (--in-place passes)."""
    from pooling.models import StaleTopic
    from scoring import agreement_store
    from scoring.rescore import rescore_stale_topics

    rng, judgments = random.Random(5), _judgments(ev)
    passes = steps = 0.0
    for _ in range(args.in_place):
        _flip_one(ev, rng, judgments)
        with Timer() as t:
            marked = set(StaleTopic.objects.filter(evaluation_id=ev.pk).values_list("topic_id", flat=True))
        steps += t.seconds
        with Timer() as t:
            rescore_stale_topics(ev.pk)
        passes += t.seconds
        with Timer() as t:
            agreement_store.refresh(ev.pk, marked)  # (what the step did)
        steps += t.seconds
    n = max(args.in_place, 1)
    return [
        Result(
            "in place after every pass (before): step per pass",
            1000 * steps / n,
            "ms",
            notes=f"{args.in_place} passes, {1000 * passes / n:.0f} ms each: {100 * steps / passes:.1f} % added",
            extra={"passes_s": passes, "steps_s": steps},
        )
    ]


def _sustained(ev, args):
    """Passes back to back, each after one changed judgment, with the worker's hook (scoring.agreement_schedule.
    request_refresh, as scoring.tasks.rescore_stale calls it after its passes) and the refresh tasks it queues run
    here when due, as a worker would take them; measured over whole periods, from the start of the first refresh to
    the moment the first one due after --seconds is (not run): (hooks + refreshes) / passes. The delay: from a
    change to the end of the refresh that took it in, for the oldest change each refresh takes."""
    from django.conf import settings

    from scoring import agreement_schedule, tasks
    from scoring.rescore import rescore_stale_topics

    rng, judgments = random.Random(7), _judgments(ev)
    queued = []
    original = tasks.refresh_agreement_due.apply_async
    tasks.refresh_agreement_due.apply_async = lambda args, countdown: queued.append(time.monotonic() + countdown)
    agreement_schedule._unclaim(ev.pk)
    passes = hooks = refreshes = 0.0
    n_passes = n_refreshes = written = 0
    delays = []
    oldest = started = None  # (the oldest change no refresh has taken in yet)
    try:
        deadline = time.monotonic() + args.seconds
        while True:
            _flip_one(ev, rng, judgments)  # (the assessors' saves: other processes in production)
            oldest = oldest or time.monotonic()
            with Timer() as t:
                rescore_stale_topics(ev.pk)
            counting = started is not None
            passes += t.seconds * counting
            n_passes += counting
            with Timer() as t:
                agreement_schedule.request_refresh(ev.pk)
            hooks += t.seconds * counting
            if queued and queued[0] <= time.monotonic():
                queued.pop(0)
                if started is not None and time.monotonic() >= deadline:
                    break  # a whole number of periods measured
                started = started or time.monotonic()
                taken, oldest = oldest, None
                with Timer() as t:
                    written += tasks.refresh_agreement_due(ev.pk)
                refreshes += t.seconds
                n_refreshes += 1
                delays.append(time.monotonic() - taken)
    finally:
        tasks.refresh_agreement_due.apply_async = original
    added = (hooks + refreshes) / passes if passes else float("nan")
    spacing = getattr(settings, "AGREEMENT_SPACING", 20)
    return [
        Result("sustained: live passes", n_passes, "passes", notes=f"{passes:.2f} s in all"),
        Result("sustained: hook per pass (mean)", 1000 * hooks / max(n_passes, 1), "ms"),
        Result(
            "sustained: refreshes",
            n_refreshes,
            "refreshes",
            notes=f"{refreshes:.2f} s in all, {1000 * refreshes / max(n_refreshes, 1):.0f} ms each, {written} topic "
            f"rows; spacing {spacing}",
        ),
        Result(
            "sustained: change to agreement (median)",
            statistics.median(delays) if delays else float("nan"),
            "s",
            notes=f"the oldest change each refresh took in; longest {max(delays, default=float('nan')):.1f} s",
            extra={"all": delays},
        ),
        Result(
            "sustained: agreement added to rescoring",
            100 * added,
            "%",
            goal="<= 10",
            notes="(hooks + refreshes) / passes over whole periods, same run",
            extra={"passes_s": passes, "hooks_s": hooks, "refreshes_s": refreshes, "refreshes": n_refreshes},
        ),
    ]


def _flip_one(ev, rng, judgments):
    """One instance label changed as a save changes it (version bumped, the question marked stale)."""
    from django.db import transaction
    from django.db.models import F
    from django.utils import timezone

    from assess.models import Judgment
    from pooling.models import StaleTopic

    jid, tid, value = rng.choice(judgments)
    value.update(label="incorrect" if value.get("label") == "globally-correct" else "globally-correct")
    now = timezone.now()
    with transaction.atomic():
        Judgment.objects.filter(pk=jid).update(value=value, version=F("version") + 1, updated_at=now)
        StaleTopic.objects.bulk_create(
            [StaleTopic(topic_id=tid, evaluation_id=ev.id, since=now, changed_at=now)],
            update_conflicts=True,
            unique_fields=["topic"],
            update_fields=["changed_at"],
        )


def _saves(ev, args):
    """Saves through the one judgment writer, with every entry point of the agreement counting its calls."""
    from scoring import agreement_schedule, agreement_store

    watched = [(agreement_store, n) for n in ("refresh", "refresh_changed", "changed_topics", "fingerprints", "units")]
    watched += [(agreement_schedule, n) for n in ("request_refresh", "run_due")]
    return saves_calling(ev, args.saves, watched, "scoring.agreement_store")
