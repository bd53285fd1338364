from django.apps import AppConfig


class ConfigConfig(AppConfig):
    name = "config"
    label = "config"

    def ready(self):
        # The Celery app is created with Django, so @shared_task binds to it (it was config/__init__.py's import).
        import config.celery  # noqa: F401
