"""Issue 29's budget (deliverable 7) in one run: what the live agreement and the live rankings add **together** to
a rescoring pass at TREC 2007 size with one judgment set, measured before and after a cut in the same run, in CPU
time (this process and its PostgreSQL backend, read from /proc) as well as wall time, with the load average.

The evaluation and the set are benchmarks.rankings' (70 series, 515 questions, 51 runs, all judged, eight pyramid
voters; a set copying every official instance and match judgment with one instance label in ten flipped).
Sustained judging: passes back to back, each after one changed instance judgment (as benchmarks.agreement's
_flip_one), each followed by both of the worker's hooks (scoring.agreement_schedule.request_refresh and
scoring.rankings.request_refresh, as scoring.tasks.rescore_stale calls them), the refresh tasks they queue run here
when due, as a worker would take them. Measured from the first rankings refresh for --seconds (then to the next
rankings refresh due, so whole rankings periods are counted): (hooks + agreement refreshes + rankings refreshes)
/ passes, and each part's share.

Two phases alternate (--rounds): "before", as the last measurement ran (RANKINGS_SPACING 15, AGREEMENT_SPACING 20,
every reading of a rankings refresh reading the official state anew); "after", the cut: a refresh reads what every
reading reads of the official state alike once (scoring.registry.memo inside one_snapshot: stored scores, run
entries, pool items, the matches every voter-left-out reading shares), which makes it about twice as fast, so both
spacings can double (the settings' defaults, 30 and 30) with the rankings' delay no longer than before. A share
of a spaced refresh is about 1/(spacing - 1) whatever a refresh costs (the spacing is a multiple of its
duration): the spacing sets the share, the refresh's speed the delay. Each phase's rankings are checked
identical to an unmemoised computation at its end.

Measured (`--reuse --seconds 1`: one whole rankings period per phase, 2026-11-28, 2 cores shared with three other
sessions' tests, load average 3.9 before, 12.3 after). Before (spacings 15/20, no memo): 1,382 passes, 186.2 s CPU
(564.3 s wall); hooks 1.65 s, 21 agreement refreshes 8.63 s (4.6 %), one rankings refresh 15.09 s CPU (45.4 s
wall; 8.1 %): **13.6 % CPU** (15.1 % wall). After (spacings 30/30, memo): 1,952 passes, 278.5 s CPU (580.6 s
wall); hooks 2.28 s, 16 agreement refreshes 10.34 s (3.7 %), one rankings refresh 10.93 s CPU (22.2 s wall;
3.9 %): **8.5 % CPU** (9.4 % wall; goal <= 10 %). The rankings' delay (spacing × a refresh) stays: 15 × 45.4 s
before, 30 × 22.2 s after. Both phases' rankings identical to an unmemoised computation.
"""

import os
import random
import statistics
import time
import uuid

from benchmarks.harness import Result, closing_rows, setup_django

TICKS = os.sysconf("SC_CLK_TCK")


def add_arguments(parser):
    parser.add_argument("--series", type=int, default=70)
    parser.add_argument("--questions", type=int, default=515)
    parser.add_argument("--runs", type=int, default=51)
    parser.add_argument("--seconds", type=float, default=120, help="length of each phase (then to a whole period)")
    parser.add_argument("--rounds", type=int, default=1, help="before/after pairs, alternating")
    parser.add_argument("--reuse", action="store_true", help="keep the scratch database and its data if present")
    parser.add_argument("--database", default="assay_bench_budget", help="the scratch database")


class Clock:
    """Wall and CPU seconds of this process and of its database backend (PostgreSQL on this machine)."""

    def __init__(self):
        from django.db import connection

        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.backend = cursor.fetchone()[0]
        self.wall = self.cpu = self.db_cpu = 0.0

    def _db(self):
        try:
            with open(f"/proc/{self.backend}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
        except OSError:
            return 0.0  # the database is elsewhere: this process's CPU only

    def __enter__(self):
        self._started = (time.perf_counter(), time.process_time(), self._db())
        return self

    def __exit__(self, *exc):
        wall, cpu, db = self._started
        self.wall += time.perf_counter() - wall
        self.cpu += time.process_time() - cpu
        self.db_cpu += self._db() - db

    @property
    def total_cpu(self):
        return self.cpu + self.db_cpu


def run(args):
    os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
    os.environ["CELERY_QUEUE"] = f"assay-bench-{uuid.uuid4().hex[:8]}"
    setup_django(args.database, fresh=not args.reuse)
    from benchmarks import rankings as shared

    load_before = os.getloadavg()
    ev, _ = shared._evaluation(args)
    results, shares = [], {"before": [], "after": []}
    for _ in range(args.rounds):
        for phase in ("before", "after"):
            found = _sustained(ev, args, cut=phase == "after")
            shares[phase].append(found)
    for phase, found in shares.items():
        results += _rows(phase, found)
    return results + closing_rows(load_before)


def _rows(phase, found):
    def total(key, part):
        return sum(getattr(f[key], part) for f in found)

    out = []
    for part, label in (("total_cpu", "CPU"), ("wall", "wall")):
        passes = total("passes", part)
        parts = {k: total(k, part) for k in ("hooks", "agreement", "rankings")}
        added = sum(parts.values()) / passes if passes else float("nan")
        notes = (
            f"passes {passes:.1f} s; hooks {parts['hooks']:.2f} s, agreement {parts['agreement']:.2f} s "
            f"({100 * parts['agreement'] / passes:.1f} %), rankings {parts['rankings']:.2f} s "
            f"({100 * parts['rankings'] / passes:.1f} %)"
            if passes
            else ""
        )
        out.append(
            Result(
                f"{phase}: agreement + rankings added to rescoring ({label})",
                100 * added,
                "%",
                goal="<= 10" if phase == "after" else "",
                notes=notes,
                extra={"passes": passes, **parts, "periods": [f["n"] for f in found]},
            )
        )
    n = sum(f["n"]["passes"] for f in found)
    refreshes = [s for f in found for s in f["rankings_each"]]
    out.append(
        Result(
            f"{phase}: rankings refresh (median CPU)",
            statistics.median(refreshes) if refreshes else float("nan"),
            "s",
            notes=f"{len(refreshes)} refreshes, {n} passes, spacings {found[0]['spacings']}, identical to an "
            f"unmemoised computation: {all(f['identical'] for f in found)}",
        )
    )
    return out


def _sustained(ev, args, cut):
    import contextlib
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    from benchmarks.agreement import _flip_one, _judgments
    from scoring import agreement_schedule, rankings, registry, tasks
    from scoring.models import RankingState
    from scoring.rescore import rescore_stale_topics

    for name, before in (("RANKINGS_SPACING", 15), ("AGREEMENT_SPACING", 20)):
        if cut:
            if hasattr(settings, name):
                delattr(settings, name)  # the defaults
        else:
            setattr(settings, name, before)
    rankings.one_snapshot = registry.one_snapshot if cut else contextlib.nullcontext
    rng, judgments = random.Random(11), _judgments(ev)
    agreement_due, rankings_due = [], []
    original = tasks.refresh_agreement_due.apply_async, tasks.refresh_rankings.apply_async
    tasks.refresh_agreement_due.apply_async = lambda args, countdown: agreement_due.append(time.monotonic() + countdown)
    tasks.refresh_rankings.apply_async = lambda args, eta: rankings_due.append(eta)
    agreement_schedule._unclaim(ev.pk)
    rankings._unclaim(ev.pk)
    # as if the last rankings refresh were long past: the first pass queues one at once
    RankingState.objects.filter(evaluation=ev).update(
        computed_at=timezone.now() - timedelta(hours=1), scheduled_for=None
    )
    clocks = {k: Clock() for k in ("passes", "hooks", "agreement", "rankings")}
    n = {"passes": 0, "agreement": 0, "rankings": 0}
    rankings_each = []
    started = None
    try:
        deadline = None
        while True:
            _flip_one(ev, rng, judgments)  # (the assessors' saves: other processes in production)
            counting = started is not None
            with _maybe(clocks["passes"], counting):
                rescore_stale_topics(ev.pk)
            n["passes"] += counting
            with _maybe(clocks["hooks"], counting):
                agreement_schedule.request_refresh(ev.pk)
                rankings.request_refresh(ev.pk)
            if agreement_due and agreement_due[0] <= time.monotonic():
                agreement_due.pop(0)
                with _maybe(clocks["agreement"], counting):
                    tasks.refresh_agreement_due(ev.pk)
                n["agreement"] += counting
            if rankings_due and rankings_due[0] <= timezone.now():
                rankings_due.pop(0)
                if started is not None and time.monotonic() >= deadline:
                    break  # whole rankings periods measured
                if started is None:
                    started, deadline = time.monotonic(), time.monotonic() + args.seconds
                before = clocks["rankings"].total_cpu
                with clocks["rankings"]:
                    rankings.run_due(ev.pk)
                rankings_each.append(clocks["rankings"].total_cpu - before)
                n["rankings"] += 1
    finally:
        tasks.refresh_agreement_due.apply_async, tasks.refresh_rankings.apply_async = original
    rescore_stale_topics(ev.pk)
    rankings.refresh(ev.pk)  # with the cut (or not) once more, on today's scores
    kept = RankingState.objects.get(evaluation=ev).data
    rankings.one_snapshot = registry.one_snapshot
    identical = _same(kept, rankings.compute(ev))  # (compute alone: no memo)
    spacings = {"rankings": rankings.spacing(), "agreement": agreement_schedule.spacing()}
    return clocks | {"n": n, "rankings_each": rankings_each, "identical": identical, "spacings": spacings}


class _maybe:
    def __init__(self, clock, counting):
        self.clock, self.counting = clock, counting

    def __enter__(self):
        if self.counting:
            self.clock.__enter__()

    def __exit__(self, *exc):
        if self.counting:
            self.clock.__exit__(*exc)


def _same(a, b):
    import json

    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)
