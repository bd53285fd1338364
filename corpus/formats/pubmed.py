"""PubMed abstracts as JSON Lines: {"pmid": ..., "title": ..., "abstract": ...} per line (BioGen)."""

import json
from collections.abc import Iterator

from corpus.formats.base import CHUNK, ByteStream, FormatError, ParsedDocument, Record, SizeLimitExceeded, size_text


def records(stream: ByteStream, filename: str = "", max_record: int | None = None) -> Iterator[Record]:
    """One Record per non-blank line; number is the line number, offset the line's first byte. A line longer
    than `max_record` bytes raises SizeLimitExceeded rather than being gathered whole."""
    offset, number, rest = 0, 0, b""
    while True:
        data = stream.read(CHUNK)
        lines = (rest + data).split(b"\n")
        rest = lines.pop() if data else b""
        for line in lines:
            number += 1
            _check(line, number, offset, max_record)
            if line.strip():
                yield Record(number, offset, line.rstrip(b"\r"))
            offset += len(line) + 1
        _check(rest, number + 1, offset, max_record)
        if not data:
            return


def _check(line: bytes, number: int, offset: int, max_record: int | None) -> None:
    if max_record is not None and len(line) > max_record:
        raise SizeLimitExceeded(
            f"record {number} (byte {offset}): a line longer than {size_text(max_record)}", "record"
        )


def docno_of(raw: bytes) -> str | None:
    try:
        pmid = json.loads(raw).get("pmid")
    except (ValueError, AttributeError):
        return None
    return str(pmid).strip() if pmid not in (None, "") else None


def parse_record(raw: bytes) -> ParsedDocument:
    try:
        obj = json.loads(raw)
    except ValueError as e:
        raise FormatError(f"not JSON: {e}") from None
    if not isinstance(obj, dict):
        raise FormatError("a line must hold one JSON object")
    pmid = str(obj.get("pmid") or "").strip()
    if not pmid:
        raise FormatError("no pmid")
    title = str(obj.get("title") or "")
    abstract = str(obj.get("abstract") or "")
    text = "\n\n".join(t for t in (title, abstract) if t).replace("\x00", "")
    return ParsedDocument(docno=pmid, raw=raw, charset="utf-8", meta={"title": title.replace("\x00", "")}, text=text)
