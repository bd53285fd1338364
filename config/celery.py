"""The Celery app: workers run `celery -A config worker`; settings come from Django's CELERY_* settings."""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("assay")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="assay.ping")
def ping(value="pong"):
    """Echo, used by /healthz and the worker test to prove a task really runs in a worker."""
    return {"value": value, "pid": os.getpid()}


@worker_init.connect
def _lower_priority(**kwargs):
    """Before the pool starts (its processes inherit it): rescoring yields the CPU to the web processes."""
    from django.conf import settings

    if settings.WORKER_NICE:
        os.nice(settings.WORKER_NICE)


def run_here_or_send(task, *args):
    """Send `task` to the workers; with no broker (the SQLite demo, unit tests) run its body here and now.

    Not task.delay() in that case: Celery's eager apply() sets a process-wide "join will block" flag for as long
    as the task runs, so a task run eagerly in one request thread made any other thread's result.get() fail with
    "Never call result.get() within a task!" (and two overlapping ones could leave the flag set for good)."""
    if app.conf.task_always_eager:
        return task(*args)
    return task.apply_async(args, retry=False)
