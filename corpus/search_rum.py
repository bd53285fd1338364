"""Each collection's RUM index, where PostgreSQL has RUM (migration corpus 0004): a partial index over the
collection's rows of corpus_searchentry, predicate `collection_id + 0 = <pk>` (corpus.search writes the same
filter, so the planner takes it).

One index per collection, because RUM keeps positions and ranks inside the index, which makes each inserted entry
costly: building the index once after a collection's entries are in is about ten times faster than keeping one
shared index up to date row by row (200,000 Blog06-like documents: about 2 minutes against 20). Later loads into
the collection add to its index row by row. Searching a collection reads only its own index.

A large collection's index is built in pieces, one per backend at once: RUM builds in a single process, so one
index left every other core idle for the last quarter of a load (1,000,000 documents: 307 s on one of two cores).
Piece i of n holds the entries whose `document_id % n = i`; corpus.search writes the OR of the pieces'
predicates, so the planner reads all of them as one BitmapOr, and the heap is still visited in order: a search
finds the same first matches as over one index."""

from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import connection, transaction

_BUILD_MEMORY = "SET LOCAL maintenance_work_mem = '256MB'"


def name(pk):
    return f"corpus_search_rum_{int(pk)}"


def piece_name(pk, i, n):
    return f"{name(pk)}_{int(i)}of{int(n)}"


def piece_predicate(i, n, column="document_id"):
    """Piece i of n: the index's predicate and, OR-ed over every i, the search's, written alike so that the
    planner proves one from the other."""
    return f"{column} % {int(n)} = {int(i)}"


def _create_sql(index, pk, n=1, i=0):
    piece = f" AND {piece_predicate(i, n)}" if n > 1 else ""
    return (
        f"CREATE INDEX IF NOT EXISTS {index} ON corpus_searchentry USING rum (vector rum_tsvector_ops) "
        f"WHERE collection_id + 0 = {int(pk)}{piece}"
    )


def pieces_for(entries):
    """How many pieces a build over `entries` rows makes: SEARCH_INDEX_PIECES from SEARCH_INDEX_PIECES_FROM
    entries on; one below, and inside a caller's transaction (the other backends could not see its rows)."""
    n = settings.SEARCH_INDEX_PIECES
    if n < 2 or entries < settings.SEARCH_INDEX_PIECES_FROM or connection.in_atomic_block:
        return 1
    return n


def piece_filter(alias, n):
    """The OR of the pieces' predicates that lets the planner use an index built in `n` pieces ("" for one), for
    a statement with parameters (its `%` doubled)."""
    if n <= 1:
        return ""
    either = " OR ".join(piece_predicate(i, n, f"{alias}.document_id") for i in range(int(n)))
    return f" AND ({either.replace('%', '%%')})"


def names(pk):
    """The collection's index, or its pieces, as they exist now."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'corpus_searchentry' "
            "AND (indexname = %s OR indexname ~ %s) ORDER BY indexname",
            [name(pk), f"^{name(pk)}_[0-9]+of[0-9]+$"],
        )
        return [row[0] for row in cur.fetchall()]


def create(pk, pieces=1):
    """Build the collection's index if it has none (a bulk build over its entries), in `pieces` pieces, each in a
    backend of its own; a build interrupted between pieces is completed in the number it began with. Returns the
    number of pieces the collection's index has."""
    existing = names(pk)
    if name(pk) in existing:
        return 1
    if existing:
        pieces = int(existing[0].rsplit("of", 1)[1])
    if pieces <= 1:
        build([_create_sql(name(pk), pk)])
        return 1
    if connection.in_atomic_block:
        raise RuntimeError("an index in pieces is built by other backends, which cannot see an open transaction")
    missing = [i for i in range(pieces) if piece_name(pk, i, pieces) not in existing]
    if not missing:
        return pieces
    try:
        build([_create_sql(piece_name(pk, i, pieces), pk, pieces, i) for i in missing])
    except Exception:
        drop(pk)  # never a collection searched through some of its pieces: the next build starts again
        raise
    return pieces


def build(statements):
    """Run CREATE INDEX statements over corpus_searchentry: one in the caller's connection and transaction, several
    side by side, each in a backend of its own (RUM and GIN build in one process). Raises the first failure once
    every build has ended. (corpus.search_pairs builds its pieces with it too.)"""
    if len(statements) == 1:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(_BUILD_MEMORY)
            # Django's foreign keys are checked at commit; PostgreSQL builds no index over rows whose checks are
            # still pending (a caller's open transaction), so they are checked now.
            cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cur.execute(statements[0])
            cur.execute("SET CONSTRAINTS ALL DEFERRED")
        return
    if connection.in_atomic_block:
        raise RuntimeError("an index in pieces is built by other backends, which cannot see an open transaction")
    with ThreadPoolExecutor(len(statements)) as pool:
        futures = [pool.submit(_build_apart, statement) for statement in statements]
    failures = [exc for exc in (f.exception() for f in futures) if exc is not None]
    if failures:
        raise failures[0]


def _build_apart(statement):
    """One build, in this thread's own connection (closed after: the thread ends)."""
    try:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(_BUILD_MEMORY)
            cur.execute(statement)
    finally:
        connection.close()


def drop(pk):
    with connection.cursor() as cur:
        for index in names(pk):
            cur.execute(f"DROP INDEX IF EXISTS {index}")


def exists(pk):
    return bool(names(pk))


def drop_with_collection(sender, instance, **kwargs):
    """post_delete of a Collection: its entries went with it, so its index goes too."""
    from corpus.search import index_kind

    if connection.vendor == "postgresql" and index_kind() == "rum":
        drop(instance.pk)
