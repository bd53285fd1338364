"""Celery tasks of scoring. Every task reads what is stale from the database, so a lost or duplicated message
only delays or repeats work; it never loses a judgment's effect."""
import logging

from celery import shared_task
from celery.signals import worker_ready

log = logging.getLogger(__name__)


# Passes one task makes while judgments keep arriving, before it leaves the rest to the task they queued.
MAX_PASSES = 20


@shared_task(name="scoring.rescore_stale", acks_late=True)
def rescore_stale(evaluation_id):
    """Recompute the scores of the evaluation's stale questions (exits at once if another task already did).

    Marks committed during a pass are taken at once by another pass of this task, without a round trip
    through the queue; the task they queued meanwhile then finds nothing left and only confirms freshness.
    Returns the number of questions recomputed over all passes."""
    from scoring import pending
    from scoring.rescore import has_stale, rescore_stale_topics

    eager = rescore_stale.app.conf.task_always_eager
    total = 0
    for _ in range(MAX_PASSES):
        if not eager:
            pending.release(evaluation_id)  # before reading the marks: later marks queue the next task
        done = rescore_stale_topics(evaluation_id)
        total += done
        if eager or not done or not has_stale(evaluation_id):
            break
    return total


@shared_task(name="scoring.rescore_evaluation", acks_late=True)
def rescore_evaluation(evaluation_id):
    """Recompute every score of one evaluation (one task)."""
    from scoring.rescore import rescore_evaluation as full

    return full(evaluation_id)


@shared_task(name="scoring.sweep_stale", acks_late=True)
def sweep_stale():
    """Catch up: queue a rescoring for every evaluation that has stale questions (e.g. after Redis was down)."""
    from scoring.models import StaleTopic

    ids = sorted(set(StaleTopic.objects.values_list("evaluation_id", flat=True)))
    for evaluation_id in ids:
        rescore_stale.delay(evaluation_id)  # not coalesced: a sweep must not be skipped because of a stale claim
    return ids


@worker_ready.connect
def _catch_up_on_start(sender=None, **kwargs):
    """A worker coming (back) up sweeps, so marks left while it or Redis was down are scored without waiting."""
    try:
        sweep_stale.delay()
    except Exception:  # the broker went away again; the next judgment or sweep will do it
        log.warning("could not queue the stale-score sweep", exc_info=True)
