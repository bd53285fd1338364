from django.apps import AppConfig


class AssessConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "assess"

    def ready(self):
        # The corpus viewer (an earlier stage) asks us which collections an assessor may read.
        from assess.documents import readable_collection_ids
        from corpus.access import register_document_access

        register_document_access(readable_collection_ids)
        # Pool rebuilding (an earlier stage) keeps every item we hold a judgment of.
        from assess.judged_items import judged_item_ids
        from pooling.judged import register_judged_items

        register_judged_items(judged_item_ids)
