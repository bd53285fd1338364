"""Judgment saves over HTTP with live rescoring on: gunicorn (config/gunicorn.conf.py) + PostgreSQL + a Celery
worker started as docker-compose.yml starts it, the same POST the judging page's htmx sends.

Data: a TREC 2007-sized evaluation (tracks.qa.synthetic.trec2007_sized: 70 series, 515 questions, 51 runs, every
item judged); the first `--clients` series are assigned to as many assessors, who own their series' instance
judgments and re-judge them (factoid and list items, ~70 distinct items each, cycling through the labels so every
save is a change and every save marks its question stale). Scores are fully computed before the load starts.

Runs, each with the worker on and then at once with it stopped (the baseline of the same run): one assessor
alone (latency p50/p99, factoid and list apart); `--clients` assessors each saving as soon as the last save
answered (closed loop: saves/s, p50/p99); saves arriving at a fixed `--rate` (p50/p95/p99, measured from the
scheduled send time so a slow server cannot hide its queue). With the worker on, score freshness is measured
beside: a poller reads ScoringState.fresh_as_of every 50 ms and a save is fresh at the first poll whose
fresh_as_of is at or after the save's answer (a pass takes that instant before it reads the marks); p50/p95 per
run, and the seconds from the end of the load until no mark is left. Errors are non-200 answers and failed
connections; lost saves are found afterwards by comparing the database with what each client was told.

Goals (issue 19): one assessor p99 <= 10 ms; closed loop >= 400 saves/s; at 200/s p99 <= 50 ms; all with the
worker on; 0 errors, 0 lost. Baselines of the same run: every measure with the worker stopped and, with
`--previous`, with the worker configured as before (concurrency 2, normal priority, passes back to back: its
settings are environment variables, so no second checkout is needed); `--repeat N` alternates them N times and
reports medians. The CPU each process group used (gunicorn, worker, this database's PostgreSQL backends, the load
generator) and what the database's connections were waiting for (pg_stat_activity, sampled every 50 ms) are in
the JSON.

Where the time went with the worker on (the profile: waits sampled, CPU per process group, one pass measured):
- Row locks: the second process of the worker (docker-compose's old --concurrency=2) sat in `SELECT ...
  scoring_scoringstate FOR UPDATE` inside an open transaction and started the next pass the moment the first
  committed: WORKER_CONCURRENCY is 1. A pass also held its stale marks' row locks across the worker's (niced)
  Python until it committed, and a save of the question just rescored waited on them (list questions, judged item
  after item, most): the marks are now cleared in a statement of their own after the scores commit
  (tests/test_lock_order.py). Since, no save's connection was seen waiting on a lock.
- CPU: a pass for one question costs ~40-45 ms at this size; a task waits SCORING_PASS_GAP_MS (250) between
  passes so one pass covers a burst, and the worker runs WORKER_NICE (10) lower, so gunicorn gets the CPU first.
  Its PostgreSQL backend runs at normal priority (a client cannot lower its server's).
- WAL: a pass writes 0-5 kB of WAL for a factoid question, ~180 kB for a list one; its commit does not wait for
  the flush (synchronous_commit off), but the next save's commit flushes everything before it.
- The save itself (in-process profile, 400 saves): three statements (session and user in one, the item, the
  one-statement write), ~60 % of its time waiting on PostgreSQL; a list save adds the classes the bar numbers.
  A save that moves an item into or out of an answer class also sends that class's entry of the classes panel
  (3.0 ms to render; the whole panel, sent before, 11.3 ms): the first one-assessor run of a benchmark meets
  ~40 such saves (the synthetic data put items in classes; later runs find them out of classes), which alone
  made its p99 17-18 ms against 7-9 ms in the runs after it.

Measured (TREC 2007-sized, 50 assessors, 24,285 items; 2 cores, nothing else running, load average 1.9 before,
3.2 after; medians of `--repeat 3`), worker on / stopped: one assessor p50 2.6 / 2.2 ms, p99 7.8 / 4.7 ms
(factoid 6.0 / 3.2, list 8.9 / 4.4); closed loop 515 / 736 saves/s, p99 269 / 144 ms; fixed 200/s p50 4.5 / 4.3
ms, p95 11.6 / 5.8 ms, p99 15.3 / 8.6 ms. Score freshness p50 / p95 (worker on): one assessor 0.23 / 0.36 s,
closed loop 1.3 / 2.5 s, 200/s 0.64 / 0.94 s; every score current 0.24-0.64 s after the load stops. 0 errors,
0 lost, no lock waits. Every goal met. (Before the class-entry change above; since, the first run's p99 is
10.8 ms and the median 8.0 ms, load 0.8.)
"""

import asyncio
import http.client
import os
import re
import secrets
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

from benchmarks import production
from benchmarks.harness import Result, percentile, setup_django
from benchmarks.production import free_port, session_for

ROOT = Path(__file__).resolve().parent.parent
VERSION = re.compile(rb'name="version" value="(\d+)"')
LABELS = ("incorrect", "unsupported", "non-exact", "locally-correct", "globally-correct")
SLUG = "bench-judging"


def add_arguments(parser):
    parser.add_argument("--clients", type=int, default=50, help="assessors, one series each (at most --series)")
    parser.add_argument("--series", type=int, default=70)
    parser.add_argument("--questions", type=int, default=515)
    parser.add_argument("--runs", type=int, default=51)
    parser.add_argument("--single", type=int, default=500, help="saves in the one-assessor run")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each multi-assessor run")
    parser.add_argument("--rate", type=float, default=200.0, help="saves per second in the fixed-rate run")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: config/gunicorn.conf.py)")
    parser.add_argument("--threads", type=int, help="threads per gunicorn worker (default: the same file)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the runs with the worker stopped")
    parser.add_argument("--repeat", type=int, default=1, help="each run this often, alternating; medians reported")
    parser.add_argument("--modes", default=",".join(MODES), help="which runs, comma-separated: single,closed,rate")
    parser.add_argument(
        "--worker-env", action="append", default=[], metavar="NAME=VALUE", help="a setting of the worker (tuning)"
    )
    parser.add_argument(
        "--previous", action="store_true", help="also each mode with the worker configured as before issue 19 item 5"
    )


# The worker as it ran before issue 19 item 5: docker-compose's --concurrency=2, normal priority, no pause between
# passes. Its settings are environment variables, so the previous commit's worker needs no second checkout.
PREVIOUS_WORKER = {"WORKER_CONCURRENCY": "2", "WORKER_NICE": "0", "SCORING_PASS_GAP_MS": "0"}


def build_data(args):
    """The evaluation, scored; returns (evaluation, [(session key, [item ids], {item: kind}, {item: (label,
    version)})] per assessor)."""
    from django.contrib.auth.models import Group, User
    from django.db import connection

    from assess.models import Assignment, Judgment
    from pooling.models import Topic
    from scoring.rescore import rescore_evaluation
    from tracks.qa.synthetic import trec2007_sized

    evaluation = trec2007_sized(slug=SLUG, series=args.series, questions=args.questions, runs=args.runs)
    group, _ = Group.objects.get_or_create(name="assessor")
    series = list(Topic.objects.filter(evaluation=evaluation, parent=None).order_by("position")[: args.clients])
    clients = []
    for c, s in enumerate(series):
        user = User.objects.create(username=f"bench{c:03d}")
        user.set_unusable_password()
        user.save()
        user.groups.add(group)
        Assignment.objects.create(evaluation=evaluation, topic=s, assessor=user)
        # the synthetic judge's instance judgments of this series become this assessor's (primary, version 1)
        judgments = Judgment.objects.filter(evaluation=evaluation, topic__parent=s, kind="instance")
        judgments.update(assessor=user)
        rows = list(judgments.order_by("topic__position", "item_id").values_list("item_id", "topic__kind", "value"))
        items = [item for item, _, _ in rows]
        kinds = {item: kind for item, kind, _ in rows}
        told = {item: (value["label"], 1) for item, _, value in rows}
        clients.append((session_for(user), items, kinds, told))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as autovacuum would have by now
    rescore_evaluation(evaluation.pk)
    return evaluation, clients


class Client:
    """One simulated assessor: its own session, its own keep-alive connection, its items, and what the server told
    it about each. All clients run as asyncio tasks in one thread: the load generator shares the machine with the
    server, and 50 threads fighting over one GIL cost it more CPU per request than the server spends on a save."""

    def __init__(self, port, session_key, items, kinds=None, told=None):
        self.port, self.items = port, items
        self.kinds = kinds or {}
        self.csrf = secrets.token_hex(16)  # 32 characters: a valid CSRF secret for cookie and header alike
        self.cookie = f"sessionid={session_key}; csrftoken={self.csrf}"
        # item id -> (label, version) of the last save answered 200: the assessor's own dict, shared by its clients
        self.told = told if told is not None else {}
        self.saves = 0  # saves answered 200 (each one a change)
        self.errors = []
        self.latencies = []
        self.by_kind = {}  # question kind -> latencies
        self.answered = []  # wall-clock time of each 200, for score freshness
        self.turn = 0
        self.streams = None

    def _request(self, item, body):
        return (
            f"POST /assess/item/{item}/judge HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n"
            f"Cookie: {self.cookie}\r\nX-CSRFToken: {self.csrf}\r\nHX-Request: true\r\n"
            f"Referer: http://127.0.0.1:{self.port}/\r\n\r\n{body}"
        ).encode()

    async def _exchange(self, payload):
        """Send one request and read its response: (status, body, connection kept)."""
        if self.streams is None:
            self.streams = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self.streams
        writer.write(payload)
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        if "content-length" in headers:
            content = await reader.readexactly(int(headers["content-length"]))
        else:  # no length: the body runs to the end of the connection
            content = await reader.read()
            headers["connection"] = "close"
        return status, content, headers.get("connection", "").lower() != "close"

    def _drop(self):
        if self.streams is not None:
            self.streams[1].close()
        self.streams = None

    async def save(self, started=None):
        """POST one judgment; `started` (perf_counter) is when it was due, for fixed-rate latency."""
        item = self.items[self.turn % len(self.items)]
        self.turn += 1
        label, version = self.told.get(item, (None, 0))
        new = LABELS[(LABELS.index(label) + 1) % len(LABELS)] if label else LABELS[0]
        payload = self._request(item, f"label={new}&version={version}")
        t0 = time.perf_counter() if started is None else started
        try:
            status, content, keep = await asyncio.wait_for(self._exchange(payload), timeout=30)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError) as exc:
            self.errors.append(repr(exc))
            self._drop()
            return
        if not keep:
            self._drop()
        latency = time.perf_counter() - t0
        self.latencies.append(latency)
        self.by_kind.setdefault(self.kinds.get(item, "?"), []).append(latency)
        m = VERSION.search(content)
        if status != 200 or not m:
            self.errors.append(f"HTTP {status}: {content[:200]!r}")
            return
        self.answered.append(time.time())
        self.told[item] = (new, int(m.group(1)))
        self.saves += 1

    def close(self):
        self._drop()


def get_baseline(port, n):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn.request("GET", "/login/")
        response = conn.getresponse()
        response.read()
        times.append(time.perf_counter() - t0)
        if response.getheader("Connection", "").lower() == "close":
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.close()
    return times


def closed_loop(clients, seconds):
    async def main():
        stop = time.perf_counter() + seconds

        async def work(client):
            while time.perf_counter() < stop:
                await client.save()

        t0 = time.perf_counter()
        await asyncio.gather(*(work(c) for c in clients))
        elapsed = time.perf_counter() - t0
        for c in clients:
            c.close()
        return elapsed

    return asyncio.run(main())


def fixed_rate(clients, seconds, rate):
    """Each client sends every len(clients)/rate seconds, clients staggered evenly: `rate` saves/s in all."""
    period = len(clients) / rate
    n_each = int(seconds / period)

    async def main():
        start = time.perf_counter() + 0.2

        async def work(index, client):
            for k in range(n_each):
                due = start + k * period + index * period / len(clients)
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                await client.save(started=due)

        await asyncio.gather(*(work(i, c) for i, c in enumerate(clients)))
        elapsed = time.perf_counter() - start
        for c in clients:
            c.close()
        return elapsed

    return asyncio.run(main())


def one_by_one(clients, n=1):
    """Each client saves n times, the clients one after another (warming up; the one-assessor run)."""

    async def main():
        for client in clients:
            for _ in range(n):
                await client.save()
            client.close()  # its connection belonged to this event loop

    asyncio.run(main())


class Freshness:
    """Polls the evaluation's fresh_as_of (every 50 ms, its own connection) while a run goes on."""

    def __init__(self, evaluation_id):
        self.evaluation_id = evaluation_id
        self.polls = []  # (wall time, fresh_as_of as a timestamp or None, stale marks)
        self.waits = {}  # "wait event | query" -> polls that saw a connection so
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self):
        import psycopg

        from pooling.models import StaleTopic
        from scoring.models import ScoringState

        sql = (
            f"SELECT (SELECT extract(epoch FROM fresh_as_of)::float FROM {ScoringState._meta.db_table}"
            f" WHERE evaluation_id = %s), (SELECT count(*) FROM {StaleTopic._meta.db_table} WHERE evaluation_id = %s)"
        )
        # the profile of waits: what each other connection to this database is waiting for at this instant
        waits = (
            "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'), left(query, 60) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'"
        )
        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
            while not self.stop.is_set():
                row = conn.execute(sql, (self.evaluation_id, self.evaluation_id)).fetchone()
                self.polls.append((time.time(), row[0], row[1]))
                for event, query in conn.execute(waits):
                    key = f"{event} | {query.split(chr(10))[0]}"
                    self.waits[key] = self.waits.get(key, 0) + 1
                self.stop.wait(0.05)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def drain(self, last_save=None, timeout=60.0):
        """Seconds from `last_save` until a pass covers it and no mark is left (inf if not within `timeout`);
        without `last_save`, until no mark is left."""
        deadline = time.time() + timeout
        start = time.time() if last_save is None else last_save
        while time.time() < deadline:
            at, fresh, marks = self.polls[-1] if self.polls else (0, None, None)
            if marks == 0 and (last_save is None or (fresh and fresh >= last_save)):
                return at - start
            time.sleep(0.05)
        return float("inf")

    def lags(self, answered):
        """For each save answered at a wall time: seconds until a poll saw a pass covering it."""
        lags, k = [], 0
        polls = self.polls
        for t in sorted(answered):
            while k < len(polls) and not (polls[k][1] and polls[k][1] >= t):
                k += 1
            lags.append(polls[k][0] - t if k < len(polls) else float("inf"))
        return lags


def lost_saves(sessions, clients):
    """Saves a client was told succeeded but the database does not hold (label, version, history rows)."""
    from assess.models import Judgment, JudgmentChange

    lost = 0
    for _, items, _, told in sessions:
        stored = {j.item_id: (j.value.get("label"), j.version) for j in Judgment.objects.filter(item_id__in=items)}
        lost += sum(1 for item, said in told.items() if stored.get(item) != said)
    history = JudgmentChange.objects.filter(judgment__evaluation__slug=SLUG).count()
    told_total = sum(c.saves for c in clients)
    return lost + max(0, told_total - history), history, told_total


def _cpu_of(pids):
    """CPU seconds used so far by these processes and their children (Linux /proc), 0 for those gone."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
        except (OSError, IndexError, ValueError):
            pass
    return total


def _pids(parent):
    """The process and its children (gunicorn's and Celery's workers)."""
    out = subprocess.run(["pgrep", "-P", str(parent)], capture_output=True, text=True).stdout.split()
    return [parent, *map(int, out)]


def _postgres_pids():
    """The server processes serving this benchmark's database (the server is shared with other work)."""
    import psycopg

    url = os.environ["DATABASE_URL"]
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return [pid for (pid,) in rows]


class CPU:
    """CPU seconds per process group over a block (children's time counts once they are reaped, so live children
    are read directly)."""

    def __init__(self, groups):
        self.groups = groups  # name -> callable returning pids

    def read(self):
        reading = {name: _cpu_of(pids()) for name, pids in self.groups.items()}
        reading["load generator"] = time.process_time()
        return reading

    def __enter__(self):
        self.before, self.t0 = self.read(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        after, wall = self.read(), time.perf_counter() - self.t0
        self.cores = {name: round((after[name] - self.before[name]) / wall, 2) for name in after}


def single_run(port, sessions, args):
    """One assessor alone, `args.single` saves one after another."""
    client = Client(port, *sessions[0])
    one_by_one([client], args.single)
    numbers = {"p50": percentile(client.latencies, 50), "p99": percentile(client.latencies, 99)}
    for kind, values in sorted(client.by_kind.items()):
        numbers[f"{kind} p99"] = percentile(values, 99)
    return numbers, [client]


def closed_run(port, sessions, args):
    clients = [Client(port, *s) for s in sessions]
    elapsed = closed_loop(clients, args.seconds)
    lat = [x for c in clients for x in c.latencies]
    return {"saves/s": len(lat) / elapsed, "p50": percentile(lat, 50), "p99": percentile(lat, 99)}, clients


def rate_run(port, sessions, args):
    clients = [Client(port, *s) for s in sessions]
    elapsed = fixed_rate(clients, args.seconds, args.rate)
    lat = [x for c in clients for x in c.latencies]
    numbers = {"achieved": len(lat) / elapsed}
    for p in (50, 95, 99):
        numbers[f"p{p}"] = percentile(lat, p)
    return numbers, clients


MODES = {"single": single_run, "closed": closed_run, "rate": rate_run}


def measure(mode, port, sessions, args, evaluation_id, cpu_groups, worker_on):
    """One run of `mode` against the server as it is (worker on or off): its numbers, with the CPU each process
    group used, what the database's connections waited for and, with the worker on, score freshness."""
    with Freshness(evaluation_id) as poll:
        with CPU(cpu_groups) as cpu:
            numbers, clients = MODES[mode](port, sessions, args)
        if worker_on:
            answered = [t for c in clients for t in c.answered]
            numbers["drain"] = poll.drain(max(answered)) if answered else 0.0  # (polls the rest first)
            lags = poll.lags(answered)
            numbers["freshness p50"], numbers["freshness p95"] = percentile(lags, 50), percentile(lags, 95)
    numbers["cpu"] = cpu.cores
    numbers["waits"] = dict(sorted(poll.waits.items(), key=lambda kv: -kv[1])[:12])
    return numbers, clients


def run(args):
    load_before = os.getloadavg()[0]  # the machine is shared: say how busy it was
    cpu_before = _cpu_times()
    queue = f"assay-bench-judging-{uuid.uuid4().hex[:8]}"
    broker = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/0")
    # before Django reads its settings: this process's Celery app pings the worker on this broker and queue
    os.environ.update(CELERY_BROKER_URL=broker, CELERY_QUEUE=queue, CELERY_TASK_ALWAYS_EAGER="1")
    setup_django("assay_bench_judging")
    from django.db import connection

    from config.celery import app

    built = time.perf_counter()
    evaluation, sessions = build_data(args)
    built = time.perf_counter() - built
    connection.close()
    port = free_port()
    env = production.environment(broker, queue, DATABASE_URL=os.environ["DATABASE_URL"], CELERY_RESULT_BACKEND="")
    options = []
    if args.workers:
        options += ["-w", str(args.workers)]
    if args.threads:
        options += ["--threads", str(args.threads)]
    server = production.start_gunicorn(env, port, options)
    worker = None
    groups = {"gunicorn": lambda: _pids(server.pid), "postgres": _postgres_pids}
    # the worker's banner and warnings go to a file, out of the report
    worker_log = open(Path(tempfile.gettempdir()) / f"{queue}-worker.log", "w")
    clients = []  # every client of every run: what each was told is checked against the database at the end
    on, off, previous = {}, {}, {}
    try:
        get_baseline(port, 50)  # warm every worker
        baseline = get_baseline(port, args.single)
        warm = [Client(port, *s) for s in sessions]
        one_by_one(warm)  # first save of every client: code paths warm
        clients += warm
        # Each mode with the worker on, then at once with it stopped: the pair shares the machine's state (it is
        # shared with other work whose load drifts). Before each worker-on run the worker catches up first.
        configurations = [(on, {})] + ([(previous, PREVIOUS_WORKER)] if args.previous else [])
        tuning = dict(setting.split("=", 1) for setting in args.worker_env)
        for mode in args.modes.split(","):
            repeats = {id(numbers): [] for numbers in (on, previous, off)}
            for _ in range(args.repeat):
                for numbers, worker_env in configurations:
                    worker = production.start_worker(env | tuning | worker_env, queue, app, log=worker_log)
                    with Freshness(evaluation.pk) as poll:
                        poll.drain()  # the marks the last run left
                    workers = groups | {"worker": lambda w=worker: _pids(w.pid)}
                    got, used = measure(mode, port, sessions, args, evaluation.pk, workers, worker_on=True)
                    repeats[id(numbers)].append(got)
                    clients += used
                    production.stop(worker)
                    worker = None
                if not args.no_baseline:
                    got, used = measure(mode, port, sessions, args, evaluation.pk, groups, worker_on=False)
                    repeats[id(off)].append(got)
                    clients += used
            for numbers in (on, previous, off):
                if repeats[id(numbers)]:
                    numbers[mode] = _median(repeats[id(numbers)])
    finally:
        if worker is not None:
            production.stop(worker)
        production.stop(server)
        production.drop_queue(broker, queue)
        worker_log.close()

    lost, history, told_total = lost_saves(sessions, clients)
    errors = [e for c in clients for e in c.errors]
    ms = 1000
    base_p50 = percentile(baseline, 50) * ms

    def paired(name, mode, key, unit="ms", goal="", scale=ms, notes=""):
        value = on[mode][key] * scale
        extra = {}
        for label, other in (("worker_off", off), ("previous_worker", previous)):
            if key in other.get(mode, {}):
                theirs = other[mode][key]
                extra |= {label: theirs * scale, f"ratio_to_{label}": on[mode][key] / theirs if theirs else None}
        for label, other in (("each", on), ("each_previous_worker", previous), ("each_worker_off", off)):
            if f"{key} each" in other.get(mode, {}):
                extra[label] = [round(v * scale, 3) for v in other[mode][f"{key} each"]]
        return Result(name, value, unit, goal=goal, notes=notes, extra=extra)

    setup = f"gunicorn {args.workers or 'config'} x {args.threads or 'config'} threads, {len(sessions)} assessors"
    results = [
        Result(
            "baseline GET /login/ p50",
            base_p50,
            "ms",
            notes="same server, one client",
            extra={
                "load_average_before": load_before,
                "load_average_after": os.getloadavg()[0],
                "cpus": os.cpu_count(),
                "cpu_share_during_run": _cpu_share(cpu_before, _cpu_times()),
                "data_seconds": built,
                "items": sum(len(s[1]) for s in sessions),
            },
        ),
    ]
    if "single" in on:
        results += [
            paired("one assessor p50", "single", "p50"),
            paired("one assessor p99", "single", "p99", goal="<= 10", notes=setup),
        ]
        for kind in ("FACTOID", "LIST"):
            if f"{kind} p99" in on["single"]:
                results.append(paired(f"one assessor {kind.lower()} p99", "single", f"{kind} p99"))
    if "closed" in on:
        results += [
            paired("closed loop saves/s", "closed", "saves/s", "saves/s", ">= 400", 1),
            paired("closed loop p50", "closed", "p50"),
            paired("closed loop p99", "closed", "p99"),
        ]
    if "rate" in on:
        results += [
            paired(f"fixed {args.rate:g}/s achieved", "rate", "achieved", "saves/s", scale=1),
            paired(f"fixed {args.rate:g}/s p50", "rate", "p50"),
            paired(f"fixed {args.rate:g}/s p95", "rate", "p95"),
            paired(f"fixed {args.rate:g}/s p99", "rate", "p99", goal="<= 50"),
        ]
    for mode in on:
        results += [
            paired(f"{mode}: score freshness p50", mode, "freshness p50", "s", scale=1),
            Result(
                f"{mode}: score freshness p95",
                on[mode]["freshness p95"],
                "s",
                extra={
                    "previous_worker": previous.get(mode, {}).get("freshness p95"),
                    "cpu_cores_worker_on": on[mode]["cpu"],
                    "cpu_cores_previous_worker": previous.get(mode, {}).get("cpu"),
                    "cpu_cores_worker_off": off.get(mode, {}).get("cpu"),
                },
            ),
            paired(f"{mode}: all scored after the load", mode, "drain", "s", scale=1),
        ]
    lock_waits = sum(n for numbers in on.values() for k, n in numbers["waits"].items() if k.startswith("Lock:"))
    results += [
        Result(
            "connections seen waiting on a lock",
            lock_waits,
            "count",
            notes="what the database's connections waited for, sampled every 50 ms",
            extra={
                "worker_on": {mode: numbers["waits"] for mode, numbers in on.items()},
                "previous_worker": {mode: numbers["waits"] for mode, numbers in previous.items()},
                "worker_off": {mode: numbers["waits"] for mode, numbers in off.items()},
            },
        ),
        Result("errors", len(errors), "count", goal="<= 0", extra={"first": errors[:3]}),
        Result(
            "lost saves", lost, "count", goal="<= 0", extra={"saves_answered_200": told_total, "history_rows": history}
        ),
    ]
    return _with_baselines(results)


def _with_baselines(results):
    """Each measure followed, in the printed table, by the same measure with the worker stopped and with the worker
    configured as before (the ratios are in the JSON)."""
    out = []
    for r in results:
        out.append(r)
        for label, title in (("worker_off", "worker stopped"), ("previous_worker", "previous worker")):
            if isinstance(r.extra.get(label), (int, float)):
                out.append(Result(f"  {title}", r.extra[label], r.unit, extra={"of": r.name}))
    return out


def _median(runs):
    """The repeats of one run combined: each number's median, wait samples summed, every repeat's value kept."""
    combined = {}
    for key, value in runs[0].items():
        values = [r[key] for r in runs]
        if key == "waits":
            combined[key] = {}
            for waits in values:
                for what, n in waits.items():
                    combined[key][what] = combined[key].get(what, 0) + n
        elif isinstance(value, dict):
            combined[key] = {k: statistics.median(v[k] for v in values) for k in value}
        else:
            combined[key] = statistics.median(values)
            combined[f"{key} each"] = values
    return combined


def _cpu_times():
    """The machine's CPU counters (Linux /proc/stat), or None elsewhere."""
    try:
        with open("/proc/stat") as f:
            return [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None


def _cpu_share(before, after):
    """Where the machine's CPU time went during the run: commit waits show as iowait, a busy host as steal."""
    if not before or not after:
        return {}
    delta = [b - a for a, b in zip(before, after)]
    total = sum(delta) or 1
    names = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    return {name: round(100 * d / total, 1) for name, d in zip(names, delta)}
