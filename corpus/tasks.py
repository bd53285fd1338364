"""Celery tasks of the corpus app: the full-text index build, progress kept on the Collection row."""

from celery import shared_task

from corpus.models import Collection
from corpus.search import build_index


@shared_task(name="corpus.build_search_index", acks_late=True)
def build_search_index_task(collection_id):
    """Index a collection's documents not indexed yet (idempotent: a redelivered task only finishes the job)."""
    collection = Collection.objects.filter(pk=collection_id).first()
    if collection is None:
        return 0
    return build_index(collection)
