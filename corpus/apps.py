from django.apps import AppConfig
from django.db.models.signals import post_delete


class CorpusConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "corpus"

    def ready(self):
        from corpus import search_pairs, search_rum
        from corpus.models import Collection

        post_delete.connect(search_rum.drop_with_collection, sender=Collection, dispatch_uid="corpus_search_rum_drop")
        post_delete.connect(
            search_pairs.drop_with_collection, sender=Collection, dispatch_uid="corpus_search_pairs_drop"
        )
