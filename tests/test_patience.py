"""config.patience: a limit of N seconds is N seconds of a quiet machine, stretched by the load while one waits."""

import sys

import pytest

from config import patience


def test_a_quiet_machine_waits_the_seconds_given(monkeypatch):
    monkeypatch.setattr(patience.os, "getloadavg", lambda: (0.3, 0.2, 0.1))
    assert patience.slowness() == 1.0
    assert patience.scaled(10) == 10


def test_a_busy_machine_stretches_the_limit_by_runnable_processes_per_cpu(monkeypatch):
    monkeypatch.setattr(patience.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(patience.os, "getloadavg", lambda: (14.0, 9.0, 5.0))
    assert patience.scaled(10) == 70
    monkeypatch.setattr(patience.os, "getloadavg", lambda: (1000.0, 0, 0))
    assert patience.scaled(10) == 10 * patience.MAX_STRETCH  # a hung process still fails in the end


def test_a_deadline_follows_the_load_while_it_runs(monkeypatch):
    now = [100.0]
    load = [0.0]
    monkeypatch.setattr(patience.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(patience.os, "cpu_count", lambda: 1)
    monkeypatch.setattr(patience.os, "getloadavg", lambda: (load[0], 0, 0))
    deadline = patience.Deadline(5)
    now[0] += 6
    assert deadline.passed()
    load[0] = 3.0  # the machine got busy: 6 s of it are 2 s of a quiet one
    assert not deadline.passed()
    assert deadline.remaining() == 9
    now[0] += 10
    assert deadline.passed()


def test_wait_until_returns_whether_the_condition_came_true(monkeypatch):
    calls = iter([False, False, True])
    assert patience.wait_until(lambda: next(calls), 5, interval=0)
    monkeypatch.setattr(patience.os, "getloadavg", lambda: (0.0, 0, 0))
    assert not patience.wait_until(lambda: False, 0.05, interval=0.01)


def test_run_returns_the_output_and_kills_a_process_past_its_limit(monkeypatch):
    done = patience.run([sys.executable, "-c", "print('out'); import sys; sys.exit(3)"], 60)
    assert (done.returncode, done.stdout) == (3, "out\n")
    monkeypatch.setattr(patience.os, "getloadavg", lambda: (0.0, 0, 0))
    with pytest.raises(patience.subprocess.TimeoutExpired):
        patience.run([sys.executable, "-c", "import time; time.sleep(60)"], 0.5)
