from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every stage shares, below them all: the plug-in contract of the tracks and the audit log."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "core"
    label = "core"
