from django.apps import AppConfig


class ScoringConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "scoring"

    def ready(self):
        # Registers the tasks with the Celery app in every process: earlier stages send them by name
        # (pooling.staleness), and the in-process mode looks them up there.
        from scoring import tasks  # noqa: F401
