"""Celery finds the app's tasks here (autodiscovery imports <app>.tasks)."""

from api.jobs import run_job  # noqa: F401
