"""MS MARCO V2.1 segmented: the TREC RAG 2024/2025 collection, as a corpus collection format. Pure (no Django).

One JSON object a line, in gzipped (or plain) shards: {"docid": "msmarco_v2.1_doc_00_0#0_0", "url", "title",
"headings", "segment", "start_char", "end_char"} (SPEC-NOTES "TREC RAG"). The document's docno is the segment id,
its text the segment, and title/url/headings/start_char/end_char are kept in its metadata.

A segment id is `<document id>#<segment number>_<second number>`: the segment number counts the segments of one
document from 0, so the neighbours of a segment are the segments of the same document numbered within ±k
(`load_collection --only-cited … --neighbours k`). The collection is ~114 million segments; `--only-cited` loads only
what runs name (`wanted_from_runs`), and the scan that decides it reads each line's docid without decoding its JSON.
"""

import re
import sys
from collections.abc import Iterable, Iterator
from types import ModuleType

from config import safejson
from corpus.formats.base import CHUNK, ByteStream, FormatError, ParsedDocument, Record, SizeLimitExceeded, size_text
from tracks.rag.formats import runs

NAME = "msmarco-v2.1-segmented"
LABEL = "MS MARCO V2.1 segments"
SEGMENT_ID = re.compile(r"^(msmarco_v2\.1_doc_\d+_\d+)#(\d+)_(\d+)$")
META_FIELDS = ("title", "url", "headings", "start_char", "end_char")
_DOCID_AT_START = b'{"docid": "'  # how every line of the official shards begins: read without a JSON decoder
_DOCID = re.compile(rb'"docid"\s*:\s*"([^"\\]{1,200})"')
DEFAULT_NEIGHBOURS = 1  # segments on each side of a cited one also loaded (the assessor may read the context)


def records(stream: ByteStream, filename: str = "", max_record: int | None = None) -> Iterator[Record]:
    """One Record per non-blank line (number = line number, offset = the line's first byte in the decompressed
    shard). A line longer than `max_record` raises SizeLimitExceeded before it is gathered whole."""
    offset, number, rest = 0, 0, b""
    while True:
        data = stream.read(CHUNK)
        if not data:
            break
        lines = (rest + data).split(b"\n") if rest else data.split(b"\n")
        rest = lines.pop()
        for line in lines:
            number += 1
            if max_record is not None and len(line) > max_record:
                _too_long(number, offset, max_record)
            if line and not line.isspace():
                yield Record(number, offset, line)
            offset += len(line) + 1
        if max_record is not None and len(rest) > max_record:
            _too_long(number + 1, offset, max_record)
    if rest.strip():
        yield Record(number + 1, offset, rest)


def _too_long(number: int, offset: int, max_record: int) -> None:
    raise SizeLimitExceeded(f"record {number} (byte {offset}): a line longer than {size_text(max_record)}", "record")


def docno_of(raw: bytes) -> str | None:
    """The segment id, read from the bytes (the official shards start each line with it; else searched for)."""
    if raw.startswith(_DOCID_AT_START):
        end = raw.find(b'"', 11)
        if end > 11 and raw.find(b"\\", 11, end) < 0:
            return raw[11:end].decode("utf-8", "replace")
    found = _DOCID.search(raw)
    return found.group(1).decode("utf-8", "replace") if found else None


def parse_record(raw: bytes) -> ParsedDocument:
    try:
        obj = safejson.loads(raw, max_depth=8)
    except ValueError as e:
        raise FormatError(f"not JSON: {e}") from None
    if not isinstance(obj, dict):
        raise FormatError("a line must hold one JSON object")
    docid = obj.get("docid")
    if not isinstance(docid, str) or not docid.strip():
        raise FormatError("no docid")
    segment = obj.get("segment")
    if not isinstance(segment, str):
        raise FormatError(f"{docid}: no segment text")
    meta = {key: obj[key] for key in META_FIELDS if key in obj}
    if not isinstance(meta.get("title", ""), str):
        raise FormatError(f"{docid}: the title must be text")
    return ParsedDocument(docno=docid.strip(), raw=raw, charset="utf-8", meta=meta, text=segment.replace("\x00", ""))


def split_id(segid: str) -> tuple[str, int] | None:
    """("msmarco_v2.1_doc_00_0", 3) of "msmarco_v2.1_doc_00_0#3_1234"; None for what is no segment id."""
    found = SEGMENT_ID.match(segid)
    return (found.group(1), int(found.group(2))) if found else None


class CitedSegments:
    """The docnos a load by need keeps: each cited segment and the segments of its document numbered within ±k,
    and (`also`) the other segments the runs name, without neighbours.

    `docno in wanted` answers per scanned line (one dict lookup for the segments of documents no run cites);
    `expected` holds every segment id the runs name, the ones a load reports as missing when no shard held them.
    """

    def __init__(self, cited: Iterable[str], neighbours: int = DEFAULT_NEIGHBOURS, also: Iterable[str] = ()) -> None:
        if neighbours < 0:
            raise ValueError("the number of neighbours must be 0 or more")
        cited = set(cited)
        self.expected = cited | set(also)
        self.neighbours = neighbours
        self._numbers: dict[str, set[int]] = {}  # document id -> the segment numbers to keep
        for segid in cited:
            parts = split_id(segid)
            if parts is not None:
                doc, n = parts
                self._numbers.setdefault(doc, set()).update(range(max(0, n - neighbours), n + neighbours + 1))

    def __contains__(self, docno: object) -> bool:
        if not isinstance(docno, str):
            return False
        doc, sharp, rest = docno.partition("#")
        numbers = self._numbers.get(doc)
        if numbers is None:
            return docno in self.expected  # a segment of a document nothing cites is kept only when named itself
        number = rest.partition("_")[0]
        return (sharp == "#" and number.isdigit() and int(number) in numbers) or docno in self.expected

    def __len__(self) -> int:
        return len(self.expected)


def wanted_from_runs(files: Iterable[tuple[str, bytes]], neighbours: int = DEFAULT_NEIGHBOURS, pool_depth: int = 20):
    """(problems, CitedSegments) of a set of run files: every segment an answer cites and every segment a retrieval
    run ranks within pool_depth (what the relevance pool will hold), each with its neighbours, and every other
    segment the runs name (uncited references, deeper ranks: the check looks for them in the collection), without.
    Problems are `FILE:LINE: message` of files that could not be read as RAG runs."""
    problems: list[str] = []
    pooled: set[str] = set()
    named: set[str] = set()
    for filename, data in files:
        found, in_pool, others = runs.pooled_docids(data, filename, pool_depth)
        problems += [p.format(filename) for p in found]
        pooled |= in_pool
        named |= others
    return problems, CitedSegments(pooled, neighbours, also=named - pooled)


def collection_formats() -> dict[str, ModuleType]:
    """What the track registers as core.extension_points.collection_formats: this module under its name."""
    return {NAME: sys.modules[__name__]}
