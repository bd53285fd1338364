"""Coalescing rescoring requests in Redis: at most one rescore_stale task per evaluation waits in the queue.

A judgment's commit queues a task only if it can claim the evaluation's "pending" key; the task gives the claim
back *before* it reads the stale marks. So a mark committed while a task is pending is read by that task, and a
mark committed after the task started reading claims the key again and queues the next one: none is missed,
and a burst of 100 judgments per second costs a handful of tasks instead of 100. The key expires (TTL) so a lost
task cannot block rescoring for long; the database's stale marks remain the truth (sweep_stale catches up).
"""
from functools import lru_cache

from django.conf import settings

TTL_SECONDS = 30


@lru_cache(maxsize=1)
def _client():
    import redis

    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=1, socket_timeout=1)


def _key(evaluation_id):
    from config.celery import app

    return f"assay:scoring:pending:{app.conf.task_default_queue}:{evaluation_id}"


def claim(evaluation_id):
    """True if the caller should queue a task (no task for this evaluation is waiting)."""
    return bool(_client().set(_key(evaluation_id), "1", nx=True, ex=TTL_SECONDS))


def release(evaluation_id):
    """Give the claim back (the task starts, or queueing failed)."""
    try:
        _client().delete(_key(evaluation_id))
    except Exception:  # Redis gone: the key expires by itself
        pass
