"""The database reset after a transactional test, without Django's flush where it can (PostgreSQL).

Django's flush empties all 53 tables with one TRUNCATE, and then re-creates every content type and permission
(post_migrate): 0.3 to 1.5 s a test, most of it TRUNCATE's fixed cost per table (new files for each table and index)
whether it held rows or not. A test fills a dozen tables with a few hundred rows, so here one query finds the
tables that hold rows and one transaction DELETEs them (Django's foreign keys are DEFERRABLE INITIALLY DEFERRED on
PostgreSQL, so the order does not matter: they are checked at the commit, when every table is empty); a table of
many rows is TRUNCATEd instead, where that is cheaper. Content types and permissions are kept rather than
re-created, so their ids stay as they were (a test that added one gets Django's flush instead). The end state is
flush's: every table empty but those two, which hold what post_migrate makes; `tests/test_fast_reset.py` checks it.
"""

from django.db import connections, transaction
from django.test import TransactionTestCase

# post_migrate fills these (create_contenttypes, create_permissions); kept as the first reset found them
KEPT = ("django_content_type", "auth_permission")
# a table holding more rows than this is TRUNCATEd (DELETE's cost grows with the rows, TRUNCATE's does not)
DELETE_AT_MOST = 5000

_kept_counts: dict[str, tuple[int, ...]] = {}


def _tables(connection) -> list[str]:
    return sorted(connection.introspection.django_table_names(only_existing=True, include_views=False))


def _rows(connection, tables: list[str]) -> dict[str, int]:
    """Each table's rows, in one query: the kept ones' all, the others' up to DELETE_AT_MOST + 1."""
    quote = connection.ops.quote_name
    parts = [
        f"SELECT {i}, (SELECT count(*) FROM (SELECT 1 FROM {quote(t)}"
        f"{'' if t in KEPT else f' LIMIT {DELETE_AT_MOST + 1}'}) rows)"
        for i, t in enumerate(tables)
    ]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts))
        return {tables[i]: n for i, n in cursor.fetchall()}


def empty_tables(using: str = "default") -> bool:
    """Empty every table Django's flush would, keeping the content types and permissions; False (nothing done)
    where this cannot stand in for the flush: not PostgreSQL, or the kept tables are not as the first reset found
    them."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return False
    tables = _tables(connection)
    rows = _rows(connection, tables)
    kept = tuple(rows.get(t, 0) for t in KEPT)
    if _kept_counts.setdefault(connection.settings_dict["NAME"], kept) != kept or not all(kept):
        return False
    quote = connection.ops.quote_name
    big = [t for t in tables if t not in KEPT and rows[t] > DELETE_AT_MOST]
    small = [t for t in tables if t not in KEPT and 0 < rows[t] <= DELETE_AT_MOST]
    with transaction.atomic(using=using), connection.cursor() as cursor:
        if big:  # (CASCADE: also the tables whose rows refer to them, which the DELETEs would empty anyway)
            cursor.execute(f"TRUNCATE {', '.join(quote(t) for t in big)} CASCADE")
        if small:
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            cursor.execute("; ".join(f"DELETE FROM {quote(t)}" for t in small))
    return True


_django_teardown = TransactionTestCase._fixture_teardown


def _fixture_teardown(self):
    """TransactionTestCase._fixture_teardown: empty_tables where it stands in for Django's flush, else the flush."""
    if self.available_apps is None and not self.serialized_rollback:
        if all(empty_tables(name) for name in self._databases_names(include_mirrors=False)):
            return
    _django_teardown(self)


def install() -> None:
    TransactionTestCase._fixture_teardown = _fixture_teardown
