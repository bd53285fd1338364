"""Faults, scripted: assessors keep saving over HTTP while the script kills a Celery worker mid-rescoring, stops
Redis and restarts PostgreSQL; nothing acknowledged may be lost and the scores must catch up.

Set-up: its own PostgreSQL cluster (initdb in a temporary folder, another port) and its own redis-server (another
port), so a restart touches nothing else on the machine; the web server as production runs it; one Celery
worker as in production (a supervisor restarts it when it dies: here, the script). `--fast` (the test suite's
version) shares the local PostgreSQL server instead of starting one, and skips the PostgreSQL restart.

Timeline: warm-up; the worker is SIGKILLed while a rescoring task runs (and restarted 2 s later); Redis is stopped
for `--redis-down` seconds and started again empty (as after a crash with no persistence); every database connection
of the server and the worker is terminated (pg_terminate_backend: a failover, an idle-connection reaper, an
administrator) while saves are in flight; PostgreSQL is restarted (fast shutdown); the assessors go on saving for
`--settle` seconds, then stop.

Reported: saves acknowledged (HTTP 200) and how many of them the database does not hold (a history row with that
version and label, goal 0); the requests in flight while the connections were terminated (until their backends
exited) and how many of them failed (a request caught before it wrote is run again on a new connection,
config.db_retry; one caught mid-write may have committed, so it fails and the page says "Not saved", and the
assessor presses again); what the assessors saw fail (5xx, no answer, version conflicts after an unanswered save
that had in fact been stored), each of which the judging page reports (static/js/save_failures.js), so "silent"
failures are the lost ones; and the seconds from the end of the last fault until every stored score equals a full
rescoring computed afresh (goal <= 30), with no stale marks left; and whether the restarted worker exited by
itself (goal: never; Celery's own consumer did when Redis went away while it held a task:
config/celery_consumer.py). Every wait of the script (a port, the worker's first answer, the scores catching up)
stretches with the machine's load (config.patience), so a busy machine makes the figures worse, never the run fail.
"""

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from glob import glob
from pathlib import Path

from benchmarks import production
from benchmarks.harness import Result, setup_django
from benchmarks.production import free_port, session_for
from benchmarks.raw_client import LABELS, VERSION, Client
from config.patience import Deadline, scaled
from config.worker import stop_worker

ROOT = Path(__file__).resolve().parent.parent
CURRENT = re.compile(rb'name="label" value="([^"]+)"[^>]*class="label-btn current"')


def add_arguments(parser):
    parser.add_argument("--clients", type=int, default=20, help="simulated assessors")
    parser.add_argument("--runs", type=int, default=8, help="runs, each answering every question (pool items)")
    parser.add_argument("--think", type=float, default=0.05, help="seconds each assessor waits between saves")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--redis-down", type=float, default=30.0, help="seconds Redis stays stopped")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds of saving after the last fault")
    parser.add_argument("--converge-timeout", type=float, default=120.0)
    parser.add_argument("--fast", action="store_true", help="the test suite's version: no PostgreSQL restart")


# ---------------------------------------------------------------- private services


class Redis:
    def __init__(self):
        self.port = free_port(outside_ephemeral=True)  # (restarted on the same port)
        self.proc = None

    def start(self):
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port)
        # something answers: this server, not another process that took the port while Redis was down
        if self.proc.poll() is not None or not _answers_ping(self.port):
            raise RuntimeError(f"redis-server did not start on port {self.port} (status {self.proc.poll()})")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=scaled(10))

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"


class Postgres:
    """A throwaway cluster owned by the postgres user (the server refuses to run as root)."""

    def __init__(self):
        bins = sorted(glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        if not bins:
            raise RuntimeError("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
        self.bin = Path(bins[-1]).parent
        self.dir = Path(tempfile.mkdtemp(prefix="assay-faults-pg-"))
        self.port = free_port(outside_ephemeral=True)  # (restarted on the same port)
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")

    def _ctl(self, *args):
        subprocess.run(
            [
                *self.as_user,
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.dir / "data"),
                "-w",
                "-l",
                str(self.dir / "log"),
                *args,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def start(self):
        subprocess.run(
            [*self.as_user, str(self.bin / "initdb"), "-D", str(self.dir / "data"), "-U", "postgres", "-A", "trust"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self._ctl("-o", options, "start")

    def restart(self):
        self._ctl("-m", "fast", "restart")

    def stop(self):
        try:
            self._ctl("-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def url(self):
        return f"postgresql://postgres@127.0.0.1:{self.port}"


def _answers_ping(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=scaled(5)) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _wait_port(port, timeout=30):
    deadline = Deadline(timeout)
    while not deadline.passed():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing answers on port {port}")


# ---------------------------------------------------------------- data


def build_data(n_clients, n_runs):
    """A TREC 2007 evaluation: one series with one factoid question per assessor; `n_runs` runs of as many teams
    each answer every question with an answer of its own (one pool item each), so every save changes scores."""
    from django.contrib.auth.models import Group, User

    from accounts.models import Team
    from assess.models import Assignment
    from pooling.models import Evaluation, PoolItem, Run, RunEntry, Topic

    evaluation = Evaluation.objects.create(slug="bench-faults", title="Faults benchmark", track="trec2007-qa")
    runs = [
        Run.objects.create(evaluation=evaluation, team=Team.objects.create(name=f"Team {r}"), tag=f"run{r}", priority=1)
        for r in range(n_runs)
    ]
    group, _ = Group.objects.get_or_create(name="assessor")
    clients = []
    for c in range(n_clients):
        user = User.objects.create(username=f"faults{c:03d}")
        user.set_unusable_password()
        user.save()
        user.groups.add(group)
        series = Topic.objects.create(evaluation=evaluation, ident=str(c + 1), kind="series", position=2 * c)
        question = Topic.objects.create(
            evaluation=evaluation, parent=series, ident=f"{c + 1}.1", kind="FACTOID", text="Who?", position=2 * c + 1
        )
        Assignment.objects.create(evaluation=evaluation, topic=series, assessor=user)
        items = []
        for r, run in enumerate(runs):
            entry = RunEntry.objects.create(run=run, topic=question, line_no=c + 1, docid=f"D{c}-{r}", text=f"a{r}")
            item = PoolItem.objects.create(
                evaluation=evaluation,
                topic=question,
                key=f"D{c}-{r}\ta{r}",
                docid=f"D{c}-{r}",
                text=f"a{r}",
                position=r,
            )
            item.sources.add(entry)
            items.append(item.pk)
        clients.append((session_for(user), items))
    return evaluation, clients


# ---------------------------------------------------------------- assessors


class Assessor(Client):
    """A judging page's behaviour: after a failure the assessor presses again; a 409 shows the current judgment,
    which the page then holds. Every acknowledged save is remembered as (item, version, label)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.acknowledged = []
        self.failures = {"server": 0, "no answer": 0, "conflict": 0}
        self.in_flight = False  # a request sent and not yet answered
        # set while the database connections are being terminated: a request sent then is watched too
        self.exposed = False
        self.exposed_requests = 0  # requests sent while `exposed`
        self.watched = False  # the request in flight was there while the database connections were terminated
        self.watched_outcomes = []  # "ok", or the failure, of each watched request
        self.first_ok = None  # time.monotonic() of the first save answered 200

    async def save(self, started=None):
        item = self.items[self.turn % len(self.items)]
        label, version = self.told.get(item, (None, 0))
        new = LABELS[(LABELS.index(label) + 1) % len(LABELS)] if label else LABELS[0]
        payload = self._request(item, f"label={new}&version={version}")
        self.turn += 1
        outcome = await self._send(item, new, payload)
        if outcome != "ok":
            self.failures[outcome] += 1
        if self.watched:
            self.watched_outcomes.append(outcome)
            self.watched = False

    async def _send(self, item, new, payload):
        self.in_flight = True
        if self.exposed:  # (read after in_flight is set: _terminate_connections sets them the other way round)
            self.watched = True
            self.exposed_requests += 1
        try:
            status, content, keep = await asyncio.wait_for(self._exchange(payload), timeout=30)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            self._drop()
            self.turn -= 1  # the same item again, as the assessor presses again
            return "no answer"
        finally:
            self.in_flight = False
        if not keep:
            self._drop()
        m = VERSION.search(content)
        if status == 409 and m:
            current = CURRENT.search(content)
            self.told[item] = (current.group(1).decode() if current else None, int(m.group(1)))
            return "conflict"
        if status != 200 or not m:
            self.turn -= 1
            return "server"
        self.told[item] = (new, int(m.group(1)))
        self.acknowledged.append((item, int(m.group(1)), new))
        self.saves += 1
        self.first_ok = self.first_ok or time.monotonic()
        return "ok"


def judging(assessors, stop, think):
    async def main():
        async def work(a):
            while not stop.is_set():
                await a.save()
                await asyncio.sleep(think)
            a.close()

        await asyncio.gather(*(work(a) for a in assessors))

    asyncio.run(main())


def lost_saves(assessors):
    """Acknowledged saves with no history row of that version and label."""
    from assess.models import JudgmentChange

    history = set(
        (item, version, (after or {}).get("label"))
        for item, version, after in JudgmentChange.objects.filter(
            judgment__evaluation__slug="bench-faults"
        ).values_list("judgment__item_id", "version", "after")
    )
    acknowledged = [s for a in assessors for s in a.acknowledged]
    return sum(1 for s in acknowledged if s not in history), len(acknowledged)


# ---------------------------------------------------------------- scores


def scores_match_full_rescoring(evaluation_id):
    """(every stored score equals a full rescoring computed now, and no stale marks remain)."""
    from django.db import connection

    from core import extension_points as ep
    from pooling.models import Evaluation, StaleTopic
    from scoring.models import Score

    try:
        if StaleTopic.objects.filter(evaluation_id=evaluation_id).exists():
            return False
        evaluation = Evaluation.objects.get(pk=evaluation_id)
        expected = {
            (r.run_id, r.scope, r.topic_id, r.measure): r.value
            for r in ep.scorer.require(evaluation.track)(evaluation, None).rows
        }
        stored = dict(
            ((run, scope, topic, measure), value)
            for run, scope, topic, measure, value in Score.objects.filter(run__evaluation_id=evaluation_id).values_list(
                "run_id", "scope", "topic_id", "measure", "value"
            )
        )
        return stored == expected
    except Exception:  # the database restarting under us: not yet
        connection.close()
        return False


# ---------------------------------------------------------------- the run


def _terminate_connections(database, assessors, timeout=20.0):
    """Terminate every connection to `database` but this process's own, at a moment when saves are in flight
    (waits up to `timeout` for one); the number of requests exposed: in flight when the termination is sent, or
    sent before every terminated backend has exited (a backend ends when it next looks at its signals, and a
    request that began meanwhile may have read on its connection and then lose it writing). Those requests are
    watched: each one's outcome lands in its assessor's `watched_outcomes`. A request sent after the backends
    exited finds its connection closed before its first statement and opens another (config/postgresql/base.py)."""
    from django.db import connection

    connection.ensure_connection()  # connecting now would widen the gap between the chosen moment and the kill
    deadline = Deadline(timeout)
    while not any(a.in_flight for a in assessors) and not deadline.passed():
        time.sleep(0.001)
    # exposed first, in_flight read after: a request either is seen in flight here or sees `exposed` (_send)
    for a in assessors:
        a.exposed = True
    flying = [a for a in assessors if a.in_flight]
    for a in flying:
        a.watched = True
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT array_agg(pid) FILTER (WHERE done) FROM (SELECT pid, pg_terminate_backend(pid) AS done"
                " FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()) AS killed",
                [database],
            )
            pids = cursor.fetchone()[0] or []
            # until they have exited (pg_terminate_backend's own wait looks every 100 ms: a wider window than needed)
            exiting = Deadline(10)
            while pids and not exiting.passed():
                cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", [pids])
                if not cursor.fetchone()[0]:
                    break
                time.sleep(0.002)
    finally:
        for a in assessors:
            a.exposed = False
    return len(flying) + sum(a.exposed_requests for a in assessors)


def _kill_worker_mid_rescoring(worker, redis, timeout=20.0):
    """SIGKILL the worker once it holds a task it has not acknowledged (tasks are acknowledged late, and it takes
    one at a time: it is rescoring), or after `timeout`; True if it was caught mid-task. (A solo worker answers no
    control command while it runs a task, so Redis is asked instead.)"""
    import redis as redis_client

    client = redis_client.Redis.from_url(redis.url)
    deadline = Deadline(timeout)
    busy = False
    while not deadline.passed():
        if client.hlen("unacked"):
            busy = True
            break
        time.sleep(0.01)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    client.close()
    return busy


def _took_a_task(redis):
    """Whether a worker started now has taken a task: a delivery the broker holds unacknowledged that was not there
    before (the killed worker's stays there). Its ping comes only between tasks, and while saves keep coming one
    rescoring task makes pass after pass (scoring.tasks.rescore_stale: up to half the visibility timeout)."""
    import redis as redis_client

    client = redis_client.Redis.from_url(redis.url)
    before = set(client.hkeys("unacked"))
    return lambda: bool(set(client.hkeys("unacked")) - before)


def run(args):
    load_before = os.getloadavg()[0]
    redis = Redis()
    redis.start()
    postgres = None
    if not args.fast:
        postgres = Postgres()
        postgres.start()
        os.environ["BENCH_PG_URL"] = postgres.url
    database = f"assay_bench_faults_{uuid.uuid4().hex[:6]}" if args.fast else "assay_bench_faults"
    queue = f"assay-faults-{uuid.uuid4().hex[:8]}"
    # before Django reads its settings: this process's Celery app talks to the private Redis and queue
    os.environ.update(CELERY_BROKER_URL=redis.url, CELERY_RESULT_BACKEND="", CELERY_QUEUE=queue)
    server = worker = None
    assessors = []
    server_log = worker_log = None
    try:
        setup_django(database)
        from django.db import connection

        from config.celery import app
        from config.worker import start_worker

        evaluation, sessions = build_data(args.clients, args.runs)
        connection.close()
        env = production.environment(
            redis.url, queue, CELERY_RESULT_BACKEND="", DATABASE_URL=os.environ["DATABASE_URL"]
        )
        port = free_port()
        # the server's log (a stopped Redis is logged at every save) goes to a file, out of the report
        server_log = Path(tempfile.gettempdir()) / f"{queue}-web.log"
        with open(server_log, "w") as out:  # (the server keeps its own copy of the descriptor)
            server = production.start_server(env, port, log=out)
        node = f"{queue}@localhost"
        # the workers' log too (both workers, one after the other): what a run whose scores never caught up shows
        worker_log = Path(tempfile.gettempdir()) / f"{queue}-worker.log"
        with open(worker_log, "w") as out:
            worker = start_worker(queue, env, app, node=node, loglevel="INFO", log=out)

        assessors = [Assessor(port, key, items) for key, items in sessions]
        stop = threading.Event()
        load = threading.Thread(target=judging, args=(assessors, stop, args.think))
        load.start()
        timeline = {}
        t0 = time.monotonic()
        time.sleep(args.warmup)

        timeline["worker killed"] = time.monotonic() - t0
        killed_mid_task = _kill_worker_mid_rescoring(worker, redis)
        timeline["worker caught"] = time.monotonic() - t0
        time.sleep(2)
        with open(worker_log, "a") as out:
            worker = start_worker(queue, env, app, node=node, loglevel="INFO", busy=_took_a_task(redis), log=out)
        timeline["worker back"] = time.monotonic() - t0

        timeline["redis stopped"] = time.monotonic() - t0
        redis.stop()
        time.sleep(args.redis_down)
        redis.start()
        timeline["redis back"] = time.monotonic() - t0

        time.sleep(1)
        timeline["connections terminated"] = time.monotonic() - t0
        in_flight_at_kill = _terminate_connections(connection.settings_dict["NAME"], assessors)

        if postgres is not None:
            timeline["postgres restart"] = time.monotonic() - t0
            postgres.restart()
            timeline["postgres back"] = time.monotonic() - t0
        recovered = time.monotonic()

        time.sleep(args.settle)
        stop.set()
        load.join()

        connection.close()
        converged = None
        catching_up = Deadline(args.converge_timeout)
        while not catching_up.passed():
            if scores_match_full_rescoring(evaluation.pk):
                converged = time.monotonic() - recovered
                break
            if worker.poll() is not None:
                break  # nothing left to catch up with (reported below: "worker exited by itself")
            time.sleep(0.5)
        lost, acknowledged = lost_saves(assessors)
        exit_status = worker.poll()  # None: still running, as it should after every fault
    finally:
        if worker is not None:
            stop_worker(worker)
        if server is not None:
            production.stop(server)
        redis.stop()
        from django.db import connections

        connections.close_all()
        if args.fast:
            _drop_database(database)
        if postgres is not None:
            postgres.stop()

    firsts = [a.first_ok for a in assessors if a.first_ok]
    if firsts:
        timeline["first save answered"] = min(firsts) - t0
    failures = {k: sum(a.failures[k] for a in assessors) for k in assessors[0].failures}
    watched = [o for a in assessors for o in a.watched_outcomes]
    extra = {"load_average_before": load_before, "load_average_after": os.getloadavg()[0], "cpus": os.cpu_count()}
    return [
        Result(
            "saves acknowledged",
            acknowledged,
            "count",
            extra=extra | {"timeline_s": timeline, "server_log": str(server_log), "worker_log": str(worker_log)},
        ),
        Result("acknowledged saves lost", lost, "count", goal="<= 0"),
        Result("failures shown (5xx)", failures["server"], "count", notes="the page says 'Not saved', press again"),
        Result("failures shown (no answer)", failures["no answer"], "count", notes="the page says 'Not saved'"),
        Result("version conflicts (409)", failures["conflict"], "count", notes="the page shows the stored judgment"),
        Result("worker killed mid-rescoring", float(killed_mid_task), "yes=1"),
        Result(
            "worker exited by itself",
            float(exit_status is not None),
            "yes=1",
            goal="<= 0",
            notes=f"exit status {exit_status}" if exit_status is not None else "it rode out every fault",
        ),
        Result(
            "requests in flight at a connection kill",
            in_flight_at_kill,
            "count",
            notes="sent before the connections' backends had exited",
        ),
        Result(
            "of them failed",
            sum(1 for o in watched if o in ("server", "no answer")),
            "count",
            notes=f"caught mid-write: the page says 'Not saved' ({len(watched)} answered before the end)",
        ),
        Result(
            "seconds to scores = full rescoring",
            converged if converged is not None else float("inf"),
            "s",
            goal="<= 30",
            notes="from the end of the last fault",
        ),
    ]


def _drop_database(name):
    import psycopg

    server = os.environ.get("BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432")
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
