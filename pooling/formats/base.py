"""The interface every track's file formats implement. Plain data, no Django import.

A topic format is a pure module (the track's `topic_format`, core.tracks.Track) with
    parse_topics(data: bytes, filename: str) -> (list[Problem], list[ParsedTopic])
A run format is a pure module (the track's `run_format`) with
    check_run(data: bytes, filename: str, context: CheckContext) -> (list[Problem], ParsedRun | None)
Both report every problem they find (not just the first); a caller loads nothing when any problem is returned,
except a Problem(warning=True): a note of the check report (shown by the checker page and `check_run`).
A run format may say what its files look like, FILE_SHAPE = "xml" or "text" (lines), so that a file of the other
shape, most likely meant for another evaluation, is named as such rather than only reported line by line.
What a format needs of the Django side (more context, work after storing) the track registers in
core.extension_points (the pooling points): a format module names no Django-side function.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Problem:
    line: int | None  # 1-based line in the file; None for a problem of the whole file
    message: str
    warning: bool = False  # a note of the check report (BioGen's discarded citations), which refuses nothing

    def format(self, filename: str) -> str:
        """NIST checker style: FILE:LINE: message."""
        note = "note: " if self.warning else ""
        return f"{filename}:{self.line if self.line is not None else 0}: {note}{self.message}"


@dataclass
class ParsedTopic:
    ident: str
    kind: str  # "series", "FACTOID", "LIST", "OTHER", "RIGIDLIST", "SQUISHYLIST", "reading-test", ...
    text: str
    parent: str | None = None  # ident of the enclosing series/topic
    line: int | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class ParsedEntry:
    topic: str  # ident of the question/topic the entry answers
    line: int
    docid: str = ""
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class PreparedRows:
    """A run's entries as the COPY text of their RunEntry rows (topic_id, line_no, docid, text, data; no run_id),
    written by the worker process that checked the file (pooling.formats.parallel), so that the storing process
    neither unpickles nor formats them again. `topic_ids`: {ident: Topic id} of the topics the rows name."""

    text: str
    topic_ids: dict[str, int]
    count: int


@dataclass
class ParsedRun:
    tag: str
    entries: list[ParsedEntry]
    data: dict[str, Any] = field(default_factory=dict)  # run-level fields (team id, resource type, header attributes…)
    rows: PreparedRows | None = None  # the entries as COPY text instead (`entries` is then empty): only for storing


@dataclass
class CheckContext:
    """What a run checker may know about the evaluation, without touching the database itself."""

    topics: dict[str, str]  # ident -> kind, for every question/topic a run must answer, in file order
    settings: dict[str, Any]  # the evaluation's settings (limits, NIL allowed, ...)
    known_docids: Callable[[set[str]], set[str]] = lambda docids: set(docids)  # returns the subset that exist
    extra: dict[str, Any] = field(default_factory=dict)  # anything else a format needs (e.g. post texts for BOLT)
