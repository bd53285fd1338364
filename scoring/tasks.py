"""Celery tasks of scoring. Every task reads what is stale from the database, so a lost or duplicated message
only delays or repeats work; it never loses a judgment's effect."""

import logging
import threading
import time

from celery import shared_task
from celery.signals import worker_ready, worker_shutdown

log = logging.getLogger(__name__)


# Passes one task makes while judgments keep arriving, before it leaves the rest to the task they queued.
MAX_PASSES = 20


def _pass_budget(app):
    """Seconds after which a task starts no further pass: half the visibility timeout, so it is acknowledged before
    Redis would hand its message out again (the marks that kept it going queued the next task already)."""
    return (app.conf.broker_transport_options or {}).get("visibility_timeout", 3600) / 2


def pass_gap(last_pass, settings):
    """Seconds to wait before the next pass, after one of `last_pass` seconds, while judgments keep coming:
    SCORING_PASS_GAP_PERCENT of the last pass, but never so long that the gap and two such passes exceed
    SCORING_FRESHNESS_MS, and never shorter than SCORING_PASS_GAP_MS.

    A pass costs a part that grows with the questions it recomputes and a larger part that does not (the series
    and runs it touches, its statements: at 50 assessors a pass costs about the same for 100 saves as for 200,
    issue 32); saves arriving fast make passes longer, so the gap widens with the rate and each pass covers more
    saves for the same cost. A save waits at most a gap and two passes (the one under way when it commits, the one
    that takes it): the cap keeps that within the freshness aimed at, and a long pass (a starved worker) gets the
    shortest gap."""
    low = settings.SCORING_PASS_GAP_MS / 1000
    high = max(low, settings.SCORING_FRESHNESS_MS / 1000 - 2 * last_pass)
    return min(high, max(low, settings.SCORING_PASS_GAP_PERCENT / 100 * last_pass))


@shared_task(name="scoring.rescore_stale", acks_late=True)
def rescore_stale(evaluation_id):
    """Recompute the scores of the evaluation's stale questions (exits at once if another task already did).

    Marks committed during a pass are taken by another pass of this task, pass_gap() after it, without
    a round trip through the queue; the task they queued meanwhile then finds nothing left and only confirms
    freshness. Returns the number of questions recomputed over all passes."""
    from django.conf import settings

    from core import rescoring_claims as pending
    from scoring.agreement_schedule import request_refresh
    from scoring.rescore import has_stale, rescore_stale_topics

    eager = rescore_stale.app.conf.task_always_eager
    if not eager:
        # Once, before the first pass reads the marks: later marks claim the key and queue the next task, which
        # waits while this one passes. (Given back before every pass, it freed that waiting task's claim each
        # time, so each pass let one more task queue.)
        pending.release(evaluation_id)
    deadline = time.monotonic() + _pass_budget(rescore_stale.app)
    total = 0
    for _ in range(MAX_PASSES):
        started = time.monotonic()
        done = rescore_stale_topics(evaluation_id)
        total += done
        if eager or not done or time.monotonic() >= deadline or not has_stale(evaluation_id):
            break
        # let the marks of the burst under way gather: one pass then covers them all (see the settings)
        time.sleep(pass_gap(time.monotonic() - started, settings))
    # After the scores' commit, never on the save path: the agreement of the questions judged since follows, in a
    # spaced task of its own (issue 29; scoring.agreement_schedule: while one waits, this is one Redis command).
    # Asked even when no question was recomputed (a pass may take marks of questions no run answers).
    request_refresh(evaluation_id)
    if total:
        _rankings_changed(evaluation_id)
    return total


def _rankings_changed(evaluation_id):
    """After the official scores are stored (never on the save path): the rankings under every reading of the
    judgments follow, as a task of their own when due (scoring.rankings)."""
    from scoring.rankings import request_refresh

    request_refresh(evaluation_id)


@shared_task(name="scoring.refresh_rankings", acks_late=True)
def refresh_rankings(evaluation_id):
    """Recompute the evaluation's rankings under every reading and their correlations, if anything changed since
    the last time (scoring.rankings.run_due)."""
    from scoring.rankings import run_due

    return run_due(evaluation_id)


@shared_task(name="scoring.rescore_evaluation", acks_late=True)
def rescore_evaluation(evaluation_id):
    """Recompute every score of one evaluation (one task)."""
    from scoring.agreement_store import refresh_changed
    from scoring.rescore import rescore_evaluation as full

    done = full(evaluation_id)
    refresh_changed(evaluation_id)
    return done


@shared_task(name="scoring.refresh_agreement_due", acks_late=True)
def refresh_agreement_due(evaluation_id):
    """The agreement of every question whose judgments changed since it was computed, and the totals, when due
    (scoring.agreement_schedule)."""
    from scoring.agreement_schedule import run_due

    return run_due(evaluation_id)


@shared_task(name="scoring.refresh_agreement", acks_late=True)
def refresh_agreement(evaluation_id):
    """Recompute all of an evaluation's stored agreement (a judgment set loaded or deleted), and ask for its
    rankings under each reading (one per set) to follow."""
    from scoring.agreement_store import refresh
    from scoring.rankings import request_refresh

    done = refresh(evaluation_id)
    request_refresh(evaluation_id, set_changed=True)  # the rankings under each set follow (scoring.rankings)
    return done


def sweep():
    """Queue a rescoring for every evaluation that has stale questions; returns the evaluations queued.

    Through the pending claim, like a save: an evaluation whose task already waits gets no second one. A claim that
    vanished with Redis's data is free, and one whose task was lost expires (pending.ttl_seconds), so a sweep is
    never skipped for good because of a claim."""
    from core import rescoring_claims as pending
    from pooling.models import StaleTopic

    ids = list(StaleTopic.objects.order_by("evaluation_id").values_list("evaluation_id", flat=True).distinct())
    if rescore_stale.app.conf.task_always_eager:  # no broker, no claims: rescore here
        from config.celery import run_here_or_send

        for evaluation_id in ids:
            run_here_or_send(rescore_stale, evaluation_id)
        return ids
    queued = []
    for evaluation_id in ids:
        if not pending.claim(evaluation_id):
            continue
        try:
            rescore_stale.apply_async((evaluation_id,))
        except Exception:
            pending.release(evaluation_id)
            raise
        queued.append(evaluation_id)
    return queued


@shared_task(name="scoring.sweep_stale", acks_late=True)
def sweep_stale():
    """Catch up on demand: queue a rescoring for every evaluation that has stale questions."""
    return sweep()


_stop_sweeping = threading.Event()


@worker_ready.connect
def _start_sweeping(sender=None, **kwargs):
    """Every worker sweeps as it comes (back) up and then every SCORING_SWEEP_SECONDS, so marks whose request was
    lost (Redis restarted empty, a purged queue, a task lost with its claim) are scored without a later save.

    A thread of the worker's main process rather than a beat schedule or a task that queues itself again: it needs
    no single beat process, survives Redis being emptied (a self-queueing task would vanish with it), and queues
    nothing while no worker runs to take it; several workers' sweeps coalesce through the claims."""
    from django.conf import settings

    threading.Thread(
        target=_sweep_every, args=(settings.SCORING_SWEEP_SECONDS,), daemon=True, name="assay-sweep"
    ).start()


@worker_shutdown.connect
def _end_sweeping(sender=None, **kwargs):
    _stop_sweeping.set()


def _sweep_every(interval):
    from django.db import connection

    while not _stop_sweeping.is_set():
        try:
            queued = sweep()
            if queued:
                log.info("the stale-score sweep queued rescoring of evaluations %s", queued)
        except Exception:  # database or broker away: the marks stay, the next sweep tries again
            log.warning("the stale-score sweep failed", exc_info=True)
        finally:
            connection.close()  # this thread's own; idle between sweeps, and not to be inherited by a forked child
        if interval <= 0 or _stop_sweeping.wait(interval):
            return
