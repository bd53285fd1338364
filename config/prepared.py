"""Server-side prepared statements for the few queries every judgment save runs (PostgreSQL only).

Django binds parameters on the client, so PostgreSQL plans each of these statements afresh: for the small
queries of a save, planning takes four to five times as long as running them (EXPLAIN: ~0.2 ms planning against
~0.04 ms execution). A statement prepared once per connection skips that. These go through Django's connection —
its transaction state, error translation and query log — but with psycopg's server-binding cursor.
"""

import functools
import time

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections

NEVER_AUTOMATICALLY = 2**31 - 1


def fetchone(sql, params):
    """Run `sql` (psycopg %(name)s placeholders, parameters cast in the SQL) as a prepared statement; its first
    row or None. The statement must return rows."""
    return _run(sql, params, lambda cursor: cursor.fetchone())  # (a CTE ends in SELECT)


def fetchall(sql, params):
    """fetchone's statement, all its rows."""
    return _run(sql, params, lambda cursor: cursor.fetchall())


def _run(sql, params, fetch):
    conn = connections[DEFAULT_DB_ALIAS]  # once: each `connection.x` is a lookup in a thread-local (issue 32)
    conn.validate_no_broken_transaction()
    conn.close_if_health_check_failed()
    conn.ensure_connection()
    started = time.monotonic()
    with conn.wrap_database_errors:
        raw = conn.connection
        if raw.prepare_threshold is None:
            # Django turns preparing off for the connection (for poolers); these statements ask for it by name
            # (prepare=True) and nothing else is prepared automatically, Django's client-binding cursors never.
            raw.prepare_threshold = NEVER_AUTOMATICALLY
        cursor = _cursor(conn, raw)

        def execute(sql, params, many, context):
            cursor.execute(sql, params, prepare=True)

        # Through the connection's execute wrappers as Django's cursors go: config.db_retry must see that a
        # save wrote, or a request whose connection died after its judgment committed would be run again.
        for wrapper in reversed(conn.execute_wrappers):
            execute = functools.partial(wrapper, execute)
        execute(sql, params, False, {"connection": conn, "cursor": cursor})
        rows = fetch(cursor)
    if conn.queries_logged:  # keep assertNumQueries and the debug log honest
        conn.queries_log.append({"sql": f"{sql} -- {params!r}", "time": f"{time.monotonic() - started:.3f}"})
    return rows


def _cursor(conn, raw):
    """One psycopg cursor per connection, kept on Django's wrapper: making one per statement was a tenth of the
    statement's client CPU. A cursor is reusable after an error (execute starts afresh); a new connection, or
    a closed cursor, gets a new one."""
    cursor = getattr(conn, "_assay_prepared_cursor", None)
    if cursor is None or cursor.closed or cursor.connection is not raw:
        cursor = conn._assay_prepared_cursor = psycopg.Cursor(raw)
    return cursor
