"""Phrases of two common words through the collection's pairs index (corpus.search_pairs, issue 32 item 4): the
same documents, ranks, snippets and counts as the full-text index finds, from a short posting list."""

import json
import random

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from corpus import search_pairs, search_rum
from corpus.loading import load_collection
from corpus.models import Collection
from corpus.search import build_index, drop_index, search
from corpus.search_pairs import pairs_tsquery, required_pairs
from tests.search_results import found

COMMON = {"quick", "fox", "lazi", "dog", "it's", "a\\b"}


@pytest.mark.parametrize(
    "tsquery, pairs",
    [
        ("'quick' <-> 'fox'", [("quick", "fox")]),
        ("'quick' <-> 'fox' & 'jump'", [("quick", "fox")]),
        ("'cat' & 'quick' <-> 'fox' & 'lazi' <-> 'dog'", [("quick", "fox"), ("lazi", "dog")]),
        ("'quick' <-> 'fox' & 'quick' <-> 'fox'", [("quick", "fox")]),
        ("'it''s' <-> 'fox'", [("it's", "fox")]),
        ("'a\\\\b' <-> 'dog'", [("a\\b", "dog")]),
        # an OR needs neither side; a negated phrase, a longer phrase or a gap is not a pair; rare words are not
        ("'quick' <-> 'fox' | 'dog'", []),
        ("'quick' <-> 'fox' & 'cat' | 'dog'", []),  # (& binds tighter: either side of the | will do)
        ("'cat' & !( 'quick' <-> 'fox' )", []),
        ("'quick' <-> 'fox' <-> 'dog'", []),
        ("'quick' <2> 'fox'", []),
        ("'quick' <-> 'cat'", []),
        ("'quick':* <-> 'fox'", []),
        ("'quick' & 'fox'", []),
        ("", []),
        ("not a tsquery", []),
    ],
)
def test_the_pairs_a_tsquery_requires(tsquery, pairs):
    assert required_pairs(tsquery, COMMON) == pairs


def test_a_pair_is_one_lexeme_of_its_two_words_quoted():
    assert pairs_tsquery([("quick", "fox"), ("it's", "a\\b")]) == "'quick fox' & 'it''s a\\\\b'"


pg = pytest.mark.skipif(connection.vendor != "postgresql", reason="the pairs index is PostgreSQL's")


def _make_function(pk, common):
    with connection.cursor() as cur:
        cur.execute("SELECT quote_literal(%s::text[]) || '::text[]'", [common])
        cur.execute(search_pairs._FUNCTION.format(name=search_pairs.name(pk), common=cur.fetchone()[0]))


@pg
@pytest.mark.django_db
def test_an_entry_holds_a_pair_exactly_when_it_matches_the_phrase():
    """Every pair of common lexemes over random texts (a long one past the 16,383 positions a tsvector keeps, a
    word past the 256 positions it keeps per lexeme, punctuation and stop words between words)."""
    rng = random.Random(7)
    words = ["quick", "fox", "dog", "lazy", "the", "cat", "fox,", "a"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 40))) for _ in range(60)]
    texts += [" ".join(rng.choice(words) for _ in range(20_000)), "quick " * 300 + "fox", "", "the a"]
    common = ["quick", "fox", "dog", "lazi"]
    _make_function(999_001, common)
    with connection.cursor() as cur:
        for text in texts:
            for a in common:
                for b in common:
                    cur.execute(
                        "SELECT corpus_search_pairs_999001(v) @@ %s::tsquery, v @@ %s::tsquery "
                        "FROM (SELECT to_tsvector('english', %s) AS v) x",
                        [pairs_tsquery([(a, b)]), f"'{a}' <-> '{b}'", text],
                    )
                    by_pairs, by_phrase = cur.fetchone()
                    assert by_pairs == by_phrase, (text[:80], a, b)


def _abstracts(path, first, n):
    """Abstracts where "quick fox" stands together in some, apart or reversed in others."""
    rng = random.Random(first)
    lines = []
    for i in range(first, first + n):
        words = [rng.choice(["quick", "fox", "lazy", "dog", "the", "report"]) for _ in range(12)]
        if i % 4 == 0:
            words.insert(rng.randrange(len(words)), "quick fox")
        lines.append({"pmid": str(700000 + i), "title": f"Note {i}", "abstract": " ".join(words)})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _pairs_objects(pk):
    """(the collection's pairs functions, the indexes over them) in the database."""
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_proc WHERE proname = %s", [search_pairs.name(pk)])
        functions = cur.fetchone()[0]
        cur.execute("SELECT count(*) FROM pg_indexes WHERE indexdef LIKE %s", [f"%{search_pairs.name(pk)}(%"])
        return functions, cur.fetchone()[0]


PHRASES = [
    '"quick fox"',
    '"quick fox" dog',
    '"lazy dog" "quick fox"',
    '"fox quick" -report',
    '"quick fox" or dog',
    '"quick fox" lazy or dog',
]


@pytest.fixture(params=[1, 2], ids=["one index", "two pieces"])
def paired(request, transactional_db, settings, tmp_path):
    """40 abstracts loaded as load_collection runs (outside a transaction), the pairs index as one index or in
    the two pieces of the full-text index (RUM servers)."""
    settings.SEARCH_PAIRS_FROM = 20
    settings.SEARCH_PAIRS_PERCENT = 30
    settings.SEARCH_INDEX_PIECES_FROM = 10 if request.param == 2 else 10**9
    load_collection("paired", "pubmed", [_abstracts(tmp_path / "a.jsonl", 0, 40)])
    collection = Collection.objects.get(name="paired")
    assert _pairs_objects(collection.pk) == (1, collection.search_pieces)
    yield collection
    for c in Collection.objects.all():
        search_pairs.drop(c.pk)


def _found(query, collection, page=1):
    return found(query, collection, page, per_page=3)


@pg
def test_a_large_collection_gets_its_pairs_and_phrases_find_what_the_full_text_index_finds(paired, settings):
    assert set(paired.search_pairs) >= {"quick", "fox", "dog", "lazi"} and "report" in paired.search_pairs
    assert "the" not in paired.search_pairs  # (a stop word has no lexeme)
    with_pairs = {}
    for cap in (3, 300):  # a cap below the matches: the first ones in heap order either way
        settings.SEARCH_RANK_CANDIDATES = cap
        for query in PHRASES:
            for page in (1, 2):
                with_pairs[cap, query, page] = _found(query, paired, page)
    with CaptureQueriesContext(connection) as queries:
        search('"quick fox"', [paired])
    assert any(search_pairs.name(paired.pk) in q["sql"] for q in queries.captured_queries)
    for query in ('"quick fox" or dog', '"quick fox" lazy or dog'):  # an OR needs neither side: the full-text index
        with CaptureQueriesContext(connection) as queries:
            search(query, [paired])
        assert not any(search_pairs.name(paired.pk) in q["sql"] for q in queries.captured_queries)
    paired.search_pairs = []  # the same collection searched as before the pairs
    for (cap, query, page), expected in with_pairs.items():
        settings.SEARCH_RANK_CANDIDATES = cap
        assert _found(query, paired, page) == expected, (cap, query, page)
    assert with_pairs[300, '"quick fox"', 1][1] >= 10 and with_pairs[3, '"quick fox"', 1][2]


@pg
def test_a_phrase_of_common_words_reads_the_pairs_index(paired):
    where = f"e.collection_id + 0 = {paired.pk}{search_rum.piece_filter('e', paired.search_pieces)}"
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute(
            f"EXPLAIN SELECT 1 FROM corpus_searchentry e WHERE {search_pairs.name(paired.pk)}(e.vector) "
            f"@@ %s::tsquery AND ts_match_vq(e.vector, %s::tsquery) AND {where} LIMIT 5",
            [pairs_tsquery([("quick", "fox")]), "'quick' <-> 'fox'"],
        )
        plan = "\n".join(row[0] for row in cur.fetchall())
    scans = plan.count(f"Bitmap Index Scan on {search_pairs.name(paired.pk)}")
    assert scans == paired.search_pieces and "corpus_search_rum" not in plan, plan


@pg
def test_later_loads_add_their_pairs_and_a_drop_takes_index_and_function(paired, tmp_path):
    before = search('"quick fox"', [paired]).matched
    load_collection("paired", "pubmed", [_abstracts(tmp_path / "b.jsonl", 40, 20)])
    paired.refresh_from_db()
    after = search('"quick fox"', [paired])
    paired.search_pairs = []
    assert after.matched == search('"quick fox"', [paired]).matched > before
    paired.refresh_from_db()
    drop_index(paired)
    assert _pairs_objects(paired.pk) == (0, 0)
    assert Collection.objects.get(pk=paired.pk).search_pairs == []
    build_index(paired)  # a rebuild samples the collection afresh
    assert Collection.objects.get(pk=paired.pk).search_pairs


@pg
def test_deleting_a_collection_drops_its_pairs(paired):
    pk = paired.pk
    paired.delete()
    assert _pairs_objects(pk) == (0, 0)


@pg
def test_a_small_collection_gets_no_pairs(transactional_db, settings, tmp_path):
    settings.SEARCH_PAIRS_FROM = 1000
    load_collection("small", "pubmed", [_abstracts(tmp_path / "a.jsonl", 0, 40)])
    collection = Collection.objects.get(name="small")
    assert collection.search_pairs == []
    assert search('"quick fox"', [collection]).matched >= 10


@pg
def test_a_hostile_common_lexeme_cannot_end_the_functions_body(transactional_db, settings, tmp_path):
    """Documents are untrusted, and a URL's lexeme may hold `$pairs$`, the dollar quote of the function's body."""
    settings.SEARCH_PAIRS_FROM = 20
    settings.SEARCH_PAIRS_PERCENT = 30
    path = tmp_path / "h.jsonl"
    text = "quick fox see http://x.example/a$pairs$;DROP TABLE corpus_document;$pairs$ and /usr/$pairs$/x"
    path.write_text("".join(json.dumps({"pmid": str(i), "title": "t", "abstract": text}) + "\n" for i in range(30)))
    load_collection("hostile", "pubmed", [path])
    collection = Collection.objects.get(name="hostile")
    try:
        assert "quick" in collection.search_pairs and not any("$" in x for x in collection.search_pairs)
        assert search('"quick fox"', [collection]).matched == 30
    finally:
        search_pairs.drop(collection.pk)


@pg
def test_a_build_from_a_stale_object_keeps_the_pairs_another_build_made(paired):
    def function_oid():
        with connection.cursor() as cur:
            cur.execute("SELECT oid FROM pg_proc WHERE proname = %s", [search_pairs.name(paired.pk)])
            return cur.fetchone()[0]

    before = function_oid()
    stale = Collection.objects.get(pk=paired.pk)
    stale.search_pairs = []  # as read before the other build finished
    assert search_pairs.create(stale, 40) == paired.search_pairs == stale.search_pairs
    assert function_oid() == before


@pg
def test_a_pairs_build_that_fails_leaves_neither_function_nor_index(paired, monkeypatch):
    drop_index(paired)
    paired.refresh_from_db()
    real = search_pairs._index_sql

    def failing(pk, n=1, i=0):
        return real(pk, n, i) if i == 0 and n > 1 else "CREATE INDEX broken ON no_such_table (x)"

    monkeypatch.setattr(search_pairs, "_index_sql", failing)
    with pytest.raises(Exception, match="no_such_table"):
        build_index(paired)
    assert _pairs_objects(paired.pk) == (0, 0)
    assert Collection.objects.get(pk=paired.pk).search_pairs == []
    monkeypatch.undo()
    build_index(paired)  # the next build makes it whole
    assert Collection.objects.get(pk=paired.pk).search_pairs
