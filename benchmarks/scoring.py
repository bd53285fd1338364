"""Scoring: full rescoring of a TREC 2007-sized evaluation (70 series, 515 questions, 51 runs, all judged), and
score freshness under load (from a judgment's commit until a committed recomputation covers it, p50/p95) while
50 simulated assessors save 100 judgments per second in total through a real Celery worker (warmed up first).
Freshness is the first poll (every 10 ms) that reads a ScoringState.fresh_as_of at or after the judgment's commit;
a second figure takes each covering pass's own commit instant instead. The assessors, the poller and the worker
share the machine's cores: their CPU use is reported, and ANALYZE runs first (as autovacuum would).

Baseline (same run): reading every run entry of the evaluation once, the floor any full rescoring pays.
"""

import os
import random
import threading
import time
import uuid
from pathlib import Path

from benchmarks.harness import Result, Timer, peak_rss_mb, percentile, setup_django

ROOT = Path(__file__).resolve().parent.parent


def add_arguments(parser):
    parser.add_argument("--series", type=int, default=70)
    parser.add_argument("--questions", type=int, default=515)
    parser.add_argument("--runs", type=int, default=51)
    parser.add_argument("--repeat", type=int, default=3, help="full rescorings timed (best and median reported)")
    parser.add_argument("--assessors", type=int, default=50)
    parser.add_argument("--rate", type=float, default=100, help="judgments per second, all assessors together")
    parser.add_argument("--seconds", type=float, default=10, help="length of the load phase")
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="keep the scratch database and its data if present")
    parser.add_argument("--no-analyze", action="store_true", help="skip ANALYZE after generating the data")


def run(args):
    os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
    os.environ["CELERY_QUEUE"] = f"assay-bench-{uuid.uuid4().hex[:8]}"
    setup_django("assay_bench_scoring", fresh=not args.reuse)
    from pooling.models import Evaluation, RunEntry
    from scoring.rescore import rescore_evaluation
    from scoring.synthetic import trec2007_sized

    with Timer() as build:
        ev = Evaluation.objects.filter(slug="bench-trec2007").first() if args.reuse else None
        if ev is None:
            ev = trec2007_sized(series=args.series, questions=args.questions, runs=args.runs)
    entries = RunEntry.objects.filter(run__evaluation=ev).count()
    _analyze(args)
    with Timer() as base:
        list(
            RunEntry.objects.filter(run__evaluation=ev)
            .order_by()
            .values_list("id", "run_id", "topic_id", "docid", "text")
        )
    times = []
    for _ in range(args.repeat):
        with Timer() as t:
            rescore_evaluation(ev.id)
        times.append(t.seconds)
    from scoring.models import Score

    results = [
        Result("data generated", build.seconds, "s", notes=f"{entries} run entries"),
        Result("baseline: read all run entries", base.seconds, "s"),
        Result("full rescoring (best)", min(times), "s", goal="<= 2"),
        Result(
            "full rescoring (median)",
            sorted(times)[len(times) // 2],
            "s",
            goal="<= 2",
            extra={"all": times, "scores_stored": Score.objects.filter(run__evaluation=ev).count()},
        ),
        Result("full rescoring / baseline", min(times) / base.seconds, "ratio"),
    ]
    if not args.skip_load:
        _analyze(args)  # now with the stored scores
        results += _freshness(ev, args)
    results.append(Result("peak memory", peak_rss_mb(), "MB"))
    return results


def _analyze(args):
    """Planner statistics, as autovacuum keeps them on a production server: the scratch server may run without
    autovacuum, and never-analyzed tables get nested-loop plans that no real deployment would see."""
    if args.no_analyze:
        return
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _start_worker():
    from config.celery import app
    from config.worker import start_worker

    queue = os.environ["CELERY_QUEUE"]
    app.conf.task_default_queue = queue
    return start_worker(queue, dict(os.environ, CELERY_TASK_ALWAYS_EAGER="0"), app, loglevel="WARNING")


def _freshness(ev, args):
    from django.db import connection, transaction
    from django.utils import timezone

    from assess.models import Judgment
    from config.worker import stop_worker
    from pooling.staleness import mark_stale
    from scoring.models import ScoringState

    judgments = list(
        Judgment.objects.filter(evaluation=ev, kind="instance")
        .select_related("topic")
        .only("id", "value", "topic__id", "topic__evaluation_id")
    )
    worker = _start_worker()
    _warm_up(ev, judgments[0].topic)
    commits, stop, polls = [], threading.Event(), []
    stop_polling = threading.Event()
    batches = {}  # fresh_as_of -> (seconds, questions) of each recomputation seen
    lock = threading.Lock()

    def assessor(seed):
        rng = random.Random(seed)
        interval = args.assessors / args.rate
        next_at = time.monotonic() + rng.random() * interval
        while not stop.is_set():
            time.sleep(max(0.0, next_at - time.monotonic()))
            next_at += interval
            j = rng.choice(judgments)
            label = rng.choice(["globally-correct", "incorrect", "non-exact"])
            with transaction.atomic():
                Judgment.objects.filter(pk=j.id).update(value={"label": label, "answer_class": None})
                mark_stale(j.topic)
            committed = timezone.now()
            with lock:
                commits.append(committed)
        connection.close()

    def poller():
        while not stop_polling.is_set():
            state = ScoringState.objects.filter(evaluation=ev).values_list(
                "fresh_as_of", "last_seconds", "questions_last"
            ).first() or (None, None, None)
            polls.append((timezone.now(), state[0]))
            batches[state[0]] = state[1:]
            time.sleep(0.01)
        connection.close()

    threads = [threading.Thread(target=assessor, args=(i,)) for i in range(args.assessors)]
    poll_thread = threading.Thread(target=poller)
    # CPU used during the load phase by this process (the 50 assessors and the poller) and by the worker: all
    # share the machine's cores, so a busy load generator slows the rescoring it measures.
    cpu_start, worker_start, wall_start = _own_cpu(), _process_cpu(worker.pid), time.monotonic()
    poll_thread.start()
    for t in threads:
        t.start()
    time.sleep(args.seconds)
    stop.set()
    for t in threads:
        t.join()
    # let the last judgments be scored before the poller stops
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if polls and polls[-1][1] and commits and polls[-1][1] >= max(commits):
            break
        time.sleep(0.05)
    stop_polling.set()
    poll_thread.join()
    wall = time.monotonic() - wall_start
    generator_cores = (_own_cpu() - cpu_start) / wall
    worker_cores = (_process_cpu(worker.pid) - worker_start) / wall
    stop_worker(worker)

    latencies, missed = [], 0
    for c in commits:
        seen = next((p for p, fresh in polls if fresh and fresh >= c), None)
        if seen is None:
            missed += 1
        else:
            latencies.append(max(0.0, (seen - c).total_seconds()))
    # Cross-check without the poller's delay: a pass commits about last_seconds after its fresh_as_of (it times
    # itself from just before taking the lock to just before committing), so each judgment's latency is that
    # commit instant minus its own commit, for the first pass whose fresh_as_of follows it.
    passes = sorted((fresh, sec) for fresh, (sec, _) in batches.items() if fresh and sec is not None)
    by_pass = []
    for c in commits:
        covering = next(((fresh, sec) for fresh, sec in passes if fresh >= c), None)
        if covering is not None:
            by_pass.append(max(0.0, (covering[0] - c).total_seconds() + covering[1]))
    rate = len(commits) / args.seconds
    worked = [(sec, n) for sec, n in batches.values() if sec is not None and n]
    mean_seconds = sum(sec for sec, _ in worked) / len(worked) if worked else float("nan")
    mean_questions = sum(n for _, n in worked) / len(worked) if worked else float("nan")
    return [
        Result("judgments saved per second", rate, "1/s", notes=f"{args.assessors} assessors"),
        Result("freshness p50", percentile(latencies, 50), "s"),
        Result("freshness p95", percentile(latencies, 95), "s", goal="<= 1"),
        Result(
            "freshness p95 (pass commit, no polling)",
            percentile(by_pass, 95),
            "s",
            notes=f"p50 {percentile(by_pass, 50):.3f}",
        ),
        Result("judgments never covered", missed, "count", goal="<= 0"),
        Result("recomputation seconds (mean)", mean_seconds, "s", notes="one batch of stale questions"),
        Result("recomputation seconds (max)", max((sec for sec, _ in worked), default=float("nan")), "s"),
        Result("questions per recomputation (mean)", mean_questions, "count"),
        Result(
            "load generator CPU (assessors + poller)",
            generator_cores,
            "cores",
            notes=f"of {os.cpu_count()}; same machine as the worker",
        ),
        Result("worker CPU", worker_cores, "cores"),
    ]


def _warm_up(ev, topic, timeout=60):
    """One real rescoring through the worker before the clock starts: a fresh worker's first task imports the
    scoring modules and opens its connection (a second or more), which a running deployment has long done."""
    from django.db import transaction

    from pooling.models import StaleTopic
    from pooling.staleness import mark_stale

    with transaction.atomic():
        mark_stale(topic)
    deadline = time.monotonic() + timeout
    while StaleTopic.objects.filter(evaluation=ev).exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def _own_cpu():
    t = os.times()
    return t.user + t.system


def _process_cpu(pid):
    """User + system seconds of another process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
