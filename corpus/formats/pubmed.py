"""PubMed abstracts (BioGen's collection), in either shape they are handed around in:

- JSON Lines, one abstract per line: {"pmid": ..., "title": ..., "abstract": ...}. Exports name the fields
  differently, so the id is also read from "PMID", "id", "_id" or "docid", the title from "ArticleTitle" and the
  abstract from "text", "contents" or "AbstractText" (the first present wins).
- NLM's PubMed XML, as the annual baseline and the E-utilities hand it out: <PubmedArticleSet> of
  <PubmedArticle><MedlineCitation><PMID>…</PMID><Article><ArticleTitle>…</ArticleTitle><Abstract><AbstractText
  Label="…">…</AbstractText>…</Abstract>. A structured abstract keeps its section labels ("BACKGROUND: …").
  The same files hold <PubmedBookArticle> records (NCBI Bookshelf chapters, e.g. StatPearls or GeneReviews, which
  have PMIDs and abstracts a run may cite): <BookDocument><PMID>…</PMID><Book><BookTitle>…</BookTitle></Book>
  <ArticleTitle>…</ArticleTitle><Abstract>…</Abstract>. They are read as documents like articles (an article
  without an abstract is kept with its title, and so is a book article); the title is the chapter's
  ArticleTitle, or the BookTitle when it has none.

The first non-blank byte tells which: "<" is XML.
"""

import re
from collections.abc import Iterator

from lxml import etree

from config import safejson
from corpus.formats.base import (
    CHUNK,
    ByteStream,
    FormatError,
    ParsedDocument,
    Record,
    SizeLimitExceeded,
    size_text,
    split_records,
)

PMID_KEYS = ("pmid", "PMID", "id", "_id", "docid")
TITLE_KEYS = ("title", "ArticleTitle")
ABSTRACT_KEYS = ("abstract", "text", "contents", "AbstractText")
_XML_PMID = re.compile(rb"<PMID\b[^>]*>\s*([^<\s]+)\s*</PMID>")


class _Prefixed:
    """A stream with bytes already read put back in front."""

    def __init__(self, head: bytes, stream: ByteStream) -> None:
        self.head, self.stream = head, stream

    def read(self, n: int = -1, /) -> bytes:
        if self.head:
            out, self.head = self.head, b""
            return out
        return self.stream.read(n)


def records(stream: ByteStream, filename: str = "", max_record: int | None = None) -> Iterator[Record]:
    """One Record per abstract: a <PubmedArticle> or <PubmedBookArticle> of an XML file, or a non-blank line of
    JSON Lines."""
    head = stream.read(CHUNK)
    stream = _Prefixed(head, stream)
    if head.lstrip()[:1] == b"<":
        yield from split_records(
            stream,
            (b"<PubmedArticle>", b"<PubmedBookArticle>"),
            (b"</PubmedArticle>", b"</PubmedBookArticle>"),
            max_record=max_record,
        )
    else:
        yield from _lines(stream, max_record)


def _lines(stream: ByteStream, max_record: int | None) -> Iterator[Record]:
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


def _first(obj: dict, keys: tuple[str, ...]) -> str:
    for key in keys:
        if obj.get(key) not in (None, ""):
            return str(obj[key])
    return ""


def docno_of(raw: bytes) -> str | None:
    if raw.lstrip()[:1] == b"<":
        found = _XML_PMID.search(raw)  # MedlineCitation's own PMID comes before any cited article's
        return found.group(1).decode("ascii", "replace") if found else None
    try:
        pmid = _first(safejson.loads(raw), PMID_KEYS)
    except (ValueError, AttributeError):
        return None
    return pmid.strip() or None


def parse_record(raw: bytes) -> ParsedDocument:
    if raw.lstrip()[:1] == b"<":
        pmid, title, abstract = _parse_xml(raw)
    else:
        pmid, title, abstract = _parse_json(raw)
    if not pmid:
        raise FormatError("no pmid")
    text = "\n\n".join(t for t in (title, abstract) if t).replace("\x00", "")
    return ParsedDocument(docno=pmid, raw=raw, charset="utf-8", meta={"title": title.replace("\x00", "")}, text=text)


def _parse_json(raw: bytes) -> tuple[str, str, str]:
    try:
        obj = safejson.loads(raw)
    except ValueError as e:
        raise FormatError(f"not JSON: {e}") from None
    if not isinstance(obj, dict):
        raise FormatError("a line must hold one JSON object")
    return _first(obj, PMID_KEYS).strip(), _first(obj, TITLE_KEYS), _first(obj, ABSTRACT_KEYS)


_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def _words(element) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def _parse_xml(raw: bytes) -> tuple[str, str, str]:
    try:
        article = etree.fromstring(raw, _PARSER)
    except etree.XMLSyntaxError as e:
        raise FormatError(f"malformed XML: {e.msg}") from None
    if article.tag == "PubmedBookArticle":
        book = article.find("BookDocument")
        if book is None:
            raise FormatError("a <PubmedBookArticle> without <BookDocument>")
        pmid = _words(book.find("PMID"))
        title = _words(book.find("ArticleTitle")) or _words(book.find("Book/BookTitle"))
        return pmid, title, _abstract(book.findall("Abstract/AbstractText"))
    citation = article.find("MedlineCitation")
    if citation is None:
        raise FormatError("a <PubmedArticle> without <MedlineCitation>")
    pmid = _words(citation.find("PMID"))
    title = _words(citation.find("Article/ArticleTitle"))
    return pmid, title, _abstract(citation.findall("Article/Abstract/AbstractText"))


def _abstract(texts) -> str:
    """A (structured) abstract's <AbstractText> parts, each with its section label."""
    parts = []
    for part in texts:
        label, words = part.get("Label"), _words(part)
        parts.append(f"{label}: {words}" if label and words else words)
    return "\n".join(p for p in parts if p)
