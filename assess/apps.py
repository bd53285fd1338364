from django.apps import AppConfig


class AssessConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "assess"

    def ready(self):
        # The corpus viewer (an earlier stage) asks us which collections an assessor may read.
        from assess.documents import readable_collection_ids
        from assess.judged_items import judged_item_ids
        from core import extension_points as ep

        ep.document_access.register(self.label, readable_collection_ids)
        # Pool rebuilding (an earlier stage) keeps every item we hold a judgment of.
        ep.judged_items.register(self.label, judged_item_ids)
