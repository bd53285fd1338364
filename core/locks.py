"""Row locks the ORM cannot ask for.

Tables whose rows point at runs and topics without foreign-key constraints (RunEntry, Score: checking the
constraint row by row cost more than the inserts) lock the rows they point at FOR KEY SHARE instead, once per
run or topic: a concurrent delete of one waits for the transaction, yet other writers are not held up.
"""

from django.core.exceptions import EmptyResultSet
from django.db import connection


def key_shared(queryset, *fields):
    """queryset.values_list(*fields) as a list of tuples, its rows locked FOR KEY SHARE until the transaction
    ends on PostgreSQL (elsewhere, the SQLite demo, no lock: it has one writer at a time anyway). Order the
    queryset by id where several transactions may lock the same rows, so they take them in the same order."""
    rows = queryset.values_list(*fields)
    if connection.vendor != "postgresql":
        return list(rows)
    try:
        sql, params = rows.query.sql_with_params()
    except EmptyResultSet:  # (a filter such as id__in=[] that can match nothing)
        return []
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} FOR KEY SHARE", params)
        return cursor.fetchall()
