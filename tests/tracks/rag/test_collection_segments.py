"""The MS MARCO V2.1 segmented collection format (pure): records, docnos, documents, and the segments a load by
need keeps (the cited ones and their neighbours)."""

import gzip
import io
import json

from corpus.formats.base import GzipStream
from tracks.rag.formats import segments


def segment(doc=0, n=0, text="Some text.", **extra):
    return {
        "docid": f"msmarco_v2.1_doc_00_{doc}#{n}_{100 * n}",
        "url": f"https://example.org/{doc}",
        "title": f"Title {doc}",
        "headings": "Title\nSection",
        "segment": text,
        "start_char": 100 * n,
        "end_char": 100 * n + len(text),
    } | extra


def shard(*objs):
    return "".join(json.dumps(o) + "\n" for o in objs).encode()


def test_a_gzipped_shard_is_read_line_by_line_into_documents():
    data = gzip.compress(shard(segment(0, 0, "First."), segment(0, 1, "Second.")))
    recs = list(segments.records(GzipStream(io.BytesIO(data)), "s.json.gz"))
    assert [(r.number, segments.docno_of(r.raw)) for r in recs] == [
        (1, "msmarco_v2.1_doc_00_0#0_0"),
        (2, "msmarco_v2.1_doc_00_0#1_100"),
    ]
    doc = segments.parse_record(recs[1].raw)
    assert doc.docno == "msmarco_v2.1_doc_00_0#1_100" and doc.text == "Second." and doc.charset == "utf-8"
    assert doc.meta == {
        "title": "Title 0",
        "url": "https://example.org/0",
        "headings": "Title\nSection",
        "start_char": 100,
        "end_char": 107,
    }


def test_cited_segments_keep_their_neighbours_within_k_of_the_same_document_only():
    wanted = segments.CitedSegments({"msmarco_v2.1_doc_00_5#3_300"}, neighbours=1)
    kept = [n for n in range(7) if f"msmarco_v2.1_doc_00_5#{n}_{n}" in wanted]
    assert kept == [2, 3, 4]
    assert "msmarco_v2.1_doc_00_6#3_300" not in wanted  # another document
    assert "msmarco_v2.1_doc_00_55#3_300" not in wanted
    assert wanted.expected == {"msmarco_v2.1_doc_00_5#3_300"}
    none = segments.CitedSegments({"msmarco_v2.1_doc_00_5#0_0"}, neighbours=0)
    assert "msmarco_v2.1_doc_00_5#0_0" in none and "msmarco_v2.1_doc_00_5#1_9" not in none


def test_lines_are_bounded_and_odd_lines_named_by_the_loader_not_guessed():
    import pytest

    from corpus.formats.base import FormatError, SizeLimitExceeded

    data = (
        shard(segment(0, 0)) + b"\r\n" + b"   \n" + b'{"docid": "x"}\n' + b"[1]\n" + json.dumps(segment(0, 1)).encode()
    )
    recs = list(segments.records(io.BytesIO(data), "s.json"))
    assert [r.number for r in recs] == [1, 4, 5, 6]  # blank lines skipped; the last line needs no newline
    assert segments.parse_record(recs[3].raw).docno == "msmarco_v2.1_doc_00_0#1_100"
    with pytest.raises(FormatError, match="msmarco_v2.1_doc_00_0#0_0: no segment text"):
        segments.parse_record(json.dumps(segment(0, 0) | {"segment": None}).encode())
    with pytest.raises(FormatError, match="x: no segment text"):
        segments.parse_record(recs[1].raw)
    with pytest.raises(FormatError, match="a line must hold one JSON object"):
        segments.parse_record(recs[2].raw)
    with pytest.raises(FormatError, match="not JSON"):
        segments.parse_record(b'{"docid": ')
    first = shard(segment(0, 0))
    with pytest.raises(SizeLimitExceeded, match=f"record 2 \\(byte {len(first)}\\): a line longer than 300 bytes"):
        list(segments.records(io.BytesIO(first + b"x" * 301 + b"\n"), max_record=300))
    with pytest.raises(SizeLimitExceeded, match="record 1 \\(byte 0\\): a line longer than 300 bytes"):
        list(segments.records(io.BytesIO(b"x" * 5000), max_record=300))  # no newline at all: not gathered whole
    assert "start" not in segments.parse_record(recs[0].raw).meta


def test_the_docid_is_read_without_decoding_and_found_in_any_key_order():
    assert segments.docno_of(b'{"docid": "msmarco_v2.1_doc_00_0#0_0", "segment": "..."}') == "msmarco_v2.1_doc_00_0#0_0"
    assert segments.docno_of(b'{"url": "u", "docid" : "msmarco_v2.1_doc_00_9#2_5"}') == "msmarco_v2.1_doc_00_9#2_5"
    assert segments.docno_of(b'{"url": "u"}') is None
