"""Coalescing rescoring requests in Redis: at most one rescore_stale task per evaluation waits in the queue.

A judgment's commit (or a sweep) queues a task only if it can claim the evaluation's "pending" key; the task gives
the claim back once, as it starts and *before* it reads the stale marks. So a mark committed while a task waits is
read by that task, and a mark committed after the task started claims the key again and queues the next one: none
is missed, and a burst of judgments costs one waiting task however long it waits. The claim lasts until its task
starts, bounded by the broker's visibility timeout, so a claim whose task is gone (a purged queue, a publisher killed
between claim and publish) holds rescoring back at most that long; the database's stale marks remain the truth and
the workers' periodic sweep (scoring.tasks.sweep) queues them again. A claim lost with Redis's data is simply free.
"""

import base64
import os
import uuid
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


# A publish in one round trip (issue 32): the claim and, only when it was free, the task's message, pushed onto the
# queue as Celery's Redis transport pushes it. Atomic too: no claim is ever held for a message that was not queued.
_CLAIM_AND_QUEUE = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
  redis.call('LPUSH', KEYS[2], ARGV[2])
  return 1
end
return 0
"""


@lru_cache(maxsize=1)
def _script():
    return _client().register_script(_CLAIM_AND_QUEUE)


def claim_and_queue(evaluation_id, task_name):
    """claim(evaluation_id) and, when claimed, queue `task_name(evaluation_id)` (no result kept), in one Redis
    command: True queued, False a task was waiting already. None when this path does not apply (the broker is
    not Celery's plain Redis transport on the claims' Redis, or tasks are routed): the caller then claims and
    sends the long way. Celery's send_task cost the web process ~0.5 ms per publish, mostly kombu making a Redis
    client per message and Celery building the message; here the message is built once per process and
    evaluation by Celery itself, and each publish only gives it fresh ids. No publish signal is sent (none is
    connected)."""
    from config.celery import app

    conf = app.conf
    broker = conf.broker_write_url or conf.broker_url  # where send_task would publish
    if (
        broker != settings.CELERY_BROKER_URL
        or not str(broker).startswith(("redis://", "rediss://"))
        or (conf.broker_transport_options or {}).get("global_keyprefix")
        or conf.task_routes
        or conf.task_queues
        or conf.task_protocol != 2
    ):
        return None
    queue = conf.task_default_queue
    message = _message(task_name, evaluation_id, queue, app.thread_oid, os.getpid())
    message = message.replace(_ID, str(uuid.uuid4())).replace(_TAG, str(uuid.uuid4()))
    return bool(_script()(keys=[_key(evaluation_id), queue], args=[ttl_seconds(), message]))


_ID, _TAG = "assay-task-id-placeholder", "assay-delivery-tag-placeholder"  # never in a real message


@lru_cache(maxsize=256)
def _message(task_name, evaluation_id, queue, reply_to, pid):
    """The JSON kombu's Redis transport writes for app.send_task(task_name, (evaluation_id,), ignore_result=True)
    from this thread, with placeholder ids (the task's, three times, and the delivery tag): its headers and body
    from Celery's own builder, wrapped as kombu wraps them (tests/test_save_path.py compares the two). `pid`
    only keys the cache: a forked child builds its own, as Celery's origin header names the sending process."""
    from kombu.serialization import dumps
    from kombu.utils.json import dumps as envelope

    from config.celery import app

    headers, properties, body, _ = app.amqp.as_task_v2(
        _ID, task_name, args=(evaluation_id,), reply_to=reply_to, ignore_result=True
    )
    content_type, encoding, data = dumps(body, serializer=app.conf.task_serializer)
    data = data.encode(encoding) if isinstance(data, str) else data
    properties = dict(properties, delivery_mode=2, priority=0, body_encoding="base64", delivery_tag=_TAG)
    properties["delivery_info"] = {"exchange": "", "routing_key": queue}
    return envelope(
        {
            "body": base64.b64encode(data).decode("ascii"),
            "content-encoding": encoding,
            "content-type": content_type,
            "headers": headers,
            "properties": properties,
        }
    )
