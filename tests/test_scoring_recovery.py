"""Rescoring recovers without a later save: the workers' periodic sweep, a visibility timeout that fits the tasks,
and a rescoring queue that stays bounded however long its tasks wait.

The tests that restart Redis or lower the visibility timeout run their workers on a private redis-server: the
unacknowledged-message index is shared by everything on one Redis, so a worker with a 2-second timeout on the
shared one would hand other sessions' running tasks out a second time."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection, transaction

from assess.models import Judgment
from config import patience
from config import worker as worker_process
from pooling.models import StaleTopic
from scoring.models import Score, ScoringState
from scoring.rescore import rescore_evaluation
from tests.conftest import ROOT, _database_url_for
from tracks.qa.synthetic import tiny_trec2007


def _value(run, topic):
    s = Score.objects.filter(run=run, scope="question", topic=topic, measure="score").first()
    return s.value if s else None


def _judge(t, label):
    """A committed judgment and its stale mark, with the rescoring request lost (as when Redis came back empty)."""
    from pooling import staleness

    j = Judgment.objects.get(item=t["items"]["f1"], kind="instance")
    real = staleness.request_rescoring
    staleness.request_rescoring = lambda evaluation_id: None
    try:
        with transaction.atomic():
            j.value = {"label": label, "answer_class": None}
            j.version += 1
            j.save()
            staleness.mark_stale(t["q"]["217.1"])
    finally:
        staleness.request_rescoring = real


def _wait_for(condition, seconds, message):
    assert patience.wait_until(condition, seconds), message


class PrivateRedis:
    """A throw-away redis-server without persistence: stopping and starting it is "Redis came back empty"."""

    def __init__(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = None
        self.start()

    def start(self):
        import redis

        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        _wait_for(lambda: self._pings(client), 20, "redis-server did not start")
        self.client = client

    @staticmethod
    def _pings(client):
        import redis

        try:
            return client.ping()
        except redis.ConnectionError:
            return False

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=patience.scaled(10))


@pytest.fixture
def private_redis():
    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server to run a private Redis")
    server = PrivateRedis()
    yield server
    server.stop()


@pytest.fixture
def start_worker(transactional_db, private_redis):
    """start_worker(**env) -> a `celery worker` process on the private Redis and its own queue, reading the test
    database (as tests/conftest.py's celery_worker, but with settings of the test's choosing)."""
    from celery import Celery

    database_url = _database_url_for(connection.settings_dict)
    if database_url is None:
        pytest.skip("the worker tests need PostgreSQL")
    queue = f"assay-test-{uuid.uuid4().hex[:8]}"
    control = Celery("assay-test-control", set_as_current=False)  # (shared tasks must keep resolving to ours)
    # (broker_url itself would give way to the CELERY_BROKER_URL in the environment: the shared Redis)
    control.conf.broker_read_url = control.conf.broker_write_url = private_redis.url
    started = []

    def start(**extra_env):
        node = f"{queue}-{len(started)}@localhost"
        env = dict(
            os.environ,
            DATABASE_URL=database_url,
            CELERY_BROKER_URL=private_redis.url,
            CELERY_QUEUE=queue,
            CELERY_TASK_ALWAYS_EAGER="0",
            **extra_env,
        )
        env.pop("TEST_DATABASE_NAME", None)
        env.pop("CELERY_RESULT_BACKEND", None)
        log = Path(tempfile.gettempdir()) / f"{queue}-{len(started)}.log"
        with open(log, "w") as out:  # (the worker keeps its own copy of the file descriptor)
            proc = worker_process.start_worker(queue, env, control, node=node, log=out)
        started.append(proc)
        return {"process": proc, "queue": queue, "node": node, "control": control, "log": log}

    yield start
    for n, proc in enumerate(started):
        worker_process.stop_worker(proc)
        Path(tempfile.gettempdir(), f"{queue}-{n}.log").unlink(missing_ok=True)


# --- 1. the periodic sweep --------------------------------------------------------------------------------------


@pytest.mark.worker
def test_worker_sweeps_stale_marks_without_a_save_even_after_redis_came_back_empty(private_redis, start_worker):
    t = tiny_trec2007(slug="sweep-live")
    rescore_evaluation(t["evaluation"].id)
    assert _value(t["runA"], t["q"]["217.1"]) == 0.0
    worker = start_worker(SCORING_SWEEP_SECONDS="1")  # (its start-up sweep finds nothing stale yet)

    # Marks present, no claim, nothing queued: only a sweep can find them.
    _judge(t, "globally-correct")
    assert StaleTopic.objects.filter(evaluation=t["evaluation"]).exists()
    started = time.monotonic()
    _wait_for(lambda: _value(t["runA"], t["q"]["217.1"]) == 1.0, 60, "the periodic sweep did not rescore")
    print(f"\nrescored by the sweep {time.monotonic() - started:.1f} s after the save")

    # Redis restarts with nothing in it (no persistence) while the worker runs; no save follows.
    private_redis.stop()
    _judge(t, "incorrect")
    private_redis.start()
    started = time.monotonic()
    exited = lambda: worker["process"].poll() is not None  # noqa: E731
    _wait_for(
        lambda: _value(t["runA"], t["q"]["217.1"]) == 0.0 or exited(),
        90,
        "the sweep did not rescore after Redis came back empty",
    )
    # (Celery's own consumer could exit here: config/celery_consumer.py, and the test below)
    assert not exited(), f"the worker exited ({worker['process'].returncode}); its log ends:\n{_tail(worker['log'])}"
    print(f"rescored {time.monotonic() - started:.1f} s after Redis came back empty")
    _wait_for(lambda: not StaleTopic.objects.filter(evaluation=t["evaluation"]).exists(), 30, "marks left")


@pytest.mark.worker
def test_a_worker_holding_a_task_goes_on_after_redis_restarts(private_redis, start_worker):
    """A worker nearly always holds a message unacknowledged: the agreement and rankings refreshes wait for their
    due time as countdown tasks. Celery's own consumer exited when Redis went away then ("Unrecoverable error:
    AttributeError ... 'hostname'" as it closed the lost connection, seen in CI); the project's consumer
    (config/celery_consumer.py) reconnects and goes on taking tasks."""
    import redis

    worker = start_worker(SCORING_SWEEP_SECONDS="0")
    control, node = worker["control"], worker["node"]
    control.send_task("assay.ping", countdown=600, queue=worker["queue"])
    broker = redis.Redis.from_url(private_redis.url)
    _wait_for(lambda: broker.hlen("unacked") == 1, 30, "the worker did not take the countdown task")

    private_redis.stop()
    private_redis.start()
    exited = lambda: worker["process"].poll() is not None  # noqa: E731
    _wait_for(lambda: exited() or worker_process._pings(control, node), 60, "the worker neither answered nor exited")
    assert not exited(), f"the worker exited ({worker['process'].returncode}); its log ends:\n{_tail(worker['log'])}"
    control.send_task("assay.ping", args=("after",), queue=worker["queue"], ignore_result=True)
    broker = redis.Redis.from_url(private_redis.url)  # (a client of the Redis started again)
    _wait_for(lambda: not broker.llen(worker["queue"]), 60, "no task taken after")
    # if this fails, kombu no longer fails there, and config/celery_consumer.py may go
    assert "could not be closed" in Path(worker["log"]).read_text(errors="replace"), "the case was not exercised"


def _tail(path, lines=60):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(no log kept)"


# --- 2. a bounded queue -----------------------------------------------------------------------------------------


@pytest.fixture
def own_queue(settings):
    """Tasks published to a queue no worker reads (the worker is stopped), on the shared Redis; only this queue's
    keys and its pending claims are deleted afterwards."""
    import redis

    from config.celery import app

    if not settings.CELERY_BROKER_URL:
        pytest.skip("CELERY_BROKER_URL is not set: this test counts messages in Redis")
    queue = f"assay-test-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    saved = (app.conf.task_default_queue, app.conf.task_always_eager)
    app.conf.task_default_queue, app.conf.task_always_eager = queue, False
    try:
        yield {"queue": queue, "redis": client}
    finally:
        app.conf.task_default_queue, app.conf.task_always_eager = saved
        keys = [queue, *client.scan_iter(f"assay:scoring:pending:{queue}:*")]
        client.delete(*keys)


RESCORE = "scoring.rescore_stale"


def _rescoring_tasks(r, queue):
    """The queue's rescoring task messages (a full rescoring also queues a rankings refresh, which is not one)."""
    return [m for m in r.lrange(queue, 0, -1) if json.loads(m)["headers"]["task"] == RESCORE]


def _take_rescoring_task(r, queue):
    waiting = _rescoring_tasks(r, queue)
    return bool(waiting) and r.lrem(queue, -1, waiting[-1]) == 1


@pytest.mark.worker
def test_saves_and_sweeps_while_the_worker_is_stopped_or_busy_queue_one_task(transactional_db, own_queue):
    from core import rescoring_claims as pending
    from pooling.staleness import mark_stale, wait_for_publisher
    from scoring import rescore, tasks

    queue, r = own_queue["queue"], own_queue["redis"]
    t = tiny_trec2007(slug="bounded-queue")
    ev = t["evaluation"]
    rescore_evaluation(ev.id)

    # Worker stopped: 40 saves, each published on its own, and sweeps on top of them.
    for _ in range(40):
        mark_stale(t["q"]["217.1"])
        assert wait_for_publisher(timeout=patience.scaled(30))
    assert tasks.sweep_stale.run() == []  # coalesced: the waiting task will read the marks
    assert len(_rescoring_tasks(r, queue)) == 1
    # The claim lasts until the task starts, not 30 s: a task waiting longer than that still stands for every
    # save after it (the old TTL let each save after 30 s queue one more task).
    assert r.ttl(pending._key(ev.id)) > 120

    # Worker busy: it takes the task, and 10 saves arrive during each of its first 5 passes.
    assert _take_rescoring_task(r, queue)
    real = rescore.rescore_stale_topics
    passes = []

    def pass_with_saves_arriving(evaluation_id):
        done = real(evaluation_id)
        passes.append(done)
        if len(passes) <= 5:
            for _ in range(10):
                mark_stale(t["q"]["217.2"])
                assert wait_for_publisher(timeout=patience.scaled(30))
        return done

    rescore.rescore_stale_topics = pass_with_saves_arriving
    try:
        tasks.rescore_stale.run(ev.id)
    finally:
        rescore.rescore_stale_topics = real
    assert len(passes) == 6
    assert len(_rescoring_tasks(r, queue)) == 1, (
        "every pass gave the waiting task's claim back and let one more task queue"
    )
    # The waiting task finds the marks already handled and exits at once.
    assert _take_rescoring_task(r, queue)
    assert tasks.rescore_stale.run(ev.id) == 0

    # A claim that vanished with Redis's data is never a reason to skip: the sweep queues again.
    mark_stale(t["q"]["216.1"])
    assert wait_for_publisher(timeout=patience.scaled(30))
    r.delete(queue, pending._key(ev.id))
    assert tasks.sweep_stale.run() == [ev.id]
    assert len(_rescoring_tasks(r, queue)) == 1


# --- 3. settings ------------------------------------------------------------------------------------------------


def test_visibility_timeout_and_sweep_interval_are_settings(settings):
    from config.celery import app

    timeout = app.conf.broker_transport_options["visibility_timeout"]
    assert timeout == settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert 60 <= timeout < 3600  # Redis's own default, one hour, is what left killed workers' tasks away
    assert settings.SCORING_SWEEP_SECONDS > 0
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "from config.celery import app; from django.conf import settings; "
                "print(app.conf.broker_transport_options['visibility_timeout'], "
                "settings.SCORING_SWEEP_SECONDS)"
            ),
        ],
        cwd=ROOT,
        env=dict(os.environ, CELERY_VISIBILITY_TIMEOUT="42", SCORING_SWEEP_SECONDS="7"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == ["42", "7"]


def test_a_task_stops_passing_before_the_visibility_timeout(db, monkeypatch):
    """A task still running when the timeout passes would be delivered a second time, so it leaves further passes
    to the task the new marks queued."""
    from config.celery import app
    from core import rescoring_claims as pending
    from pooling.staleness import mark_stale
    from scoring import rescore, tasks

    t = tiny_trec2007()
    rescore_evaluation(t["evaluation"].id)
    monkeypatch.setattr(pending, "release", lambda evaluation_id: None)
    real = rescore.rescore_stale_topics

    def pass_with_a_save_arriving(evaluation_id):
        done = real(evaluation_id)
        mark_stale(t["q"]["217.2"])  # (on_commit never runs inside the test's transaction: nothing is queued)
        return done

    monkeypatch.setattr(rescore, "rescore_stale_topics", pass_with_a_save_arriving)
    mark_stale(t["q"]["216.1"])
    saved = app.conf.broker_transport_options, app.conf.task_always_eager
    app.conf.broker_transport_options, app.conf.task_always_eager = {"visibility_timeout": 0}, False
    try:
        assert tasks.rescore_stale.run(t["evaluation"].id) == 1
    finally:
        app.conf.broker_transport_options, app.conf.task_always_eager = saved
    assert StaleTopic.objects.filter(topic=t["q"]["217.2"]).exists()  # left for the next task


# --- 4. a killed worker's task comes back -----------------------------------------------------------------------


@pytest.mark.worker
def test_a_killed_workers_task_is_delivered_again_after_the_visibility_timeout(private_redis, start_worker):
    import psycopg

    t = tiny_trec2007(slug="killed-worker")
    ev = t["evaluation"]
    ScoringState.objects.get_or_create(evaluation=ev)
    worker = start_worker(CELERY_VISIBILITY_TIMEOUT="2", SCORING_SWEEP_SECONDS="0")
    url = _database_url_for(connection.settings_dict)
    # Hold the evaluation's scoring lock so the worker's full rescoring is caught mid-task.
    with psycopg.connect(url) as lock, psycopg.connect(url, autocommit=True) as watch:
        lock.execute("SELECT 1 FROM scoring_scoringstate WHERE evaluation_id = %s FOR UPDATE", [ev.id])
        worker["control"].send_task("scoring.rescore_evaluation", args=[ev.id], queue=worker["queue"])
        _wait_for(lambda: private_redis.client.hlen("unacked") == 1, 60, "the worker did not take the task")
        _wait_for(
            lambda: (
                watch.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock'"
                ).fetchone()[0]
                >= 1
            ),
            60,
            "the task did not reach the lock",
        )
        worker["process"].send_signal(signal.SIGKILL)
        worker["process"].wait(timeout=patience.scaled(10))
        lock.rollback()
    assert ScoringState.objects.get(evaluation=ev).full_rescore_at is None
    time.sleep(2.5)  # past the visibility timeout
    killed_at = time.monotonic()
    start_worker(CELERY_VISIBILITY_TIMEOUT="2", SCORING_SWEEP_SECONDS="0")
    _wait_for(
        lambda: ScoringState.objects.get(evaluation=ev).full_rescore_at is not None,
        60,
        "the killed worker's task was not delivered again",
    )
    print(f"\ndelivered again and done {time.monotonic() - killed_at:.1f} s after the timeout passed")


# --- 4. faults, scripted ----------------------------------------------------------------------------------------


@pytest.mark.worker
def test_faults_benchmark_fast_version_loses_nothing_and_converges(tmp_path):
    """`python -m benchmarks faults --fast`: assessors save over HTTP to the web server while a worker is killed in the
    middle of a rescoring and Redis is stopped; every acknowledged save is stored, a stopped Redis fails no save,
    and the scores equal a full rescoring soon after. (The full version also restarts its own PostgreSQL.)"""
    import json

    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server to run a private Redis")
    env = dict(os.environ, BENCH_RESULTS_DIR=str(tmp_path))
    env.pop("TEST_DATABASE_NAME", None)
    argv = [sys.executable, "-m", "benchmarks", "faults", "--fast", "--clients", "4", "--runs", "3"]
    argv += ["--warmup", "1", "--redis-down", "3", "--settle", "2"]
    done = patience.run(argv, 300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    results = {r["name"]: r for r in json.loads((tmp_path / "faults.json").read_text())["results"]}
    assert results["saves acknowledged"]["value"] > 0
    assert results["acknowledged saves lost"]["value"] == 0
    # Redis away: saves go on, scores wait. The one 5xx a save may show is from the database connections terminated
    # while it was writing (the page says "Not saved"; one caught before it wrote is run again: config.db_retry);
    # "of them" are the saves sent before the terminated backends had exited, not only those in flight at the kill
    assert results["failures shown (5xx)"]["value"] <= results["of them failed"]["value"]
    assert results["worker killed mid-rescoring"]["value"] == 1
    extra = results["saves acknowledged"]["extra"]
    log = Path(extra["worker_log"]).read_text(errors="replace")[-4000:] if extra.get("worker_log") else ""
    # the restarted worker rode out Redis's restart and the terminated connections (config/celery_consumer.py)
    assert results["worker exited by itself"]["value"] == 0, (results["worker exited by itself"]["notes"], log)
    # the scores caught up (how fast is the benchmark's figure, not a test's: the machine may be busy); if not, the
    # workers' log says what they were doing
    assert results["seconds to scores = full rescoring"]["value"] < float("inf"), (extra.get("timeline_s"), log)
