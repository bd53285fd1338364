"""Collection formats: pure parsers (no Django) from a collection's files to ParsedDocument records.

Each format module defines
    records(stream, filename, max_record=None) -> iterator of Record (one raw record and where it sits in the
        file); a record longer than max_record bytes raises base.SizeLimitExceeded, so memory stays bounded
    docno_of(raw: bytes) -> str | None      (cheap, so a --docnos limit skips records before parsing them)
    parse_record(raw: bytes) -> ParsedDocument, raising FormatError(reason) for a bad record
"""

from importlib import import_module
from types import ModuleType

FORMAT_MODULES: dict[str, str] = {
    "blog06": "corpus.formats.blog06",
    "aquaint2": "corpus.formats.aquaint2",
    "bolt-forum": "corpus.formats.bolt_forum",
    "pubmed": "corpus.formats.pubmed",
}


def format_module(name: str) -> ModuleType:
    try:
        return import_module(FORMAT_MODULES[name])
    except KeyError:
        raise ValueError(f"unknown collection format {name!r}; known: {', '.join(FORMAT_MODULES)}") from None
