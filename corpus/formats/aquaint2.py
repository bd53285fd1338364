"""AQUAINT-2 newswire DOCSTREAM files: <DOC id=".." type=".."> with optional HEADLINE and DATELINE and a TEXT
whose paragraphs are <P> elements (or plain text split on blank lines)."""

import html
import re
from collections.abc import Iterator
from typing import Any

from corpus.formats.base import ByteStream, FormatError, ParsedDocument, Record, split_records

_DOC_OPEN = re.compile(rb"<DOC\s+([^>]*)>")
_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_ID = re.compile(rb"""\bid\s*=\s*["']?([^"'\s>]+)""")
_TAG = re.compile(r"<[^>]*>")


def records(stream: ByteStream, filename: str = "", max_record: int | None = None) -> Iterator[Record]:
    return split_records(stream, b"<DOC ", b"</DOC>", max_record=max_record)


def docno_of(raw: bytes) -> str | None:
    m = _ID.search(raw, 0, 300)
    return m.group(1).decode("ascii", "replace") if m else None


def attributes(text: str) -> dict[str, str]:
    return {
        m.group(1).lower(): html.unescape(m.group(2) or m.group(3) or m.group(4) or "") for m in _ATTR.finditer(text)
    }


def _element(text: str, name: str) -> str | None:
    m = re.search(rf"<{name}\b[^>]*>(.*?)</{name}\s*>", text, re.S | re.I)
    return m.group(1) if m else None


def _clean(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", fragment)).split())


def structure(raw: bytes) -> dict[str, Any]:
    """docno, type, headline, dateline and paragraphs of one <DOC> record (bytes)."""
    text = raw.decode("utf-8", "replace")
    m = _DOC_OPEN.match(raw)
    if not m:
        raise FormatError("record does not start with <DOC ...>")
    attrs = attributes(m.group(1).decode("utf-8", "replace"))
    if not attrs.get("id"):
        raise FormatError("<DOC> without an id attribute")
    body = _element(text, "TEXT")
    if body is None:
        raise FormatError(f"{attrs['id']}: no <TEXT>")
    paras = re.findall(r"<P\b[^>]*>(.*?)</P\s*>", body, re.S | re.I)
    if not paras:
        paras = re.split(r"\n\s*\n", body)
    return {
        "docno": attrs["id"],
        "type": attrs.get("type", ""),
        "headline": _clean(_element(text, "HEADLINE") or ""),
        "dateline": _clean(_element(text, "DATELINE") or ""),
        "paragraphs": [p for p in (_clean(p) for p in paras) if p],
    }


def parse_record(raw: bytes) -> ParsedDocument:
    s = structure(raw)
    meta = {"type": s["type"], "headline": s["headline"], "dateline": s["dateline"]}
    text = "\n\n".join([t for t in (s["headline"], s["dateline"]) if t] + s["paragraphs"])
    return ParsedDocument(docno=s["docno"], raw=raw, charset="utf-8", meta=meta, text=text)
