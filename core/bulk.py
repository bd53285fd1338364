"""Fast inserts of many rows on PostgreSQL: COPY, or one `INSERT ... SELECT FROM unnest(arrays)` per batch when
the new ids are wanted.

Django's bulk_create builds a placeholder per value, which dominates the time of loading 100,000 run lines or
pool links; streaming rows with COPY is several times faster. Other databases (the SQLite demo) use bulk_create.
"""

import json

from django.db import connection

BATCH = 20000
TEXT_BATCH = 1000


def _column_type(field):
    db_type = field.db_type(connection)
    return "jsonb" if db_type == "jsonb" else db_type


def _is_integer(field):
    """A NOT NULL integer column (ids, foreign keys): its values are written as bare digits."""
    return not field.null and field.db_type(connection) in ("integer", "bigint", "smallint")


def copy_text(value):
    """A string as a COPY text field: its backslashes, tabs, newlines and carriage returns escaped."""
    if "\\" not in value and value.isprintable():  # most texts: two scans instead of four replaces
        return value
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def copy_json(text):
    """JSON text as a COPY text field: JSON escapes every control character, so of COPY's specials only a
    backslash can be in it."""
    return text.replace("\\", "\\\\") if "\\" in text else text


def _json_field(value):
    return copy_json(json.dumps(value))


def _json_fields(values):
    """`_json_field` of each value. Dicts (run lines' data) are encoded in one json.dumps call and the text split
    between them, for json.dumps builds its encoder anew on every call: most of its time for a small dict. The
    split at "}, {" is exact when it gives one piece per dict: that text inside one would give more pieces."""
    if values and all(type(v) is dict for v in values):
        pieces = json.dumps(values)[2:-2].split("}, {")
        if len(pieces) == len(values):
            texts = ["{" + piece + "}" for piece in pieces]
            return [copy_json(t) for t in texts]
    return [_json_field(v) for v in values]


def _strings(values):
    return list(map(str, values))


def _escaped(values):
    return list(map(copy_text, values))


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
            write = _strings
        elif kind == "double precision":
            write = _floats
        elif kind == "jsonb":
            write = _json_fields
        elif kind == "text" or kind.startswith("varchar"):
            write = _escaped
        elif kind == "timestamp with time zone":
            write = _timestamps
        else:
            return None
        writers.append(_nullable(write) if f.null else write)
    return writers


def _text_block(rows, writers):
    """The rows as COPY text, written a column at a time (the loops in C)."""
    columns = [write(list(values)) for write, values in zip(writers, zip(*rows, strict=True), strict=True)]
    return "\n".join(map("\t".join, zip(*columns, strict=True))) + "\n"


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
                    copy.write(_text_block(rows[start : start + TEXT_BATCH], text))
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
