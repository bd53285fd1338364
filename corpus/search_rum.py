"""Each collection's RUM index, where PostgreSQL has RUM (migration corpus 0004): a partial index over the
collection's rows of corpus_searchentry, predicate `collection_id + 0 = <pk>` (corpus.search writes the same
filter, so the planner takes it).

One index per collection, because RUM keeps positions and ranks inside the index, which makes each inserted entry
costly: building the index once after a collection's entries are in is about ten times faster than keeping one
shared index up to date row by row (200,000 Blog06-like documents: about 2 minutes against 20). Later loads into
the collection add to its index row by row. Searching a collection reads only its own index."""

from django.db import connection, transaction


def name(pk):
    return f"corpus_search_rum_{int(pk)}"


def create(pk):
    """Build the collection's index if it has none (a bulk build over its entries)."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL maintenance_work_mem = '256MB'")
        # Django's foreign keys are checked at commit; PostgreSQL builds no index over rows whose checks are still
        # pending (a caller's open transaction), so they are checked now.
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute(
            f"CREATE INDEX IF NOT EXISTS {name(pk)} ON corpus_searchentry USING rum (vector rum_tsvector_ops) "
            f"WHERE collection_id + 0 = {int(pk)}"
        )
        cur.execute("SET CONSTRAINTS ALL DEFERRED")


def drop(pk):
    with connection.cursor() as cur:
        cur.execute(f"DROP INDEX IF EXISTS {name(pk)}")


def exists(pk):
    with connection.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [name(pk)])
        return cur.fetchone() is not None


def drop_with_collection(sender, instance, **kwargs):
    """post_delete of a Collection: its entries went with it, so its index goes too."""
    from corpus.search import index_kind

    if connection.vendor == "postgresql" and index_kind() == "rum":
        drop(instance.pk)
