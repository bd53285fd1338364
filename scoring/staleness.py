"""Marking questions stale when judgments change. Judging code calls `mark_stale` inside its transaction."""
from django.db import transaction
from django.utils import timezone

from scoring.models import StaleTopic


def mark_stale(topic):
    """Record that `topic`'s scores need recomputing and, once the transaction commits, ask a worker to do it.

    The record is the guarantee: if the broker is unreachable the enqueue is skipped and the stale mark waits
    for the next sweep (`scoring.tasks.rescore_stale`), so no judgment is ever lost or blocked by Redis.
    """
    now = timezone.now()
    mark, created = StaleTopic.objects.get_or_create(
        topic_id=topic.pk, defaults={"evaluation_id": topic.evaluation_id, "since": now, "changed_at": now}
    )
    if not created:
        StaleTopic.objects.filter(pk=mark.pk).update(changed_at=now)
    transaction.on_commit(lambda: _enqueue(topic.evaluation_id))


def _enqueue(evaluation_id):
    import logging

    from scoring.tasks import rescore_stale

    try:
        rescore_stale.delay(evaluation_id)
    except Exception:  # broker down: the StaleTopic row stays and is picked up later
        logging.getLogger(__name__).warning("could not enqueue rescoring of evaluation %s", evaluation_id,
                                            exc_info=True)
