"""The Celery app: workers run `celery -A config worker`; settings come from Django's CELERY_* settings."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("assay")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="assay.ping")
def ping(value="pong"):
    """Echo, used by /healthz and the worker test to prove a task really runs in a worker."""
    return {"value": value, "pid": os.getpid()}
