"""What a parsed file may hold before it is stored: values within the columns' lengths and free of NUL.

The formats are pure and know nothing of the database, so a 60-character question id or a NUL byte passed them
and surfaced as a raw `DataError` on save. These checks run after parsing and before anything is stored, and
name the line like every other problem. The lengths are read from the models, so they cannot drift apart.
"""

from pooling.formats import columns
from pooling.formats.base import Problem
from pooling.models import Run, RunEntry, Topic


def _max(model, name):
    return model._meta.get_field(name).max_length


def topic_problems(topics):
    """Problems of parsed topics (pooling.formats.base.ParsedTopic) that their columns cannot hold."""
    problems = []
    ident_max, kind_max = _max(Topic, "ident"), _max(Topic, "kind")
    for t in topics:
        if len(t.ident) > ident_max:
            problems.append(Problem(t.line, columns.too_long(f"id {t.ident[:20]!r}…", t.ident, ident_max)))
        if len(t.kind) > kind_max:
            problems.append(Problem(t.line, columns.too_long(f"type {t.kind[:20]!r}…", t.kind, kind_max)))
        if any(columns.holds_nul(field) for field in (t.ident, t.text, t.kind, t.data)):
            problems.append(Problem(t.line, f"topic {t.ident[:50]!r} holds a NUL character"))
    return problems


def run_problems(parsed, module=None):
    """Problems of a parsed run (pooling.formats.base.ParsedRun) that its columns cannot hold; `module`: its run
    format (NUL_FREE)."""
    return columns.run_problems(parsed, **run_limits(module))


def run_limits(module=None):
    """What pooling.formats.columns.run_problems checks a run of the format `module` against: the column lengths,
    and whether the format says its entries hold no NUL (NUL_FREE: an XML parser's strings, for one)."""
    return {
        "tag_max": _max(Run, "tag"),
        "docid_max": _max(RunEntry, "docid"),
        "nul_free": bool(getattr(module, "NUL_FREE", False)),
    }
