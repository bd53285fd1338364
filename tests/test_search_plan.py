"""Searches of common words read the collection in heap order instead of the full-text index (corpus.search_plan,
issue 32 item 4): the choice follows the words' shares of documents from PostgreSQL's statistics, and either way
the same documents, ranks, snippets and counts come back."""

import json
from datetime import date

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from corpus import search_plan, search_query
from corpus.loading import load_collection
from corpus.models import Collection, SearchEntry
from corpus.search import search
from tests.search_results import found

AND = "'alpha' & 'beta'"


def test_an_and_of_words_in_most_documents_of_a_large_collection_is_scanned():
    # a word in 74 % of 1,000,000 documents: ~405 rows read against 740,000 postings
    assert search_plan.scan_is_cheaper("'alpha'", [0.74], 1_000_000, 300)
    assert search_plan.scan_is_cheaper(AND, [0.74, 0.5], 1_000_000, 300)
    # the same word in a small collection: its postings cost less than the rows
    assert not search_plan.scan_is_cheaper("'alpha'", [0.74], 5_000, 300)
    # a word in 5 %: 6,000 rows against 50,000 postings
    assert not search_plan.scan_is_cheaper("'alpha'", [0.05], 1_000_000, 300)
    # a word missing from the statistics, or no statistics at all
    assert not search_plan.scan_is_cheaper(AND, [0.74, 0.0], 1_000_000, 300)
    assert not search_plan.scan_is_cheaper("'alpha'", None, 1_000_000, 300)
    assert not search_plan.scan_is_cheaper("'alpha'", [0.74], 0, 300)


@pytest.mark.parametrize(
    "tsquery",
    ["'alpha' <-> 'beta'", "'alpha' & !'beta'", "'alpha' | 'beta'", "'alpha' <2> 'beta'", "( 'alpha' | 'beta' )", ""],
)
def test_phrases_exclusions_and_alternatives_keep_the_index(tsquery):
    assert not search_plan.scan_is_cheaper(tsquery, [0.9, 0.9], 1_000_000, 300)


def test_only_plain_words_without_dates_in_a_large_collection_are_worth_asking_the_statistics_about():
    words = search_query.parse("alpha beta")
    assert search_plan.may_scan(words, None, None, 1_000_000, 300)
    assert not search_plan.may_scan(words, date(2006, 1, 1), None, 1_000_000, 300)
    assert not search_plan.may_scan(words, None, date(2006, 1, 1), 1_000_000, 300)
    for query in ['"alpha beta"', "alpha -beta", "alpha or beta"]:
        assert not search_plan.may_scan(search_query.parse(query), None, None, 1_000_000, 300), query
    # too small for a scan to win even for words in every document: no statistics read
    assert not search_plan.may_scan(words, None, None, 10_000, 300)
    assert not search_plan.scan_is_cheaper("'alpha'", [1.0], 10_000, 300)


@pytest.fixture
def common(db, tmp_path):
    """60 abstracts, every one with "alpha", every other with "beta", a few with "gamma"; a second collection
    loaded in between, so the first one's rows are not contiguous in the heap."""
    lines = []
    for i in range(60):
        words = ["alpha"] + (["beta"] * (i % 3) if i % 2 == 0 else ["delta"]) + (["gamma"] if i % 20 == 0 else [])
        lines.append({"pmid": str(900000 + i), "title": f"Report {i}", "abstract": " ".join(words + ["notes"] * i)})
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(json.dumps(x) + "\n" for x in lines[:30]))
    second.write_text("".join(json.dumps(x) + "\n" for x in lines[30:]))
    other = tmp_path / "other.jsonl"
    other.write_text(
        "".join(json.dumps({"pmid": str(i), "title": "alpha", "abstract": "alpha"}) + "\n" for i in range(9))
    )
    load_collection("common", "pubmed", [first])
    load_collection("other", "pubmed", [other])
    load_collection("common", "pubmed", [second])  # (appended after the other collection's rows)
    collection = Collection.objects.get(name="common")
    # rows moved to the end of the heap: heap order is no longer the order of document ids
    SearchEntry.objects.filter(collection=collection, document__docno__in=["900001", "900004"]).update(
        date=date(2006, 1, 2)
    )
    return collection


def scanned(queries):
    return any("collection_id * 1" in q["sql"] for q in queries.captured_queries)


def narrowed(queries):
    return any("::tsquery AND ts_match_vq" in q["sql"] for q in queries.captured_queries)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statistics and heap order")
def test_the_scan_finds_what_the_index_finds(common, settings, monkeypatch):
    with connection.cursor() as cur:  # the load ran ANALYZE: the shares are there to read
        cur.execute(search_plan.FREQUENCIES, ["english", "alpha beta"])
        text, shares, floor = cur.fetchone()
    assert text == AND and shares[0] > 0.9 and 0.2 < shares[1] < 0.6 and 0 < floor <= min(shares)
    monkeypatch.setattr(search_plan, "SCAN_ROW_US", 0.0001)  # every AND of known words is scanned
    for cap in (5, 300):  # fewer than match (the first 5 in heap order), then all
        settings.SEARCH_RANK_CANDIDATES = cap
        for query in ["alpha", "alpha beta", "beta alpha", "notes", "alpha gamma", "zeta"]:
            for page in (1, 2):
                settings.SEARCH_SCAN_IN_ORDER = True
                with CaptureQueriesContext(connection) as queries:
                    by_scan = found(query, common, page)
                assert scanned(queries) == (query != "zeta"), query  # (a word in no document has no share)
                settings.SEARCH_SCAN_IN_ORDER = False
                with CaptureQueriesContext(connection) as queries:
                    by_index = found(query, common, page)
                assert not scanned(queries)
                assert by_scan == by_index, (query, cap, page)
    settings.SEARCH_RANK_CANDIDATES = 5
    settings.SEARCH_SCAN_IN_ORDER = True
    hits, matched, capped, _ = found("alpha", common)
    assert matched == 5 and capped and len(hits) == 4


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statistics and heap order")
def test_phrases_exclusions_alternatives_and_dates_are_never_scanned(common, settings, monkeypatch):
    monkeypatch.setattr(search_plan, "SCAN_ROW_US", 0.0001)
    for query in ['"alpha beta"', "alpha -beta", "alpha or beta"]:
        with CaptureQueriesContext(connection) as queries:
            search(query, [common])
        assert not scanned(queries), query
    with CaptureQueriesContext(connection) as queries:
        search("alpha", [common], since=date(2006, 1, 1))
    assert not scanned(queries)
    # by default (the measured costs) a collection of 60 documents is always read through its index
    monkeypatch.undo()
    with CaptureQueriesContext(connection) as queries:
        search("alpha", [common])
    assert not scanned(queries)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's indexes and plans")
def test_only_the_load_order_index_serves_the_scan(common):
    with connection.cursor() as cur:
        cur.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'corpus_searchentry'")
        definitions = [row[0] for row in cur.fetchall()]
    with_expression = [d for d in definitions if "collection_id * 1" in d]
    assert len(with_expression) == 1 and "corpus_search_load_order" in with_expression[0]
    assert "USING btree" in with_expression[0]
    # the plan the scan's settings leave: that index, in order, no sort, no parallel workers, no bitmap
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            "SET LOCAL enable_seqscan = off; SET LOCAL max_parallel_workers_per_gather = 0; "
            "SET LOCAL enable_bitmapscan = off"
        )
        cur.execute(
            f"EXPLAIN SELECT e.document_id FROM corpus_searchentry e WHERE e.collection_id * 1 = {common.pk} "
            "AND ts_match_vq(e.vector, websearch_to_tsquery('english', 'alpha')) LIMIT 5"
        )
        plan = "\n".join(row[0] for row in cur.fetchall())
    assert "Index Scan using corpus_search_load_order" in plan, plan
    assert not any(word in plan for word in ("Sort", "Gather", "Bitmap")), plan


def test_an_and_of_a_middling_and_a_common_word_is_read_through_the_middling_one():
    # 1,000,000 documents, a word in 4.5 % and one in 57 %: 45,000 postings and ~530 checks, against 615,000 postings
    assert search_plan.narrowest("'afou' & 'aadv'", [0.045, 0.57], 0.007, 1_000_000, 300) == "'afou'"
    assert search_plan.narrowest("'aadv' & 'afou'", [0.57, 0.045], 0.007, 1_000_000, 300) == "'afou'"
    # less a common word: ~580 checks
    assert search_plan.narrowest("'aeadth' & !'aaee'", [0.08, 0.52], 0.007, 1_000_000, 300) == "'aeadth'"
    # a word missing from the statistics has at most the smallest share kept
    assert search_plan.narrowest("'rare' & 'aadv'", [0.0, 0.57], 0.007, 1_000_000, 300) == "'rare'"
    # two middling words: their joint share is small, every candidate would be checked; the index reads both
    assert search_plan.narrowest("'afou' & 'bcde'", [0.045, 0.05], 0.007, 1_000_000, 300) is None
    # less a rare word: nearly every candidate matches, but the rare word's postings cost little anyway
    assert search_plan.narrowest("'afou' & !'rare'", [0.045, 0.0], 0.007, 1_000_000, 300) is None
    # a quoted lexeme holding a quote comes back as the tsquery writes it
    assert search_plan.narrowest("'it''s' & 'aadv'", [0.01, 0.9], 0.007, 1_000_000, 300) == "'it''s'"


@pytest.mark.parametrize(
    "tsquery, shares",
    [
        ("'afou'", [0.045]),  # one word: nothing to narrow
        ("!'afou' & !'aadv'", [0.045, 0.57]),  # no word required
        ("'afou' <-> 'aadv'", [0.045, 0.57]),  # a phrase (its own path: corpus.search_pairs)
        ("'afou' | 'aadv'", [0.045, 0.57]),  # an alternative needs neither
        ("'afou' & 'aadv'", [0.045]),  # shares that do not match the terms
        ("'afou' & 'aadv'", None),  # no statistics
    ],
)
def test_what_is_not_an_and_of_words_and_exclusions_keeps_the_index(tsquery, shares):
    assert search_plan.narrowest(tsquery, shares, 0.007, 1_000_000, 300) is None
    assert search_plan.narrowest("'afou' & 'aadv'", [0.045, 0.57], None, 1_000_000, 300) is None


def test_only_words_and_exclusions_without_dates_in_a_large_collection_may_be_narrowed():
    for query in ["alpha beta", "alpha -beta", "-beta alpha gamma"]:
        assert search_plan.may_narrow(search_query.parse(query), None, None, 1_000_000, 300), query
    for query in ["alpha", '"alpha beta" gamma', "alpha or beta", "-alpha"]:
        assert not search_plan.may_narrow(search_query.parse(query), None, None, 1_000_000, 300), query
    words = search_query.parse("alpha beta")
    assert not search_plan.may_narrow(words, date(2006, 1, 1), None, 1_000_000, 300)
    assert not search_plan.may_narrow(words, None, None, 20_000, 300)  # 2,400 us of checks vs 1,100 of postings


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statistics and heap order")
def test_an_and_read_through_its_rarest_word_finds_what_the_index_finds(common, settings, monkeypatch):
    monkeypatch.setattr(search_plan, "AND_POSTING_US", 1000.0)  # postings dear: every AND that can be is narrowed
    queries = ["alpha beta", "beta alpha", "alpha -beta", "notes -gamma", "gamma alpha", "alpha -zeta", "zeta alpha"]
    narrowed_any = set()
    for cap in (5, 300):  # fewer than match (the first 5 in heap order), then all
        settings.SEARCH_RANK_CANDIDATES = cap
        for query in queries:
            for page in (1, 2):
                settings.SEARCH_SCAN_IN_ORDER = True
                with CaptureQueriesContext(connection) as captured:
                    by_rarest = found(query, common, page)
                if narrowed(captured):
                    narrowed_any.add(query)
                settings.SEARCH_SCAN_IN_ORDER = False
                with CaptureQueriesContext(connection) as captured:
                    by_index = found(query, common, page)
                assert not narrowed(captured) and not scanned(captured)
                assert by_rarest == by_index, (query, cap, page)
    assert {"alpha beta", "beta alpha", "alpha -beta", "gamma alpha"} <= narrowed_any, narrowed_any
    settings.SEARCH_RANK_CANDIDATES = 300
    settings.SEARCH_SCAN_IN_ORDER = True
    assert found("gamma alpha", common)[1] == 3 and found("alpha -beta", common)[1] == 40
