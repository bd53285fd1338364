"""A large collection's RUM index is built in pieces side by side (corpus.search_rum, issue 32 item 4): RUM builds
in one process, so one index left the other cores idle at the end of a load. The planner reads the pieces as one
BitmapOr, so a search finds the same documents, ranks, snippets and counts as over one index."""

import json
from datetime import date

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from corpus import search_rum
from corpus.loading import load_collection
from corpus.models import Collection, SearchEntry
from corpus.search import build_index, drop_index, index_kind, search
from tests.search_results import found

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="RUM indexes are PostgreSQL's")

QUERIES = ["alpha", "alpha beta", '"alpha beta"', "alpha -beta", "beta or gamma", "notes", "report 7", "zeta"]


def _need_rum():
    if index_kind() != "rum":
        pytest.skip("this server has no RUM: one GIN index serves every collection")


def _abstracts(path, first, n):
    lines = []
    for i in range(first, first + n):
        words = ["alpha"] + (["beta"] * (i % 3) if i % 2 == 0 else ["delta"]) + (["gamma"] if i % 20 == 0 else [])
        lines.append({"pmid": str(900000 + i), "title": f"Report {i}", "abstract": " ".join(words + ["notes"] * i)})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.fixture
def pieces_settings(settings):
    settings.SEARCH_INDEX_PIECES = 2
    settings.SEARCH_INDEX_PIECES_FROM = 10
    return settings


@pytest.fixture
def large(transactional_db, pieces_settings, tmp_path):
    """60 abstracts loaded outside any transaction (as load_collection runs), with a second collection's rows in
    between and two rows moved to the heap's end; its index removed again at the end (a flush fires no signal)."""
    _need_rum()
    other = tmp_path / "other.jsonl"
    other.write_text(
        "".join(json.dumps({"pmid": str(i), "title": "alpha", "abstract": "alpha"}) + "\n" for i in range(9))
    )
    load_collection("large", "pubmed", [_abstracts(tmp_path / "a.jsonl", 0, 30)])
    load_collection("other", "pubmed", [other])
    collection = Collection.objects.get(name="large")
    drop_index(collection)  # entries of both halves first, then the one build this test is about
    load_collection("large", "pubmed", [_abstracts(tmp_path / "b.jsonl", 30, 30)], search_index=False)
    build_index(collection)
    SearchEntry.objects.filter(collection=collection, document__docno__in=["900001", "900004"]).update(
        date=date(2006, 1, 2)
    )
    collection.refresh_from_db()
    yield collection
    for c in Collection.objects.all():
        search_rum.drop(c.pk)


def test_a_large_collection_outside_a_transaction_is_built_in_pieces(large):
    assert large.search_pieces == 2 and large.search_status == "ready"
    assert search_rum.names(large.pk) == [search_rum.piece_name(large.pk, 0, 2), search_rum.piece_name(large.pk, 1, 2)]
    with connection.cursor() as cur:
        cur.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [search_rum.piece_name(large.pk, 1, 2)])
        assert cur.fetchone()[0].endswith(
            f"WHERE (((collection_id + 0) = {large.pk}) AND ((document_id % (2)::bigint) = 1))"
        )
        cur.execute("SELECT count(*) FROM corpus_searchentry WHERE collection_id = %s", [large.pk])
        assert cur.fetchone()[0] == 60


def test_pieces_find_what_one_index_finds(large, settings):
    """Every kind of query, a cap below the matches (the first ones in heap order) and above, pages 1 and 2."""
    by_pieces = {}
    for cap in (5, 300):
        settings.SEARCH_RANK_CANDIDATES = cap
        for query in QUERIES:
            for page in (1, 2):
                by_pieces[cap, query, page] = found(query, large, page)
    by_pieces["dated"] = search("alpha", [large], since=date(2006, 1, 1)).hits
    with CaptureQueriesContext(connection) as queries:  # the search itself writes the pieces' predicates
        search('"alpha beta"', [large])
    assert any("e.document_id % 2 = 1" in q["sql"] for q in queries.captured_queries)
    search_rum.drop(large.pk)
    assert search_rum.create(large.pk, 1) == 1
    Collection.objects.filter(pk=large.pk).update(search_pieces=1)
    large.refresh_from_db()
    for cap in (5, 300):
        settings.SEARCH_RANK_CANDIDATES = cap
        for query in QUERIES:
            for page in (1, 2):
                assert found(query, large, page) == by_pieces[cap, query, page], (cap, query, page)
    assert search("alpha", [large], since=date(2006, 1, 1)).hits == by_pieces["dated"]
    assert [h.docno for h in by_pieces["dated"]] and by_pieces[300, "alpha", 1][1] == 60


def test_the_planner_reads_every_piece_as_one_bitmap(large):
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off; SET LOCAL max_parallel_workers_per_gather = 0")
        cur.execute(
            "EXPLAIN SELECT e.document_id FROM corpus_searchentry e WHERE e.vector @@ "
            f"websearch_to_tsquery('english', 'alpha') AND e.collection_id + 0 = {large.pk}"
            f"{search_rum.piece_filter('e', 2)} LIMIT 5",
            [],
        )
        plan = "\n".join(row[0] for row in cur.fetchall())
    assert "BitmapOr" in plan and "Bitmap Heap Scan" in plan, plan
    for i in range(2):
        assert f"Bitmap Index Scan on {search_rum.piece_name(large.pk, i, 2)}" in plan, plan


def test_a_later_load_adds_to_the_pieces(large, tmp_path):
    load_collection("large", "pubmed", [_abstracts(tmp_path / "c.jsonl", 60, 3)])
    large.refresh_from_db()
    assert large.search_pieces == 2 and len(search_rum.names(large.pk)) == 2
    assert [h.docno for h in search("report 61", [large]).hits][0] == "900061"
    assert search("alpha", [large]).matched == 63


def test_an_interrupted_build_is_completed_in_the_pieces_it_began_with(large):
    with connection.cursor() as cur:
        cur.execute(f"DROP INDEX {search_rum.piece_name(large.pk, 1, 2)}")
    assert search_rum.create(large.pk, 5) == 2
    assert len(search_rum.names(large.pk)) == 2
    assert search_rum.create(large.pk, 5) == 2  # complete: nothing to build
    assert found("alpha beta", large)[1] == 20


def test_a_piece_that_fails_leaves_no_piece(large, monkeypatch):
    search_rum.drop(large.pk)
    real = search_rum._create_sql

    def failing(index, pk, n=1, i=0):
        return real(index, pk, n, i) if i == 0 else "CREATE INDEX broken ON no_such_table (x)"

    monkeypatch.setattr(search_rum, "_create_sql", failing)
    with pytest.raises(Exception, match="no_such_table"):
        search_rum.create(large.pk, 2)
    assert search_rum.names(large.pk) == []


def test_dropping_the_index_or_the_collection_drops_every_piece(large):
    drop_index(large)
    large.refresh_from_db()
    assert search_rum.names(large.pk) == [] and large.search_pieces == 1
    assert build_index(large) == 60 and len(search_rum.names(large.pk)) == 2
    pk = large.pk
    large.delete()
    assert search_rum.names(pk) == []


def test_small_collections_and_open_transactions_get_one_index(pieces_settings, db, tmp_path):
    """Inside a transaction (the other backends could not see its rows) and below the threshold: one index."""
    assert connection.in_atomic_block and search_rum.pieces_for(10**6) == 1
    with pytest.raises(RuntimeError, match="open transaction"):
        search_rum.create(10**9, 2)
    pieces_settings.SEARCH_INDEX_PIECES_FROM = 1000
    load_collection("small", "pubmed", [_abstracts(tmp_path / "a.jsonl", 0, 12)])
    small = Collection.objects.get(name="small")
    if index_kind() == "rum":
        assert search_rum.names(small.pk) == [search_rum.name(small.pk)] and small.search_pieces == 1


def test_pieces_for_follows_the_settings(transactional_db, settings):
    settings.SEARCH_INDEX_PIECES, settings.SEARCH_INDEX_PIECES_FROM = 3, 100
    assert not connection.in_atomic_block
    assert [search_rum.pieces_for(n) for n in (0, 99, 100, 10**6)] == [1, 1, 3, 3]
    settings.SEARCH_INDEX_PIECES = 1
    assert search_rum.pieces_for(10**6) == 1
