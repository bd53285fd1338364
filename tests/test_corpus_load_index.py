"""A load indexes its documents for search batch by batch (issue 32, item 4): the same documents, entries and
search results as loading first and building the index afterwards; a batch's documents and their entries are
stored together or not at all; appending to an indexed collection indexes what it adds."""

import re
from pathlib import Path

import pytest
from django.db import connection

from corpus import loading
from corpus.loading import LoadRefused, load_collection
from corpus.models import Collection, Document, SearchEntry
from corpus.search import build_index, search

FIX = Path(__file__).resolve().parent / "fixtures"
BLOGS = [FIX / "corpus" / "blog06-demo.txt", FIX / "corpus" / "blog06-demo-2.txt.gz", FIX / "corpus" / "blog06-bad.txt"]
FORUM = [FIX / "corpus" / "forum" / "bolt-forum-demo.xml", FIX / "bolt" / "forum.xml"]
ABSTRACTS = [FIX / "search" / "relevance.jsonl"]
QUERIES = ["kingkong", "king kong", '"morning desk"', "battery or camera", "phone -battery", "razr", "film"]

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("the entries are written with the batches on PostgreSQL only")


def _documents(name):
    rows = Document.objects.filter(collection__name=name).values_list("docno", "raw", "charset", "meta", "text")
    return sorted((d, bytes(r), c, m, t) for d, r, c, m, t in rows)


def _entries(name):
    """Each document's entry: its date and its tsvector as text (lexemes, positions and weights)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT d.docno, e.date, e.vector::text FROM corpus_searchentry e "
            "JOIN corpus_document d ON d.id = e.document_id JOIN corpus_collection c ON c.id = e.collection_id "
            "WHERE c.name = %s ORDER BY d.docno",
            [name],
        )
        return cur.fetchall()


def _found(name, queries):
    collection = Collection.objects.get(name=name)
    return [[(h.docno, h.date, round(h.rank, 6), h.snippet) for h in search(q, [collection]).hits] for q in queries]


@pytest.mark.parametrize(
    "fmt, paths, queries",
    [
        ("blog06", BLOGS, QUERIES),
        ("bolt-forum", FORUM, ["dam flood", "razr battery", '"metro line"', "tickets -students"]),
        ("pubmed", ABSTRACTS, ["kidney stones", '"shock wave"', "metformin", "patients"]),
    ],
)
def test_indexed_with_the_batches_as_when_built_after_the_load(fmt, paths, queries):
    """Documents, entries (vectors, dates) and search results (order, ranks, snippets) are those of the path
    before issue 32: load without the index, then build it over the collection."""
    with_batches = load_collection("inline", fmt, paths, batch=2)
    assert with_batches.inserted > 0 and with_batches.stages["entries"] > 0
    load_collection("after", fmt, paths, batch=2, search_index=False)
    assert _entries("after") == [] and build_index("after") == with_batches.inserted

    assert _documents("inline") == _documents("after")
    assert _entries("inline") == _entries("after") and len(_entries("inline")) == with_batches.inserted
    found = _found("inline", queries)
    assert found == _found("after", queries) and any(found)
    inline = Collection.objects.get(name="inline")
    assert (inline.search_status, inline.search_done, inline.search_total) == ("ready",) + (with_batches.inserted,) * 2


def test_worker_processes_index_their_batches_too(transactional_db):
    load_collection("two", "blog06", BLOGS, workers=2, batch=3)
    load_collection("one", "blog06", BLOGS, workers=1, search_index=False)
    build_index("one")
    assert _entries("two") == _entries("one")
    assert len(_entries("two")) == Document.objects.filter(collection__name="two").count() == 12
    assert _found("two", QUERIES) == _found("one", QUERIES)


def test_a_batch_that_fails_leaves_neither_its_documents_nor_their_entries(monkeypatch):
    """An interrupted load keeps whole batches, each document with its entry; loading again completes it."""
    real, calls = loading.index_loaded, []

    def fail_second(*args):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the server went away")
        return real(*args)

    monkeypatch.setattr(loading, "index_loaded", fail_second)
    with pytest.raises(RuntimeError, match="went away"):
        load_collection("cut", "blog06", BLOGS[:1], batch=3)
    stored = Document.objects.filter(collection__name="cut")
    assert stored.count() == 3  # the first batch, whole
    assert SearchEntry.objects.filter(document__in=stored).count() == 3
    monkeypatch.setattr(loading, "index_loaded", real)
    again = load_collection("cut", "blog06", BLOGS[:1], batch=3)
    assert again.inserted == stored.count() - 3 > 0
    assert SearchEntry.objects.filter(collection__name="cut").count() == stored.count()


def test_appending_to_an_indexed_collection_indexes_what_it_adds():
    first = load_collection("grow", "blog06", BLOGS[:1])
    kong = len(_found("grow", ["kong"])[0])  # one King Kong post in the first file, three in the second
    second = load_collection("grow", "blog06", BLOGS[1:2])
    assert first.inserted and second.inserted and second.already_present == 0
    assert len(_entries("grow")) == first.inserted + second.inserted
    assert (kong, len(_found("grow", ["kong"])[0])) == (1, 4)
    load_collection("whole", "blog06", BLOGS[:2], search_index=False)
    build_index("whole")
    assert _entries("grow") == _entries("whole")


def test_a_load_after_one_without_the_index_catches_up_on_it():
    load_collection("late", "blog06", BLOGS[:1], search_index=False)
    report = load_collection("late", "blog06", BLOGS[:2])
    assert report.inserted > 0 and report.already_present > 0
    assert len(_entries("late")) == Document.objects.filter(collection__name="late").count()


def test_a_refused_load_removes_the_entries_with_the_documents(settings, tmp_path):
    import gzip
    import json

    settings.CORPUS_MAX_FILE_BYTES = 64 << 10
    lines = (json.dumps({"pmid": str(i), "title": f"T {i}", "abstract": "kidney " * 20}) for i in range(3000))
    big = tmp_path / "big.jsonl.gz"
    big.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    with pytest.raises(LoadRefused):
        load_collection("capped", "pubmed", ABSTRACTS + [big], batch=50)
    assert not SearchEntry.objects.exists() and not Document.objects.exists()


class _Explaining:
    """A cursor that EXPLAINs what it is given instead of running it (the plan is kept; no rows come back)."""

    def __init__(self, cur):
        self.cur, self.plans = cur, []

    def execute(self, sql, params):
        self.cur.execute("EXPLAIN " + sql, params)
        self.plans.append("\n".join(row[0] for row in self.cur.fetchall()))

    def fetchall(self):
        return []


def _forget_statistics(cur):
    """The documents' table as a new server has it while a load grows it: never analyzed (rolled back with the
    test's transaction)."""
    cur.execute("DELETE FROM pg_statistic WHERE starelid = 'corpus_document'::regclass")
    cur.execute("UPDATE pg_class SET reltuples = -1 WHERE oid = 'corpus_document'::regclass")


def _grown(name, n=1500):
    """A collection of `n` small documents, and their docnos."""
    collection = Collection.objects.create(name=name, format="blog06")
    docnos = [f"BLOG06-20060101-000-{i:010d}" for i in range(n)]
    Document.objects.bulk_create(
        Document(collection=collection, docno=d, raw=b"<p>x</p>", text=f"post {i}") for i, d in enumerate(docnos)
    )
    return collection, docnos


def test_a_batch_looks_up_its_docnos_one_by_one_whatever_the_statistics_say():
    """A load's statistics lag the collection it grows (autovacuum may be off, as on this project's CI server, or
    not by yet). The plans the statistics once gave hashed or scanned all of the collection's documents for each
    batch, a cost that grew with the collection; each docno must be one probe of the unique index instead."""
    collection, docnos = _grown("grown")
    docnos = docnos[1000:]  # a batch of 500
    with connection.cursor() as wrapper:
        cur = wrapper.cursor
        _forget_statistics(cur)
        explaining = _Explaining(cur)
        loading._present(explaining, collection.pk, docnos)
        loading.index_loaded(explaining, collection.pk, "english", docnos, [None] * len(docnos))
    assert len(explaining.plans) == 2
    for plan in explaining.plans:
        # one probe per docno: the index's condition holds the docno, not only the collection
        assert re.search(r"Index Cond: \(\(collection_id = \d+\) AND \(\(docno\)::text = u\.\w+\)\)", plan), plan
        assert "Hash" not in plan and "Merge" not in plan and "Materialize" not in plan, plan
        assert "Seq Scan on corpus_document" not in plan and "Bitmap Heap Scan on corpus_document" not in plan, plan


def test_a_build_after_the_load_walks_the_documents_by_key_whatever_the_statistics_say():
    """build_index after a load without the index (`--search later`): each batch of documents without an entry is
    found by walking the primary key from the last one, and each document is one probe of that key. Left to the
    statistics, the planner read and sorted all of the collection's documents for every batch, and hashed the
    whole table to write each batch's entries."""
    from django.db import transaction
    from django.test.utils import CaptureQueriesContext

    collection, _ = _grown("later")
    with connection.cursor() as wrapper:
        _forget_statistics(wrapper.cursor)
    with CaptureQueriesContext(connection) as captured:
        assert build_index(collection, batch=500) == 1500
    statements = [q["sql"] for q in captured.captured_queries]
    batches = [s for s in statements if s.startswith("SELECT") and "corpus_searchentry" in s and "LIMIT 500" in s]
    writes = [s for s in statements if s.startswith("INSERT INTO corpus_searchentry")]
    settings = [s for s in statements if s.startswith("SET LOCAL")]  # what the batches' transactions set
    assert len(batches) >= len(writes) == 3
    with connection.cursor() as wrapper:
        cur = wrapper.cursor
        _forget_statistics(cur)
        for sql in writes:
            cur.execute("EXPLAIN " + sql)
            plan = "\n".join(row[0] for row in cur.fetchall())
            assert "Index Scan using corpus_document_pkey on corpus_document" in plan, plan
            assert "Index Cond: (id = u.key)" in plan and "Hash" not in plan and "Seq Scan" not in plan, plan
        for sql in batches:
            with transaction.atomic():
                for setting in set(settings):
                    cur.execute(setting)
                cur.execute("EXPLAIN " + sql)
                plan = "\n".join(row[0] for row in cur.fetchall())
            assert re.search(r"Index Scan using corpus_document_pkey on corpus_document", plan), plan
            assert re.search(r"Index Cond: \(id > \d+\)", plan), plan
            assert "Sort" not in plan and "Seq Scan on corpus_document" not in plan, plan
            assert "Index Cond: (document_id = d.id)" in plan, plan  # the entry's probe
