"""The Label Studio pairing's CPU meter (benchmarks/peer/meter.py, issue 32): CPU per save is its headline, so it
must count a server's child that burns CPU and exits inside the window (Label Studio's backend per request,
Assay's connection renewed after CONN_MAX_AGE, a worker's child) as well as live ones, and count only the
PostgreSQL backends of the benchmark's database."""

import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from benchmarks.peer import meter

# A server stand-in: on a line from its input, runs a child that burns CPU in its main thread and in a second one
# and exits, then prints the child's CPU seconds (all of it: CLOCK_PROCESS_CPUTIME_ID, nanoseconds)
BURNER = """
import threading, time
def burn(s):
    t = time.thread_time()
    while time.thread_time() - t < s:
        pass
t = threading.Thread(target=burn, args=(0.15,))
t.start()
burn(0.15)
t.join()
print(time.process_time())
"""
SERVER = f"""
import subprocess, sys
sys.stdin.readline()
print(subprocess.run([sys.executable, "-c", {BURNER!r}], capture_output=True, text=True).stdout.strip(), flush=True)
sys.stdin.readline()
"""


@pytest.mark.parametrize("exits", ["taskstats", "reaped"])
def test_counts_a_child_that_burns_and_exits_within_the_window(exits):
    """The child is never seen by a scan (trees are rescanned every 100 s here): taskstats attributes it, and its
    thread, by its parent; without taskstats its CPU is in its parent's reaped-children times. The old scripts'
    meter read /proc/PID/stat of live processes only and counted 0 of it."""
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdin and server.stdout
    try:
        m = meter.Meter({"server": meter.Tree(server.pid)}, exits=exits)
        if m.exits != exits:
            pytest.skip("taskstats needs CAP_NET_ADMIN")
        m.TREE_EVERY = 100
        with m:
            before = m.snapshot()["server"]
            server.stdin.write("\n")
            server.stdin.flush()
            truth = float(server.stdout.readline())
            time.sleep(0.3)  # (the exit report's way through netlink)
            counted = m.snapshot()["server"] - before
        assert truth > 0.3
        assert 0.85 * truth <= counted <= truth + 0.1, (counted, truth)
    finally:
        server.stdin.close()
        server.wait(10)


def test_counts_live_threads_from_the_window_start():
    """A live process's threads are counted from the window's start, in nanoseconds (schedstat)."""
    code = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass\ninput()"
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, text=True)
    assert proc.stdin
    try:
        time.sleep(0.1)
        with meter.Meter({"p": meter.Tree(proc.pid)}) as m:
            before = m.snapshot()["p"]
            ran_before = meter.schedstat_ns(proc.pid) / 1e9
            time.sleep(0.6)
            counted = m.snapshot()["p"] - before
            truth = meter.schedstat_ns(proc.pid) / 1e9 - ran_before
        assert counted == pytest.approx(truth, abs=0.02)
    finally:
        proc.stdin.close()
        proc.wait(10)


@pytest.mark.parametrize(
    "title, found",
    [
        ("postgres: 15/main: perf_ls perf_ls 127.0.0.1(50312) idle", ("perf_ls", "perf_ls")),
        ("postgres: postgres perf_assay 127.0.0.1(50312) INSERT", ("postgres", "perf_assay")),
        ("postgres: 15/main: postgres perf_assay [local] idle", ("postgres", "perf_assay")),
        ("postgres: 15/main: autovacuum worker perf_assay", ("", "perf_assay")),
        ("postgres: 15/main: checkpointer", None),
        ("postgres: 15/main: logical replication launcher", None),
        ("/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main", ""),  # (forked, title not set)
    ],
)
def test_reads_the_database_from_a_backends_title(title, found):
    assert meter.backend_database(title) == found


@pytest.mark.django_db
def test_counts_this_databases_backends_that_exit_and_no_other():
    """Backends of the test database that burn CPU and disconnect are counted (from their taskstats exit
    reports), a backend of another database burning as much is not."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's backends")
    db = settings.DATABASES["default"]
    name = connection.settings_dict["NAME"]

    def connect(dbname):
        return psycopg.connect(
            host=db["HOST"], port=db["PORT"] or 5432, user=db["USER"], password=db["PASSWORD"], dbname=dbname
        )

    def burn(conn, seconds):
        pid = conn.info.backend_pid
        target = meter.schedstat_ns(pid) / 1e9 + seconds
        while meter.schedstat_ns(pid) / 1e9 < target:
            conn.execute("SELECT sum(i) FROM generate_series(1, 100000) AS i").fetchone()
        return meter.schedstat_ns(pid) / 1e9

    probe = connect(name)
    pid = probe.info.backend_pid
    if not Path(f"/proc/{pid}/schedstat").exists():
        pytest.skip("the meter reads the backends from /proc: the server must run on this machine")
    postmaster = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    probe.close()
    m = meter.Meter({"db": meter.Backends(postmaster, db["USER"], name)})
    if m.exits != "taskstats":
        pytest.skip("taskstats needs CAP_NET_ADMIN")
    truth = 0.0
    with m:
        before = m.snapshot()
        for _ in range(3):
            conn = connect(name)
            truth += burn(conn, 0.1)
            conn.close()
        other = connect("postgres")
        burn(other, 0.2)
        other.close()
        time.sleep(0.3)
        after = m.snapshot()
    counted = after["db"] - before["db"]
    assert 0.85 * truth <= counted <= truth + 0.1, (counted, truth)
    assert after["db?"] - before["db?"] < 0.05  # (each lived long enough to be seen by its title)
