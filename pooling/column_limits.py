"""What a parsed file may hold before it is stored: values within the columns' lengths and free of NUL.

The formats are pure and know nothing of the database, so a 60-character question id or a NUL byte passed them
and surfaced as a raw `DataError` on save. These checks run after parsing and before anything is stored, and
name the line like every other problem. The lengths are read from the models, so they cannot drift apart.
"""

from pooling.formats.base import Problem
from pooling.models import Run, RunEntry, Topic


def _max(model, name):
    return model._meta.get_field(name).max_length


def _holds_nul(value):
    """PostgreSQL refuses NUL in text and in JSON strings alike."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_holds_nul(v) for v in value)
    return False


def _too_long(what, value, longest):
    return f"{what} is {len(value)} characters long; at most {longest} are allowed"


def topic_problems(topics):
    """Problems of parsed topics (pooling.formats.base.ParsedTopic) that their columns cannot hold."""
    problems = []
    ident_max, kind_max = _max(Topic, "ident"), _max(Topic, "kind")
    for t in topics:
        if len(t.ident) > ident_max:
            problems.append(Problem(t.line, _too_long(f"id {t.ident[:20]!r}…", t.ident, ident_max)))
        if len(t.kind) > kind_max:
            problems.append(Problem(t.line, _too_long(f"type {t.kind[:20]!r}…", t.kind, kind_max)))
        if _holds_nul(t.ident) or _holds_nul(t.text) or _holds_nul(t.kind) or _holds_nul(t.data):
            problems.append(Problem(t.line, f"topic {t.ident[:50]!r} holds a NUL character"))
    return problems


def run_problems(parsed):
    """Problems of a parsed run (pooling.formats.base.ParsedRun) that its columns cannot hold."""
    problems = []
    tag_max, docid_max = _max(Run, "tag"), _max(RunEntry, "docid")
    if len(parsed.tag) > tag_max:
        problems.append(Problem(None, _too_long(f"run tag {parsed.tag[:20]!r}…", parsed.tag, tag_max)))
    if _holds_nul(parsed.tag) or _holds_nul(parsed.data):
        problems.append(Problem(None, "the run's tag or header holds a NUL character"))
    for e in parsed.entries:
        if len(e.docid) > docid_max:
            problems.append(Problem(e.line, _too_long(f"document id {e.docid[:20]!r}…", e.docid, docid_max)))
        if _holds_nul(e.docid) or _holds_nul(e.text) or _holds_nul(e.data):
            problems.append(Problem(e.line, "the line holds a NUL character"))
    return problems
