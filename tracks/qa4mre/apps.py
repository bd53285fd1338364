from django.apps import AppConfig


class Qa4mreConfig(AppConfig):
    """QA4MRE 2012 (seed 003): reading tests scored against a gold standard, no human judging."""

    name = "tracks.qa4mre"
    label = "qa4mre"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "qa4mre/"

    def ready(self):
        from tracks.qa4mre import plugin

        plugin.register()
