"""A Celery worker process of this project, started and waited for: the worker tests and the scoring benchmark
run real workers, each on a queue of its own."""

import subprocess
import sys
from pathlib import Path

from config.patience import Deadline, scaled

ROOT = Path(__file__).resolve().parent.parent


def start_worker(queue, env, control, *, node=None, log=subprocess.DEVNULL, loglevel="INFO", timeout=60.0, busy=None):
    """A `--pool=solo` worker consuming only `queue`, once it answers a ping sent through `control` (a Celery
    app on the same broker), or once `busy()` says it took a task (a solo worker answers no ping while it runs one,
    and a rescoring task runs pass after pass while saves keep coming). RuntimeError, with the worker stopped, if it
    exits or does neither in time."""
    node = node or f"{queue}@localhost"
    # tests wait on these workers on a shared, busy machine: they run at normal priority unless told otherwise
    env = dict(env)
    env.setdefault("WORKER_NICE", "0")
    argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", f"--loglevel={loglevel}"]
    argv += ["-Q", queue, "-n", node, "--without-gossip", "--without-mingle"]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    return await_ping(proc, node, control, timeout, stop_worker, busy)


def await_ping(proc, node, control, timeout, stop, busy=None):
    """`proc` once worker `node` answers a ping through `control`; RuntimeError, after `stop(proc)` if it is
    still running, when it exits or does not answer within `timeout` seconds of a quiet machine (stretched by
    the load: config.patience)."""
    deadline = Deadline(timeout)
    while not (busy and busy()) and not _pings(control, node):
        if proc.poll() is not None:
            raise RuntimeError(f"the Celery worker exited with status {proc.returncode}")
        if deadline.passed():
            stop(proc)
            raise RuntimeError(f"the Celery worker did not answer within {scaled(timeout):.0f} s")
    return proc


def _pings(control, node):
    """Whether `node` answers a ping, asked on a connection of its own: a pooled one may point at a broker that
    restarted since (the worker tests restart Redis)."""
    with control.connection_for_write() as conn:
        try:
            return bool(control.control.ping(destination=[node], timeout=0.5, connection=conn))
        except conn.connection_errors:
            return False


def stop_worker(proc):
    """Ask the worker to finish (warm shutdown), kill it if it has not within 15 s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
