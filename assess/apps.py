from django.apps import AppConfig


class AssessConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "assess"

    def ready(self):
        # The corpus viewer (an earlier stage) asks us which collections an assessor may read.
        from assess.documents import readable_collection_ids
        from corpus.access import register_document_access

        register_document_access(readable_collection_ids)
