"""/healthz reports the database, Redis and workers; tasks really run in a separate Celery worker process."""

import os

import pytest
from django.urls import reverse

from config import patience
from config.celery import app, ping


def test_healthz_reports_each_service(client, db, settings):
    response = client.get(reverse("healthz"))
    body = response.json()
    assert body["database"] == "ok"
    if settings.CELERY_BROKER_URL:
        assert body["redis"] == "ok"
    else:
        assert body["redis"] == "not configured"
    assert response.status_code == 200 and body["status"] == "ok"


def test_healthz_answers_plain_http_where_everything_else_redirects_to_https(client, db, settings):
    """docker-compose's healthcheck asks http://localhost:8000/healthz inside the container, with production
    settings: a redirect to HTTPS there would mark a healthy web service unhealthy."""
    settings.SECURE_SSL_REDIRECT = True
    assert client.get(reverse("login")).status_code == 301
    assert client.get(reverse("healthz")).status_code in (200, 503)


def test_healthz_says_degraded_when_redis_is_unreachable(client, db, settings):
    # A port nobody listens on stands in for a stopped Redis.
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response.json()["redis"].startswith("down")


@pytest.mark.worker
def test_task_runs_in_the_worker_process(celery_worker, transactional_db):
    result = ping.delay("hello")
    value = result.get(timeout=patience.scaled(30))
    assert value["value"] == "hello"
    assert value["pid"] == celery_worker["process"].pid
    assert value["pid"] != os.getpid()


@pytest.mark.worker
def test_healthz_counts_the_running_worker(celery_worker, client, transactional_db):
    body = client.get(reverse("healthz")).json()
    assert body["workers"]["state"] == "ok"
    assert body["workers"]["count"] >= 1


def test_tasks_run_in_process_without_a_broker():
    assert app.conf.task_always_eager
    assert ping.delay("x").get()["pid"] == os.getpid()


@pytest.mark.worker
def test_worker_rescores_at_the_lower_priority_it_is_given(celery_worker, transactional_db):
    """Saves come first on a machine the web processes share: the worker and its pool run WORKER_NICE lower."""
    import uuid

    from config.worker import start_worker, stop_worker

    queue = f"assay-test-nice-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, CELERY_QUEUE=queue, CELERY_TASK_ALWAYS_EAGER="0", WORKER_NICE="7", SCORING_SWEEP_SECONDS="0")
    env.pop("TEST_DATABASE_NAME", None)
    proc = start_worker(queue, env, app)
    try:
        base = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, proc.pid) == min(base + 7, 19)
        # the process that runs tasks (the pool's) is the one that rescores: its priority, by its own answer
        pid = ping.apply_async(("x",), queue=queue).get(timeout=patience.scaled(30))["pid"]
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(base + 7, 19)
    finally:
        stop_worker(proc)
