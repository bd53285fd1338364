"""Waits that stretch with what the machine gives: a time limit of N seconds means N seconds of a quiet machine.

A test, a benchmark's set-up or a script that waits for another process (a worker's first answer, a queue to drain,
a server to listen) cannot know how much CPU that process is getting. On a busy machine (the test suite beside a
build, CI on a shared host) a fixed limit fails a healthy run. So a limit here is scaled, while it runs, by how
over-subscribed the CPUs are: the one-minute load average per CPU, never below 1. A process that is really stuck
still fails, only later on a busy machine.
"""

import os
import subprocess
import time

# A limit never stretches past this many times its quiet-machine value: a hung process still fails in the end.
MAX_STRETCH = 20.0


def slowness() -> float:
    """How many times slower than a quiet machine waiting is now (>= 1): runnable processes per CPU."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # not every platform has a load average
        return 1.0
    return min(MAX_STRETCH, max(1.0, load / (os.cpu_count() or 1)))


def scaled(seconds: float) -> float:
    """`seconds` of a quiet machine, in seconds of this machine now."""
    return seconds * slowness()


class Deadline:
    """A time limit of `seconds` on a quiet machine, re-scaled at every look (load rises and falls while one
    waits)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def passed(self) -> bool:
        return self.elapsed() > scaled(self.seconds)

    def remaining(self) -> float:
        return max(0.0, scaled(self.seconds) - self.elapsed())


def wait_until(condition, seconds: float, interval: float = 0.1) -> bool:
    """Poll `condition()` until it is true (True) or the scaled limit passes (False)."""
    deadline = Deadline(seconds)
    while not condition():
        if deadline.passed():
            return False
        time.sleep(interval)
    return True


def run(argv, seconds: float, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run(argv, capture_output=True, text=True) with a limit that stretches with the load while it
    runs; subprocess.TimeoutExpired (the process killed) once it passes."""
    deadline = Deadline(seconds)
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs) as proc:
        while True:
            try:
                out, err = proc.communicate(timeout=min(5.0, max(0.1, deadline.remaining())))
                return subprocess.CompletedProcess(argv, proc.returncode, out, err)
            except subprocess.TimeoutExpired:
                if deadline.passed():
                    proc.kill()
                    out, err = proc.communicate()
                    raise subprocess.TimeoutExpired(argv, deadline.elapsed(), out, err) from None
