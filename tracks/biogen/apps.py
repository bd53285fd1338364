from django.apps import AppConfig


class BiogenConfig(AppConfig):
    """TREC BioGen (seed 002): answers with PubMed citations, judged per answer, sentence and citation."""

    name = "tracks.biogen"
    label = "biogen"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "biogen/"

    def ready(self):
        from tracks.biogen import plugin

        plugin.register()
