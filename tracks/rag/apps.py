from django.apps import AppConfig


class RagConfig(AppConfig):
    """TREC RAG 2024/2025: cited segments pooled for relevance, nuggets created and assigned, support judged per
    (sentence, segment)."""

    name = "tracks.rag"
    label = "rag"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "rag/"

    def ready(self):
        from tracks.rag import plugin

        plugin.register()
