"""The interface every track's file formats implement. Plain data, no Django import.

A topic format is a module `pooling.formats.<name>` (named by the track's `topic_format`) with
    parse_topics(data: bytes, filename: str) -> (list[Problem], list[ParsedTopic])
A run format is a module `pooling.formats.<name>` (named by the track's `run_format`) with
    check_run(data: bytes, filename: str, context: CheckContext) -> (list[Problem], ParsedRun | None)
Both report every problem they find (not just the first); a caller loads nothing when any problem is returned,
except a Problem(warning=True): a note of the check report (shown by the checker page and `check_run`).
A run format may say what its files look like, FILE_SHAPE = "xml" or "text" (lines), so that a file of the other
shape, most likely meant for another evaluation, is named as such rather than only reported line by line.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from types import ModuleType
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
class ParsedRun:
    tag: str
    entries: list[ParsedEntry]
    data: dict[str, Any] = field(default_factory=dict)  # run-level fields (team id, resource type, header attributes…)


@dataclass
class CheckContext:
    """What a run checker may know about the evaluation, without touching the database itself."""

    topics: dict[str, str]  # ident -> kind, for every question/topic a run must answer, in file order
    settings: dict[str, Any]  # the evaluation's settings (limits, NIL allowed, ...)
    known_docids: Callable[[set[str]], set[str]] = lambda docids: set(docids)  # returns the subset that exist
    extra: dict[str, Any] = field(default_factory=dict)  # anything else a format needs (e.g. post texts for BOLT)


def load_format(name: str) -> ModuleType:
    """The module of a topic or run format named in a track declaration: a dotted module path (a track's own
    formats, e.g. "tracks.bolt.formats.topics") or the name of a module in pooling.formats."""
    return import_module(name if "." in name else f"pooling.formats.{name}")


def resolve(dotted: str) -> Any:
    """The object a format names by dotted path ("package.module.function"): its hooks (AFTER_LOAD,
    AFTER_STORE, CONTEXT_EXTRA, BATCH_CONTEXT) live on the Django side, which a format must not import."""
    module_name, _, attribute = dotted.rpartition(".")
    return getattr(import_module(module_name), attribute)
