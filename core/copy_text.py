"""COPY text fields (PostgreSQL's text format) of plain values. Pure: core.bulk writes them in the web or worker
process, and pooling.formats.parallel in the processes that check run files, which import no Django."""

import json


def copy_text(value):
    """A string as a COPY text field: its backslashes, tabs, newlines and carriage returns escaped."""
    if "\\" not in value and value.isprintable():  # most texts: two scans instead of four replaces
        return value
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def copy_json(text):
    """JSON text as a COPY text field: JSON escapes every control character, so of COPY's specials only a
    backslash can be in it."""
    return text.replace("\\", "\\\\") if "\\" in text else text


def json_field(value):
    return copy_json(json.dumps(value))


def json_fields(values):
    """`json_field` of each value. Dicts (run lines' data) are encoded in one json.dumps call and the text split
    between them, for json.dumps builds its encoder anew on every call: most of its time for a small dict. The
    split at "}, {" is exact when it gives one piece per dict: that text inside one would give more pieces."""
    if values and all(type(v) is dict for v in values):
        text = json.dumps(values)
        pieces = text[2:-2].split("}, {")
        if len(pieces) == len(values):
            texts = ["{" + piece + "}" for piece in pieces]
            return [copy_json(t) for t in texts] if "\\" in text else texts
    return [json_field(v) for v in values]


def strings(values):
    return list(map(str, values))


def escaped(values):
    """`copy_text` of each string; a column none of whose strings needs escaping (a batch of passages, as a
    rule) is found so by one scan of them all, not a call per string."""
    joined = "".join(values)
    if "\\" not in joined and joined.isprintable():
        return list(values)
    return list(map(copy_text, values))


def text_block(rows, writers):
    """The rows as COPY text, written a column at a time (the loops in C): `writers` gives, per column, a
    function from the column's values to their fields."""
    columns = [write(list(values)) for write, values in zip(writers, zip(*rows, strict=True), strict=True)]
    return "\n".join(map("\t".join, zip(*columns, strict=True))) + "\n"
