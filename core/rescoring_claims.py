"""Coalescing rescoring requests in Redis: at most one rescore_stale task per evaluation waits in the queue.

A judgment's commit (or a sweep) queues a task only if it can claim the evaluation's "pending" key; the task gives
the claim back once, as it starts and *before* it reads the stale marks. So a mark committed while a task waits is
read by that task, and a mark committed after the task started claims the key again and queues the next one: none
is missed, and a burst of judgments costs one waiting task however long it waits. The claim lasts until its task
starts, bounded by the broker's visibility timeout, so a claim whose task is gone (a purged queue, a publisher killed
between claim and publish) holds rescoring back at most that long; the database's stale marks remain the truth and
the workers' periodic sweep (scoring.tasks.sweep) queues them again. A claim lost with Redis's data is simply free.
"""

from functools import lru_cache

from django.conf import settings


@lru_cache(maxsize=1)
def _client():
    import redis

    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=1, socket_timeout=1)


def _key(evaluation_id):
    from config.celery import app

    return f"assay:scoring:pending:{app.conf.task_default_queue}:{evaluation_id}"


def ttl_seconds():
    """How long a claim waits for its task. A waiting task can be away from the queue that long (taken by a worker
    that then died) without being lost; expiring sooner (it was 30 s) let every save after a long wait in a busy
    queue queue one more task."""
    from config.celery import app

    return max(30, int((app.conf.broker_transport_options or {}).get("visibility_timeout", 300)))


def claim(evaluation_id):
    """True if the caller should queue a task (no task for this evaluation is waiting)."""
    return bool(_client().set(_key(evaluation_id), "1", nx=True, ex=ttl_seconds()))


def release(evaluation_id):
    """Give the claim back (the task starts, or queueing failed)."""
    try:
        _client().delete(_key(evaluation_id))
    except Exception:  # Redis gone: the key expires by itself
        pass
