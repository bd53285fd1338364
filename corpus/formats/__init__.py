"""Collection formats: pure parsers (no Django) from a collection's files to ParsedDocument records.

Each format module defines
    records(stream, filename, max_record=None) -> iterator of Record (one raw record and where it sits in the
        file); a record longer than max_record bytes raises base.SizeLimitExceeded, so memory stays bounded
    docno_of(raw: bytes) -> str | None      (cheap, so a --docnos limit skips records before parsing them)
    parse_record(raw: bytes) -> ParsedDocument, raising FormatError(reason) for a bad record
and may define, for a collection too large to load whole (`load_collection --only-cited RUN_FILE…`),
    wanted_from_runs(files: [(filename, bytes)], neighbours=…, pool_depth=…) -> (problems, wanted): the
        documents the run files would have judged, `wanted` answering `docno in wanted` for each record scanned and
        holding in `wanted.expected` the docnos the runs name (reported when no file held them).

Corpus's own formats are in FORMAT_MODULES; a track adds its own through the extension point
core.extension_points.collection_formats (corpus imports no track).
"""

from importlib import import_module
from types import ModuleType

from core import extension_points as ep

FORMAT_MODULES: dict[str, str] = {
    "blog06": "corpus.formats.blog06",
    "aquaint2": "corpus.formats.aquaint2",
    "bolt-forum": "corpus.formats.bolt_forum",
    "pubmed": "corpus.formats.pubmed",
}


def _track_formats() -> dict[str, ModuleType]:
    found: dict[str, ModuleType] = {}
    for _, formats in ep.collection_formats.items():
        for name, module in formats().items():
            found.setdefault(name, module)
    return found


LABELS = {
    "blog06": "Blog06 permalinks",
    "aquaint2": "AQUAINT-2 newswire",
    "bolt-forum": "BOLT discussion forums",
    "pubmed": "PubMed abstracts",
}


def format_choices() -> list[tuple[str, str]]:
    """(name, label) of every collection format; a track's module says its label in LABEL."""
    tracks = _track_formats()
    return [(name, LABELS.get(name) or str(getattr(tracks.get(name), "LABEL", name))) for name in format_names()]


def format_names() -> list[str]:
    """Every collection format's name: corpus's own and those the installed tracks bring."""
    return sorted(set(FORMAT_MODULES) | set(_track_formats()))


def format_module(name: str) -> ModuleType:
    if name in FORMAT_MODULES:
        return import_module(FORMAT_MODULES[name])
    module = _track_formats().get(name)
    if module is None:
        raise ValueError(f"unknown collection format {name!r}; known: {', '.join(format_names())}")
    return module
