from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The REST API (issue 18): after the stage apps, it calls the same functions as the pages and commands."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
