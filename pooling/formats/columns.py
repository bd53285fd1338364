"""What a parsed run may hold before it is stored, given its columns' lengths (pooling.column_limits reads them
from the models). Pure, so that a worker process checking run files (pooling.formats.parallel) checks this too."""

from typing import Any

from pooling.formats.base import ParsedRun, Problem


def holds_nul(value: Any) -> bool:
    """PostgreSQL refuses NUL in text and in JSON strings alike."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(holds_nul(k) or holds_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(holds_nul(v) for v in value)
    return False


def too_long(what: str, value: str, longest: int) -> str:
    return f"{what} is {len(value)} characters long; at most {longest} are allowed"


def run_problems(parsed: ParsedRun, tag_max: int, docid_max: int, nul_free: bool = False) -> list[Problem]:
    """Problems of a parsed run that its columns cannot hold (Run.tag, RunEntry.docid: at most so long; no NUL).
    `nul_free`: the run format says its entries hold no NUL (NUL_FREE), which is then not looked for in them."""
    problems = []
    if len(parsed.tag) > tag_max:
        problems.append(Problem(None, too_long(f"run tag {parsed.tag[:20]!r}…", parsed.tag, tag_max)))
    if holds_nul(parsed.tag) or holds_nul(parsed.data):
        problems.append(Problem(None, "the run's tag or header holds a NUL character"))
    for e in parsed.entries:
        if len(e.docid) > docid_max:
            problems.append(Problem(e.line, too_long(f"document id {e.docid[:20]!r}…", e.docid, docid_max)))
        # repr shows a NUL as \x00: a line's data (JSON-like) is walked only when its repr holds that text (a
        # third of the time of walking every one: 300,000 BOLT citations).
        if nul_free:
            continue
        if "\x00" in e.docid or "\x00" in e.text or ("\\x00" in repr(e.data) and holds_nul(e.data)):
            problems.append(Problem(e.line, "the line holds a NUL character"))
    return problems
