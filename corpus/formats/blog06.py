"""TREC Blog06 permalink bundles: <DOC> records of DOCNO, DATE_XML, FEEDNO, FEEDURL, BLOGHPNO, BLOGHPURL,
PERMALINK, DOCHDR (the crawler's line and the HTTP response headers), then the raw page up to </DOC>."""

import re
from collections.abc import Iterator
from typing import Any

from corpus.formats import charset
from corpus.formats.base import ByteStream, FormatError, ParsedDocument, Record, split_records
from corpus.formats.text import html_text

FIELDS: tuple[str, ...] = ("DATE_XML", "FEEDNO", "FEEDURL", "BLOGHPNO", "BLOGHPURL", "PERMALINK")
_DOCNO = re.compile(rb"<DOCNO>\s*([^<\s]+)\s*</DOCNO>")
_FIELD = re.compile(rb"<(DATE_XML|FEEDNO|FEEDURL|BLOGHPNO|BLOGHPURL|PERMALINK)>(.*?)</\1>", re.S)
_HEADER_LINE = re.compile(r"^([!-9;-~]+):[ \t]*(.*)$")  # RFC 7230 token, colon, value


def records(stream: ByteStream, filename: str = "", max_record: int | None = None) -> Iterator[Record]:
    return split_records(stream, b"<DOC>", b"</DOC>", max_record=max_record)


def docno_of(raw: bytes) -> str | None:
    m = _DOCNO.search(raw, 0, 512)
    return m.group(1).decode("ascii", "replace") if m else None


def parse_headers(dochdr: str) -> dict[str, Any]:
    """The DOCHDR block: the crawler's line (URL, IP, time, length), the HTTP status line, then headers."""
    lines = dochdr.strip("\r\n").splitlines()
    out: dict[str, Any] = {"crawl": lines[0] if lines else "", "status": "", "headers": {}}
    for line in lines[1:]:
        line = line.rstrip("\r")
        if line.startswith("HTTP/") and not out["status"]:
            out["status"] = line
            continue
        m = _HEADER_LINE.match(line)
        if m:
            name = m.group(1).lower()
            headers = out["headers"]
            headers[name] = f"{headers[name]}, {m.group(2)}" if name in headers else m.group(2)
    return out


def parse_record(raw: bytes) -> ParsedDocument:
    docno = docno_of(raw)
    if not docno:
        raise FormatError("no <DOCNO>")
    start = raw.find(b"<DOCHDR>")
    end = raw.find(b"</DOCHDR>", start)
    if start < 0 or end < 0:
        raise FormatError(f"{docno}: no <DOCHDR>...</DOCHDR>")
    meta = {k.decode(): v.strip().decode("utf-8", "replace") for k, v in _FIELD.findall(raw, 0, start)}
    missing = [f for f in FIELDS if f not in meta and f != "BLOGHPNO"]
    if missing:
        raise FormatError(f"{docno}: missing {', '.join('<' + f + '>' for f in missing)}")
    meta.setdefault("BLOGHPNO", "")
    dochdr = raw[start + 8 : end].decode("latin-1")  # HTTP header bytes are ISO-8859-1 by definition
    meta["DOCHDR"] = parse_headers(dochdr)
    page = raw[end + 9 : raw.rfind(b"</DOC>")]
    if page.startswith(b"\r\n"):
        page = page[2:]
    elif page.startswith(b"\n"):
        page = page[1:]
    header_cs = charset.from_content_type(meta["DOCHDR"]["headers"].get("content-type", ""))
    name, codec, source, decoded = charset.choose_and_decode(page, header_cs)
    meta["charset_source"] = source
    text = html_text(decoded, controls=not charset.control_free(page, codec))
    return ParsedDocument(docno=docno, raw=page, charset=name, meta=meta, text=text)
