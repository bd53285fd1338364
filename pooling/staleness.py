"""Stale marks and rescoring requests: the one interface through which pooling, assess and the tracks tell
scoring that scores are out of date. Judging code calls `mark_stale` inside its transaction; the rescoring task is
sent by name (RESCORE_TASK), so this early stage never imports scoring.

It stays in pooling, not core (issue 27): a mark (pooling.models.StaleTopic, table scoring_staletopic) points at a
Topic and its Evaluation, pooling's models, so it cannot sit below pooling; pooling is the first stage that makes
scores stale (a run loaded, a pool rebuilt) and every later one may import it. What has no model of its own moved
to core: the Redis claims (core.rescoring_claims), the COPY writer (core.bulk), the row locks (core.locks)."""

import logging
import os
import threading
import time
from contextlib import contextmanager

from django.db import transaction
from django.utils import timezone

from pooling.models import StaleTopic

RESCORE_TASK = "scoring.rescore_stale"  # scoring.tasks.rescore_stale: recomputes an evaluation's stale marks


def mark_stale(topic):
    """Record that `topic`'s scores need recomputing and, once the transaction commits, ask a worker to do it.

    The record is the guarantee: if the broker is unreachable the enqueue is skipped and the stale mark waits
    for the next sweep (`scoring.tasks.sweep_stale`, `manage.py rescore --stale`), so no judgment is ever lost
    or blocked by Redis.
    """
    mark_stale_many([topic])


def mark_stale_many(topics):
    """mark_stale for many topics of one or more evaluations: one upsert, one task per evaluation."""
    now = timezone.now()
    topics = list(topics)
    if not topics:
        return
    # One atomic upsert (INSERT ... ON CONFLICT DO UPDATE): a separate read-then-update could update nothing
    # when a rescoring deletes the mark in between, and the judgment would never be scored.
    StaleTopic.objects.bulk_create(
        [StaleTopic(topic_id=t.pk, evaluation_id=t.evaluation_id, since=now, changed_at=now) for t in topics],
        update_conflicts=True,
        unique_fields=["topic"],
        update_fields=["changed_at"],
    )
    for evaluation_id in {t.evaluation_id for t in topics}:
        request_rescoring(evaluation_id)


def request_rescoring(evaluation_id):
    """Ask for the evaluation's stale marks to be recomputed once the current transaction commits (at once
    outside one). For writers that wrote their stale marks themselves (assess.fastsave)."""
    transaction.on_commit(lambda: _request_rescoring(evaluation_id))


_deferral = threading.local()


@contextmanager
def rescoring_deferred():
    """Within the block stale marks are written as usual, but rescoring starts only once per evaluation, at the
    end. Bulk work (loading many runs, rebuilding pools) commits many small transactions; without this, the
    in-process demo mode would rescore the whole evaluation after each of them."""
    depth = getattr(_deferral, "depth", 0)
    if depth == 0:
        _deferral.pending = set()
    _deferral.depth = depth + 1
    try:
        yield
    finally:
        _deferral.depth -= 1
        if _deferral.depth == 0:
            pending, _deferral.pending = _deferral.pending, set()
            for evaluation_id in sorted(pending):
                transaction.on_commit(lambda e=evaluation_id: _enqueue_soon(e))


def _request_rescoring(evaluation_id):
    if getattr(_deferral, "depth", 0):
        _deferral.pending.add(evaluation_id)
    else:
        _enqueue_soon(evaluation_id)


def mark_questions_stale(topic_ids):
    """mark_stale_many by topic id, for code that holds ids: a run stored or a pool rebuilt changes what the
    questions' scores are computed from, so the new run gets scored and links to judged items count."""
    from pooling.models import Topic

    mark_stale_many(Topic.objects.filter(pk__in=list(topic_ids)).order_by().only("pk", "evaluation_id"))


def _enqueue_soon(evaluation_id):
    """Publish from the process's publisher thread: with Redis down the client waits on its connection, and the
    assessor's request must not wait for that. In-process (eager) mode has no broker, so run it here."""
    from config.celery import app

    if app.conf.task_always_eager:
        from config.celery import run_here_or_send

        try:
            run_here_or_send(app.tasks[RESCORE_TASK], evaluation_id)
        except Exception:  # the judgment is committed; a failed rescoring leaves its mark for the next one
            logging.getLogger(__name__).exception("rescoring of evaluation %s failed", evaluation_id)
    else:
        _publisher().put(evaluation_id)


GATHER_SECONDS = 0.02
# The pause after a round in which every evaluation's task was still waiting in the queue (its claim held): while
# the worker is behind, claiming again 50 times a second per web process only asks Redis what it already said. Each
# claim cost the web process ~0.3 ms and Redis its share (at 200 saves/s over four processes, about one claim per
# save); the next claim comes at most this much later once the task has started, well within the pass gap the
# worker waits anyway (SCORING_PASS_GAP_MS), so freshness does not pay for it (issue 32).
GATHER_BUSY_SECONDS = 0.1


def gather_pause(results):
    """How long the publisher pauses after a round whose _enqueue calls returned `results`."""
    if results and all(result is False for result in results):
        return GATHER_BUSY_SECONDS
    return GATHER_SECONDS


class _Publisher:
    """One daemon thread per process that publishes rescoring requests, so a save neither waits for Redis nor
    pays for a thread of its own. Requests for the same evaluation that pile up while it is busy are sent once.
    It holds nothing that matters: a request it never sends leaves its stale mark for the next one or the sweep."""

    def __init__(self):
        self.wanted = set()
        self.busy = False
        self.ready = threading.Condition()
        threading.Thread(target=self._run, daemon=True, name="assay-enqueue").start()

    def put(self, evaluation_id):
        with self.ready:
            self.wanted.add(evaluation_id)
            self.ready.notify_all()  # the publisher, not only a wait_idle caller, must wake

    def _run(self):
        while True:
            with self.ready:
                while not self.wanted:
                    self.ready.wait()
                batch, self.wanted, self.busy = self.wanted, set(), True
            try:
                results = [_enqueue(evaluation_id) for evaluation_id in sorted(batch)]
                # Let requests gather: during a burst of saves one Redis claim per pause stands for all of them,
                # instead of one per save. Costs at most this much freshness.
                time.sleep(gather_pause(results))
            finally:
                with self.ready:
                    self.busy = False
                    self.ready.notify_all()

    def wait_idle(self, timeout):
        """True once everything put so far has been handed to the broker (or given up on)."""
        with self.ready:
            return self.ready.wait_for(lambda: not self.wanted and not self.busy, timeout)


_publisher_lock = threading.Lock()
_current_publisher = None


def wait_for_publisher(timeout=60):
    """For tests and benchmarks: wait until this process's rescoring requests have been published."""
    return _current_publisher is None or _current_publisher.wait_idle(timeout)


def _publisher():
    global _current_publisher
    publisher = _current_publisher
    if publisher is None:
        with _publisher_lock:
            if _current_publisher is None:
                _current_publisher = _Publisher()
            publisher = _current_publisher
    return publisher


def _forget_publisher():
    """In a forked child (Celery's pool, the web server's workers) the parent's publisher object is there but its thread
    is not, and the lock may have been held by a thread that no longer exists."""
    global _current_publisher, _publisher_lock
    _current_publisher, _publisher_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_publisher)


def _enqueue(evaluation_id):
    """Queue a rescoring task for the evaluation unless one is waiting: True when queued, False when one was
    waiting already, None otherwise (in-process mode, broker down)."""
    from config.celery import app
    from core import rescoring_claims as pending

    if app.conf.task_always_eager:
        return None  # switched to in-process mode since the request was put (tests do): publishing would run it here
    try:
        queued = pending.claim_and_queue(evaluation_id, RESCORE_TASK)  # one round trip, message built once
        if queued is not None:
            return queued  # False: a task for this evaluation is already waiting and will read this mark
        if not pending.claim(evaluation_id):
            return False
        try:
            # No publish retries: with Redis down the judgment's request must not hang; the mark is enough. No
            # result: nobody reads it, and asking for one made every publish subscribe to its result channel
            # (and unsubscribe the last) and the worker store it (issue 32).
            app.send_task(RESCORE_TASK, (evaluation_id,), retry=False, ignore_result=True)
        except Exception:
            pending.release(evaluation_id)
            raise
    except Exception:  # broker down: the StaleTopic row stays and is picked up later
        _broker_down(evaluation_id)
        return None
    return True


BROKER_WARNING_SECONDS = 60
_broker_warned_at = None  # when this process last logged a failed publish with its traceback


def _broker_down(evaluation_id, now=None):
    """With Redis down every save fails to publish: one warning with the traceback a minute, the rest at debug
    level (a traceback per save buried the log)."""
    global _broker_warned_at
    log, now = logging.getLogger(__name__), time.monotonic() if now is None else now
    if _broker_warned_at is not None and now - _broker_warned_at < BROKER_WARNING_SECONDS:
        log.debug("could not enqueue rescoring of evaluation %s", evaluation_id)
        return
    _broker_warned_at = now
    log.warning(
        "could not enqueue rescoring of evaluation %s: its stale marks stay and the workers' sweep scores them "
        "(more such failures within %d s are logged at debug level)",
        evaluation_id,
        BROKER_WARNING_SECONDS,
        exc_info=True,
    )
