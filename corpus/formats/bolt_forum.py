"""LDC discussion-forum XML (BOLT): <doc id="thread"> with <headline> and <post author datetime id> elements
whose content is raw XML text (entities such as &amp; and <quote orig_author="..."> elements).

BOLT citations count characters in a post's raw XML text from the first character after the <post ...> tag, an
entity counting as all of its raw characters, so each post's raw text is kept exactly: meta["posts"] records
where it sits (start, length in characters) inside the decoded thread.
"""

import html
import re
from collections.abc import Iterator
from typing import Any

from corpus.formats.aquaint2 import attributes
from corpus.formats.base import ByteStream, FormatError, ParsedDocument, Record, split_records

_ID = re.compile(rb"""<doc\s[^>]*?\bid\s*=\s*["']([^"']+)["']""")
_POST_OPEN = re.compile(r"<post\b([^>]*)>")
_POST_CLOSE = "</post>"
_HEADLINE = re.compile(r"<headline>(.*?)</headline>", re.S)
# Tokens of a post's raw text: a tag, an entity, or a run of plain characters.
TOKEN = re.compile(r"<[^>]*>|&#?\w+;|[^<&]+|[<&]")
_QUOTE_OPEN = re.compile(r"<quote\b([^>]*)>")


def records(stream: ByteStream, filename: str = "", max_record: int | None = None) -> Iterator[Record]:
    return split_records(stream, b"<doc ", b"</doc>", max_record=max_record)


def docno_of(raw: bytes) -> str | None:
    m = _ID.search(raw, 0, 500)
    return m.group(1).decode("utf-8", "replace") if m else None


def posts(text: str) -> list[dict[str, Any]]:
    """[{id, author, datetime, start, length}] for each <post> of a decoded thread."""
    out: list[dict[str, Any]] = []
    pos = 0
    while True:
        m = _POST_OPEN.search(text, pos)
        if not m:
            return out
        close = text.find(_POST_CLOSE, m.end())
        if close < 0:
            raise FormatError(f"<post> at character {m.start()} has no </post>")
        attrs = attributes(m.group(1))
        out.append(
            {
                "id": attrs.get("id", ""),
                "author": attrs.get("author", ""),
                "datetime": attrs.get("datetime", ""),
                "start": m.end(),
                "length": close - m.end(),
            }
        )
        pos = close + len(_POST_CLOSE)


def post_plain_text(raw_post: str) -> str:
    """What a reader sees of a post: tags dropped (quotes included), entities decoded, blanks collapsed."""
    parts = []
    for tok in TOKEN.findall(raw_post):
        if tok.startswith("<") and len(tok) > 1:
            parts.append(" ")
        else:
            parts.append(html.unescape(tok))
    return " ".join("".join(parts).split())


def decode(raw: bytes) -> tuple[str, str]:
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace"), "utf-8 (bad bytes replaced)"


def parse_record(raw: bytes) -> ParsedDocument:
    docno = docno_of(raw)
    if not docno:
        raise FormatError('no <doc id="...">')
    text, source = decode(raw)
    headline = _HEADLINE.search(text)
    plist = posts(text)
    if not plist:
        raise FormatError(f"{docno}: no <post>")
    missing = [str(i + 1) for i, p in enumerate(plist) if not p["id"]]
    if missing:
        raise FormatError(f"{docno}: post(s) number {', '.join(missing)} without an id")
    meta: dict[str, Any] = {
        "thread": docno,
        "headline": html.unescape(headline.group(1).strip()) if headline else "",
        "posts": plist,
        "charset_source": source,
    }
    body = "\n\n".join(post_plain_text(text[p["start"] : p["start"] + p["length"]]) for p in plist)
    full = "\n\n".join(t for t in (meta["headline"], body) if t).replace("\x00", "")
    return ParsedDocument(docno=docno, raw=raw, charset="utf-8", meta=meta, text=full)


def post_raw_text(raw: bytes, meta: dict[str, Any], post_id: str) -> str | None:
    """The exact raw XML text of one post (what BOLT offsets count in), or None."""
    text, _ = decode(raw)
    for p in meta.get("posts", ()):
        if p["id"] == post_id:
            return text[p["start"] : p["start"] + p["length"]]
    return None
