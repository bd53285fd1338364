"""The CPU meter of `benchmarks collection` (issue 32, item 4): a load's CPU per document is read from it, so it
must count the backends a step opens and closes as it goes (a load's workers open one per file) up to their last
work, and count a backend that was there before the step only from the step's start."""

import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from benchmarks.collection import CpuMeter

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _local_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("the meter reads PostgreSQL's backends")
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        if not Path(f"/proc/{cur.fetchone()[0]}/schedstat").exists():
            pytest.skip("the meter reads the backends from /proc: the server must run on this machine")


def _connect():
    db = settings.DATABASES["default"]
    with connection.cursor() as cur:
        cur.execute("SELECT current_database()")
        name = cur.fetchone()[0]
    return psycopg.connect(
        host=db["HOST"], port=db["PORT"] or 5432, user=db["USER"], password=db["PASSWORD"], dbname=name
    )


def _ran(pid):
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


def _burn(conn, seconds):
    """Make the connection's backend run `seconds` of CPU more; returns what it has run in all."""
    pid = conn.info.backend_pid
    target = _ran(pid) + seconds
    while _ran(pid) < target:
        conn.execute("SELECT sum(i) FROM generate_series(1, 100000) AS i").fetchone()
    return _ran(pid)


def test_counts_backends_that_come_and_go_up_to_their_last_work():
    """Eight connections opened, worked 0.15 s of backend CPU each and closed one after another, as a load's
    workers do per file: the meter counts their CPU from their start to their end, less at most READ_EVERY of each
    one's last work (the meter before missed up to 0.1 s of each: a third of this on average)."""
    truth = 0.0
    with CpuMeter() as meter:
        for _ in range(8):
            conn = _connect()
            truth += _burn(conn, 0.15)  # (all it has run, from its start: it opened during the step)
            conn.close()
    assert 0.85 * truth <= meter.backends <= truth + 0.1, (meter.backends, truth)


def test_counts_a_backend_there_before_the_step_from_the_step_on():
    """A connection open before the step (the step's own, or a leftover's) counts only what it runs during the step
    (the meter before counted every backend but this process's own from 0)."""
    conn = _connect()
    try:
        _burn(conn, 0.4)
        with CpuMeter() as meter:
            before = _ran(conn.info.backend_pid)
            during = _burn(conn, 0.3) - before
    finally:
        conn.close()
    assert during - 1e-6 <= meter.backends <= during + 0.1, (meter.backends, during)  # (float sums)


def test_counts_the_child_processes_of_the_step():
    """A child process's CPU (the parsing workers of a load: 0.3 s here, and its start) is counted once the step has
    waited for it; the meter's own thread is not counted as this process's."""
    busy = "import time\nend = time.thread_time() + 0.3\nwhile time.thread_time() < end: pass"
    with CpuMeter() as meter:
        subprocess.run([sys.executable, "-c", busy], check=True)
    assert 0.3 <= meter.workers <= 0.45, meter.workers
    assert meter.python < 0.1, meter.python
