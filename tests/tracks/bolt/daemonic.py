"""Helpers test_parallel_check runs in other processes (a daemonic one, as a Celery prefork child is; one it
kills): no Django import here, so a spawned interpreter can import them."""

from functools import partial

from pooling.formats import parallel
from pooling.formats.columns import run_problems
from tests.tracks.bolt.test_citations import FIXTURES, context
from tracks.bolt.formats import citations


def check_fixtures(answers):
    """Put on the queue `answers` whether each fixture run came back to be checked in process."""
    parallel.MIN_BYTES = 0
    files = [((FIXTURES / name).read_bytes(), name) for name in ("alpha1.xml", "alpha2.xml")]
    limits = partial(run_problems, tag_max=100, docid_max=200)
    ctx = context()
    got = parallel.checked(
        citations.__name__, files, lambda data: parallel.plain_context(citations, ctx, data), 2, limits
    )
    answers.put([answer is None for answer in got])


def hold_workers():
    """Start workers on the fixture runs, say "ready" with this process's id, and wait to be killed."""
    import sys
    import time

    parallel.MIN_BYTES = 0
    files = [((FIXTURES / name).read_bytes(), name) for name in ("alpha1.xml", "alpha2.xml")]
    limits = partial(run_problems, tag_max=100, docid_max=200)
    ctx = context()
    got = parallel.checked(
        citations.__name__, files, lambda data: parallel.plain_context(citations, ctx, data), 2, limits
    )
    assert next(got) is not None
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    time.sleep(120)
