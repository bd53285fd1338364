"""What /healthz reports: the state of the database, Redis and the Celery workers."""

from django.conf import settings
from django.db import connection


def database_state():
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return "ok"
    except Exception as exc:  # any failure to answer is "down"; the message helps the operator
        return f"down: {exc.__class__.__name__}"


def redis_state(url):
    if not url:
        return "not configured"
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1).ping()
        return "ok"
    except Exception as exc:
        return f"down: {exc.__class__.__name__}"


def worker_state(app, timeout=1.0):
    """Workers answering a broadcast ping; in-process mode has none and needs none."""
    if app.conf.task_always_eager:
        return {"state": "in-process", "count": 0}
    try:
        replies = app.control.ping(timeout=timeout) or []
    except Exception as exc:
        return {"state": f"down: {exc.__class__.__name__}", "count": 0}
    return {"state": "ok" if replies else "none", "count": len(replies)}


def health(app):
    broker = settings.CELERY_BROKER_URL
    report = {"database": database_state(), "redis": redis_state(broker)}
    report["workers"] = (
        worker_state(app) if report["redis"] in ("ok", "not configured") else {"state": "unknown", "count": 0}
    )
    healthy = report["database"] == "ok" and report["redis"] in ("ok", "not configured")
    report["status"] = "ok" if healthy else "degraded"
    return report, healthy
