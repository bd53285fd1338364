from django.apps import AppConfig


class QaConfig(AppConfig):
    """TAC 2008 QA, the TREC 2007 QA main task and TREC 2007 ciQA (seeds 000 and 001)."""

    name = "tracks.qa"
    label = "qa"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "assess/"  # QA's judging pages keep the paths they had under the assess app

    def ready(self):
        from tracks.qa import plugin

        plugin.register()
