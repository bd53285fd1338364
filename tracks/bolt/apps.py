from django.apps import AppConfig


class BoltConfig(AppConfig):
    """BOLT IR phase 2 (seed 004): forum citations, relevant spans and thematic groupings."""

    name = "tracks.bolt"
    label = "bolt"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "bolt/"

    def ready(self):
        from tracks.bolt import plugin

        plugin.register()
