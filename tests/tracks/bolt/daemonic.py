"""Helpers test_parallel_check runs in other processes (a daemonic one, as a Celery prefork child is; one it
kills): no Django import here, so a spawned interpreter can import them."""

from functools import partial

from pooling.formats import parallel
from pooling.formats.columns import run_problems
from tests.tracks.bolt.test_citations import FIXTURES, context
from tracks.bolt.formats import citations


def _check_fixture_runs():
    """parallel.checked over the two fixture runs, with two workers and no size floor."""
    parallel.MIN_BYTES = 0
    files = [((FIXTURES / name).read_bytes(), name) for name in ("alpha1.xml", "alpha2.xml")]
    limits = partial(run_problems, tag_max=100, docid_max=200)
    ctx = context()
    return parallel.checked(citations, files, lambda data: parallel.plain_context(citations, ctx, data), 2, limits)


def check_fixtures(answers):
    """Put on the queue `answers` whether each fixture run came back to be checked in process."""
    got = _check_fixture_runs()
    answers.put([answer is None for answer in got])


def hold_workers():
    """Start workers on the fixture runs, say "ready", and wait to be killed."""
    import sys
    import time

    got = _check_fixture_runs()
    assert next(got) is not None
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    time.sleep(120)
