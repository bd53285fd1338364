"""Fast inserts of many rows on PostgreSQL: COPY, or one `INSERT ... SELECT FROM unnest(arrays)` per batch when
the new ids are wanted.

Django's bulk_create builds a placeholder per value, which dominates the time of loading 100,000 run lines or
pool links; streaming rows with COPY is several times faster. Other databases (the SQLite demo) use bulk_create.
"""

import json

from django.db import connection

from core.copy_text import escaped, json_fields, strings, text_block

BATCH = 20000
TEXT_BATCH = 1000


def _column_type(field):
    db_type = field.db_type(connection)
    return "jsonb" if db_type == "jsonb" else db_type


def _is_integer(field):
    """A NOT NULL integer column (ids, foreign keys): its values are written as bare digits."""
    return not field.null and field.db_type(connection) in ("integer", "bigint", "smallint")


def _floats(values):
    # the shortest repr reads back as the same double, as psycopg sends floats
    return [repr(float(v)) for v in values]


def _timestamps(values):
    return [v.isoformat() for v in values]


def _nullable(write):
    """`write` for a column that may hold None (COPY's \\N)."""

    def fields(values):
        present = [v for v in values if v is not None]
        if len(present) == len(values):
            return write(values)
        written = iter(write(present))
        return ["\\N" if v is None else next(written) for v in values]

    return fields


def _text_writers(model_fields):
    """Per column, a function giving a list of values' COPY text fields, when every column is an integer, float,
    text, JSON or timestamp one (run lines: 300,000 BOLT citations; a full rescoring's 30,000 scores); None
    otherwise (psycopg's write_row then formats each row). One write per batch instead of a psycopg call per
    row."""
    writers = []
    for f in model_fields:
        kind = f.db_type(connection)
        if kind in ("integer", "bigint", "smallint"):
            write = strings
        elif kind == "double precision":
            write = _floats
        elif kind == "jsonb":
            write = json_fields
        elif kind == "text" or kind.startswith("varchar"):
            write = escaped
        elif kind == "timestamp with time zone":
            write = _timestamps
        else:
            return None
        writers.append(_nullable(write) if f.null else write)
    return writers


COPY_CHUNK = 1 << 20


def copy_text_rows(model, fields, text):
    """COPY `text`, rows already written as COPY text (pooling.formats.parallel.entry_rows), into `fields`
    (attribute names) of `model`'s table (PostgreSQL only)."""
    if not text:
        return
    meta = model._meta
    columns = ", ".join(connection.ops.quote_name(meta.get_field(name).column) for name in fields)
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY {connection.ops.quote_name(meta.db_table)} ({columns}) FROM STDIN") as copy:
            for start in range(0, len(text), COPY_CHUNK):  # (the server stores one piece while the next is sent)
                copy.write(text[start : start + COPY_CHUNK])


def insert_rows(model, fields, rows, returning=()):
    """Insert `rows` (tuples of values for `fields`, attribute names); returns tuples of `returning` columns."""
    rows = list(rows)
    if not rows:
        return []
    meta = model._meta
    model_fields = [meta.get_field(name) for name in fields]
    if connection.vendor != "postgresql":
        objs = model.objects.bulk_create([model(**dict(zip(fields, row))) for row in rows], batch_size=2000)
        return [tuple(getattr(o, name) for name in returning) for o in objs] if returning else []

    columns = ", ".join(connection.ops.quote_name(f.column) for f in model_fields)
    is_json = [_column_type(f) == "jsonb" for f in model_fields]
    if not returning:
        # COPY streams the rows without building a statement at all.
        table = connection.ops.quote_name(meta.db_table)
        with connection.cursor() as cursor:
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                if all(_is_integer(f) for f in model_fields):
                    # Links and other rows of plain numbers: COPY text needs no escaping, so whole batches are
                    # written at once instead of a Python call per row.
                    for start in range(0, len(rows), BATCH):
                        copy.write("".join("\t".join(map(str, row)) + "\n" for row in rows[start : start + BATCH]))
                    return []
                text = _text_writers(model_fields)
                if text is None:
                    for row in rows:
                        copy.write_row([json.dumps(v) if j else v for v, j in zip(row, is_json)])
                    return []
                # Small writes: the server stores one while the next is formatted.
                for start in range(0, len(rows), TEXT_BATCH):
                    copy.write(text_block(rows[start : start + TEXT_BATCH], text))
        return []
    arrays = ", ".join(f"%s::{_column_type(f)}[]" for f in model_fields)
    sql = f"INSERT INTO {connection.ops.quote_name(meta.db_table)} ({columns}) SELECT * FROM unnest({arrays})"
    if returning:
        sql += " RETURNING " + ", ".join(connection.ops.quote_name(meta.get_field(n).column) for n in returning)
    out = []
    with connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH):
            batch = rows[start : start + BATCH]
            params = []
            for i, json_column in enumerate(is_json):
                values = [row[i] for row in batch]
                params.append([json.dumps(v) for v in values] if json_column else values)
            cursor.execute(sql, params)
            if returning:
                out.extend(cursor.fetchall())
    return out
