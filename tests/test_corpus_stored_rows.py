"""What a load stores stays what it stored: every fixture collection's rows (docno, raw, charset, meta, text) against
digests recorded by an earlier version of the loaders (tests/fixtures/corpus/stored-rows.json).

A faster loader must store the same bytes. When a change of what is stored is meant, rewrite the digests with
`STORED_ROWS_WRITE=1 pytest tests/test_corpus_stored_rows.py` and say why in the commit.
"""

import hashlib
import json
import os
from pathlib import Path

import pytest

from corpus.loading import load_collection
from corpus.models import Document

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIX = FIXTURES / "corpus"
GOLDEN = FIX / "stored-rows.json"
HOSTILE = FIX / "hostile"

pytestmark = pytest.mark.django_db

# Pages that take the text extractor's and the charset choice's less common paths: control characters and NULs,
# blanks of every kind (collapsed like str.split() does), empty and blank pages, a stateful charset (ISO-2022-JP)
# and a label Python knows but the alias table does not.
_EDGES = [
    ("utf-8", "UTF-8", "<p>one\x01two\x1fthree</p><div>tab\there\x0bvt\x0cff</div>"),
    ("utf-8", "UTF-8", "<p>nul\x00inside</p>\x00<p>\x1c\x1d\x1e sep\x85next\u2028line</p>"),
    ("utf-8", "UTF-8", "<p>  spaced\u00a0\u00a0out \u3000ideographic\u2002en\u205fmath\u202fnarrow  </p>"),
    ("utf-8", "UTF-8", "<p>a\r\nb\rc\n\n\nd</p><br><br/><li>  </li><td>\u00a0</td><p>e</p>"),
    ("utf-8", "UTF-8", ""),
    ("utf-8", "UTF-8", " \n\t "),
    ("utf-8", None, "\ufeff<html><body><p>bom first</p></body></html>"),
    ("cp1252", "ISO-8859-1", "<p>caf\u00e9\x02 \u201cq\u201d</p>\x00<pre>  keep\n  lines</pre>"),
    ("iso2022_jp", "ISO-2022-JP", "<p>\u643a\u5e2f\u96fb\u8a71\u306e\u96fb\u6c60</p><p>\u30c6\u30ec\u30d3</p>"),
    ("cp932", None, '<meta charset="Shift_JIS"><p>\u8584\u304f\u3066\x07\u304b\u3063\u3053\u3044\u3044</p>'),
    ("utf-16-le", "UTF-16", "<p>sixteen</p>"),
    ("cp1251", "windows-1251", "<p>\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440</p>"),
    ("latin-1", "ISO-8859-15", "<p>\u00e9t\u00e9 <b>gras</b>\tet\u00a0fin</p><script>x()</script>tail"),
]


def _record(docno, page, header_charset):
    ctype = "text/html" + (f"; charset={header_charset}" if header_charset else "")
    head = (
        f"<DOC>\n<DOCNO>{docno}</DOCNO>\n<DATE_XML>2006-01-01T00:00:00+0000</DATE_XML>\n<FEEDNO>BLOG06-feed-1</FEEDNO>"
        f"\n<FEEDURL>http://b.example/rss</FEEDURL>\n<BLOGHPNO></BLOGHPNO>\n<BLOGHPURL>http://b.example/</BLOGHPURL>\n"
        f"<PERMALINK>http://b.example/{docno}.html</PERMALINK>\n<DOCHDR>\nhttp://b.example/ 0.0.0.0 200601010000 "
        f"{len(page)}\nHTTP/1.1 200 OK\nContent-Type: {ctype}\n</DOCHDR>\n"
    )
    return head.encode("ascii") + page + b"\n</DOC>\n"


def _edge_collection(folder):
    """A Blog06 file of the hostile vectors (tests/fixtures/corpus/hostile) and the edge pages above."""
    records = []
    for path in sorted(HOSTILE.glob("*.txt")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip() and not line.startswith("#"):
                page = f"<html><head><title>h</title></head><body><p>before</p>{line}<p>after</p></body></html>"
                records.append(_record(f"HOSTILE-{path.stem}-{number:03d}", page.encode(), "UTF-8"))
    for i, (codec, label, page) in enumerate(_EDGES):
        records.append(_record(f"EDGE-{i:02d}", page.encode(codec, "replace"), label))
    path = Path(folder) / "edges.txt"
    path.write_bytes(b"".join(records))
    return path


def _collections(tmp_path):
    return [
        ("blog06", "blog06", [FIX / "blog06-demo.txt", FIX / "blog06-demo-2.txt.gz", FIX / "blog06-bad.txt"]),
        ("edges", "blog06", [_edge_collection(tmp_path)]),
        ("aquaint2", "aquaint2", [FIX / "aquaint2-sample.xml"]),
        ("forum", "bolt-forum", [FIX / "forum" / "bolt-forum-demo.xml", FIXTURES / "bolt" / "forum.xml"]),
        (
            "pubmed",
            "pubmed",
            [
                FIX / "pubmed-sample.jsonl",
                FIX / "pubmed-other-keys.jsonl",
                FIX / "pubmed-baseline-sample.xml",
                FIXTURES / "biogen" / "pubmed.jsonl",
            ],
        ),
    ]


def _digest(docno, raw, charset, meta, text):
    row = json.dumps([docno, bytes(raw).hex(), charset, meta, text], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(row.encode("ascii")).hexdigest()[:32]


def _stored(name):
    rows = Document.objects.filter(collection__name=name).values_list("docno", "raw", "charset", "meta", "text")
    return {r[0]: _digest(*r) for r in rows}


def test_fixture_collections_store_the_same_rows(tmp_path):
    stored = {}
    for name, fmt, paths in _collections(tmp_path):
        load_collection(name, fmt, paths, search_index=False)
        stored[name] = _stored(name)
    if os.environ.get("STORED_ROWS_WRITE"):
        GOLDEN.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    expected = json.loads(GOLDEN.read_text())
    for name, digests in expected.items():
        changed = sorted(d for d in digests.keys() | stored[name].keys() if digests.get(d) != stored[name].get(d))
        assert not changed, f"{name}: rows stored differently for {changed[:10]}"
    assert sum(len(d) for d in expected.values()) > 300  # the hostile vectors are all there


def test_worker_processes_store_the_same_rows(tmp_path, transactional_db):
    """The parallel path (forked workers, each with its own connection) stores what one process does."""
    name, fmt, paths = _collections(tmp_path)[0]
    load_collection(name, fmt, paths, workers=2, search_index=False)
    assert _stored(name) == json.loads(GOLDEN.read_text())[name]
