"""Full-text search (issue 18): relevance on a fixture (the expected document first), phrase and boolean queries,
filters by collection and date, snippets with the matches marked (escaped), results that open in the viewer with
the query's words marked, the index build (idempotent, progress, language per collection) and who may search what.
The SQLite side (FTS5, the demo's database) is in test_search_sqlite.py."""

import json
import re
from datetime import date
from pathlib import Path

import pytest
from django.core.management import call_command

from corpus import search_query
from corpus.loading import load_collection
from corpus.models import Collection, SearchEntry
from corpus.search import SearchError, build_index, drop_index, index_kind, search

FIX = Path(__file__).resolve().parent / "fixtures"
pytestmark = pytest.mark.django_db


@pytest.fixture
def abstracts(db):
    load_collection("abstracts", "pubmed", [FIX / "search" / "relevance.jsonl"])
    return Collection.objects.get(name="abstracts")


@pytest.fixture
def blogs(db):
    load_collection(
        "demo-blog06", "blog06", [FIX / "corpus" / "blog06-demo.txt", FIX / "corpus" / "blog06-demo-2.txt.gz"]
    )
    return Collection.objects.get(name="demo-blog06")


def test_each_collection_gets_a_rum_index_where_postgresql_has_it(abstracts, blogs):
    from django.db import connection

    from corpus import search_rum

    with connection.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'rum'")
        available = cur.fetchone() is not None
    if not available:
        assert index_kind() == "gin"
        return
    assert index_kind() == "rum" and search_rum.exists(abstracts.pk) and search_rum.exists(blogs.pk)
    drop_index(abstracts)  # a rebuild in another language starts from nothing
    assert not search_rum.exists(abstracts.pk) and search("stones", [abstracts]).hits == []
    assert build_index(abstracts) == 6 and search_rum.exists(abstracts.pk)
    assert docnos(search("stones", [abstracts]))[0] == "100001"
    pk = blogs.pk
    blogs.delete()  # its entries go with it, and so does its index
    assert not search_rum.exists(pk) and search_rum.exists(abstracts.pk)


def test_without_rum_one_gin_index_serves_every_collection(db, monkeypatch):
    """A server without RUM (migration 0004 then leaves the GIN index of 0003): nothing per collection is made,
    and search works the same."""
    from django.db import connection

    from corpus import search as search_module
    from corpus import search_rum

    with connection.cursor() as cur:  # as migration 0004 leaves it without RUM (the DDL rolls back with the test)
        cur.execute("CREATE INDEX IF NOT EXISTS corpus_search_vector ON corpus_searchentry USING gin (vector)")
    monkeypatch.setattr(search_module, "_INDEX_KIND", {})
    assert index_kind() == "gin"
    load_collection("abstracts-gin", "pubmed", [FIX / "search" / "relevance.jsonl"])
    abstracts = Collection.objects.get(name="abstracts-gin")
    assert not search_rum.exists(abstracts.pk)
    assert docnos(search("kidney stones lithotripsy", [abstracts])) == ["100001"]
    assert docnos(search('"shock wave"', [abstracts])) == ["100001"]


def docnos(results):
    return [h.docno for h in results.hits]


def test_the_most_relevant_abstract_comes_first(abstracts):
    # 100001 holds kidney, stones and lithotripsy many times; 100003 has stones + lithotripsy, 100002 kidney + stones
    assert docnos(search("kidney stones lithotripsy", [abstracts])) == ["100001"]
    ranked = docnos(search("kidney or lithotripsy", [abstracts]))
    assert ranked[0] == "100001" and set(ranked) == {"100001", "100002", "100003", "100005"}


def test_stemming_phrases_and_exclusion(abstracts):
    assert docnos(search("stone", [abstracts]))[0] == "100001"  # english stems: stone = stones
    assert set(docnos(search("stone", [abstracts]))) == {"100001", "100002", "100003"}
    assert docnos(search('"shock wave"', [abstracts])) == ["100001"]  # 100004 has "shock absorbers ... wave"
    assert set(docnos(search("shock wave", [abstracts]))) == {"100001", "100004"}
    assert set(docnos(search("stones -lithotripsy", [abstracts]))) == {"100002"}
    assert docnos(search("-kidney", [abstracts])) == []  # nothing to look for


def test_snippets_mark_the_matches_and_escape_the_text(abstracts):
    hit = search("metformin", [abstracts]).hits[0]
    assert hit.docno == "100005" and "<mark>Metformin</mark>" in hit.snippet
    assert search_query.snippet_html("a <b>\x01x\x02 & y") == "a &lt;b&gt;<mark>x</mark> &amp; y"


@pytest.fixture
def long_texts(db, tmp_path):
    """Abstracts of ~1,500 filler words with the searched words placed far into them."""

    def filler(n, seed):
        return " ".join(f"w{seed}x{k % 97}" for k in range(n))

    docs = {
        # the two words of an AND query 700 words apart: too far for one snippet fragment
        "1": f"{filler(600, 1)} quokka {filler(700, 2)} wombat {filler(200, 3)}",
        # "happiness" stems to happi, which no word of "happy" begins with; far in
        "2": f"{filler(900, 4)} a happy numbat {filler(400, 5)}",
        # a word beginning like the lexeme (cat) comes long before the match itself
        "3": f"{filler(20, 6)} category {filler(900, 7)} the cat sat {filler(300, 8)}",
        # the phrase far in, its first word alone earlier
        "4": f"{filler(100, 9)} shock {filler(800, 10)} shock wave {filler(300, 11)}",
    }
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps({"pmid": k, "title": "t", "abstract": v}) + "\n" for k, v in docs.items()))
    load_collection("long-texts", "pubmed", [path])
    return Collection.objects.get(name="long-texts")


@pytest.mark.parametrize(
    "query, docno, marked",
    [
        ("quokka wombat", "1", {"quokka"}),  # the whole text gives no mark: no fragment holds both words
        ("quokka or wombat", "1", {"quokka"}),
        ("happiness", "2", {"happy"}),
        ("cat", "3", {"cat"}),
        ('"shock wave"', "4", {"shock", "wave"}),
        ("numbat -quokka", "2", {"numbat"}),
    ],
)
def test_snippets_show_the_matched_words_wherever_they_are(long_texts, query, docno, marked):
    """Snippets are cut from a window of the text around the first word that may match (a search's CPU was mostly
    headlines over whole texts); a window without the query falls back to the whole text, then to the window with
    any of the query's words (before, an AND whose words lie far apart got a snippet without a mark)."""
    hit = search(query, [long_texts]).hits[0]
    assert hit.docno == docno
    assert {m.lower() for m in re.findall(r"<mark>([^<]*)</mark>", hit.snippet)} >= marked


def test_filters_by_collection_and_date(abstracts, blogs):
    razr = search("razr", [blogs])
    assert razr.hits and all(h.collection == "demo-blog06" for h in razr.hits)
    assert search("razr", [abstracts]).hits == []
    dated = [h.date for h in razr.hits]
    assert all(d is not None for d in dated)
    first = min(dated)
    later = search("razr", [blogs], since=first + (max(dated) - first) / 2)
    assert 0 < len(later.hits) < len(razr.hits) and all(h.date >= first for h in later.hits)
    assert search("razr", [blogs], until=date(1999, 1, 1)).hits == []
    with pytest.raises(SearchError, match="after"):
        search("razr", [blogs], since=date(2006, 2, 1), until=date(2006, 1, 1))


def test_a_query_longer_than_what_is_read_is_refused_by_name(client, organizer, blogs):
    """The web server takes request lines of 64 KB; the search reads 500 characters of a query, no more."""
    assert search("razr " * 100, [blogs]).hits  # 500 characters
    with pytest.raises(SearchError, match="the query is 501 characters long; at most 500"):
        search("razr " * 100 + "x", [blogs])
    client.force_login(organizer)
    r = client.get("/corpus/search/", {"q": "razr " * 2000})
    assert r.status_code == 400 and "the query is 9,999 characters long; at most 500" in r.content.decode()


def test_pages(abstracts):
    first = search("stones", [abstracts], per_page=2)
    second = search("stones", [abstracts], per_page=2, page=2)
    assert first.more and not second.more
    assert len(first.hits) == 2 and len(second.hits) == 1 and not set(docnos(first)) & set(docnos(second))


def test_the_index_build_is_idempotent_reports_progress_and_follows_the_language(abstracts):
    assert SearchEntry.objects.filter(collection=abstracts).count() == 6
    abstracts.refresh_from_db()
    assert (abstracts.search_status, abstracts.search_done, abstracts.search_total) == ("ready", 6, 6)
    assert build_index(abstracts) == 0
    drop_index(abstracts)
    seen = []
    assert build_index(abstracts, progress=lambda done, total: seen.append((done, total)), batch=4) == 6
    assert seen == [(4, 6), (6, 6)]
    # "simple" does not stem: "patient" no longer finds "patients"
    assert docnos(search("patient", [abstracts])) == ["100001"]
    call_command("search_index", "abstracts", "--language", "simple")
    abstracts.refresh_from_db()
    assert abstracts.search_language == "simple" and docnos(search("patient", [abstracts])) == []
    assert docnos(search("patients", [abstracts])) == ["100001"]
    with pytest.raises(Exception, match="no text search configuration 'klingon'"):
        call_command("search_index", "abstracts", "--language", "klingon")


def test_a_load_without_the_index_finds_nothing_until_it_is_built(db):
    load_collection("later", "pubmed", [FIX / "search" / "relevance.jsonl"], search_index=False)
    later = Collection.objects.get(name="later")
    assert search("metformin", [later]).hits == []
    call_command("search_index", "later")
    assert docnos(search("metformin", [later])) == ["100005"]


def test_search_is_a_reserved_collection_name(db):
    with pytest.raises(ValueError, match="reserved"):
        load_collection("search", "pubmed", [FIX / "search" / "relevance.jsonl"])


# --- the page -------------------------------------------------------------------------------------------------


def test_the_page_ranks_links_to_the_viewer_with_marks_and_filters(client, organizer, abstracts, blogs):
    client.force_login(organizer)
    r = client.get("/corpus/search/", {"q": '"shock wave" lithotripsy', "collection": "abstracts"})
    assert r.status_code == 200
    body = r.content.decode()
    links = re.findall(r'class="docno" href="([^"]+)"', body)
    assert links == ["/corpus/abstracts/doc/100001/?m=shock+wave&amp;m=lithotripsy"]
    assert "<mark>" in body
    assert client.get("/corpus/search/", {"q": "x", "collection": "nope"}).status_code == 400
    assert client.get("/corpus/search/", {"q": "x", "from": "2006-13-01"}).status_code == 400
    r = client.get("/corpus/search/", {"q": "razr", "from": "2006-02-01", "to": "2006-01-01"})
    assert r.status_code == 400 and "after" in r.content.decode()
    # the viewer link marks the words in the frame
    doc = client.get("/corpus/abstracts/doc/100001/", {"m": ["shock wave", "lithotripsy"]})
    frame = re.search(r"data-frame-src=\"([^\"]+)\"", doc.content.decode()).group(1).replace("&amp;", "&")
    assert client.get(frame).content.decode().count('<mark class="hl') >= 3


def test_assessors_search_only_the_collections_they_may_read(client, make_user, abstracts, blogs):
    from tests.test_corpus_access import assign

    user = make_user("ass", "assessor")
    assign(user, "demo-blog06")
    client.force_login(user)
    assert "razr" in client.get("/corpus/search/", {"q": "razr"}).content.decode().lower()
    r = client.get("/corpus/search/", {"q": "metformin"})
    assert r.status_code == 200 and "100005" not in r.content.decode()
    assert client.get("/corpus/search/", {"q": "metformin", "collection": "abstracts"}).status_code == 400
    client.force_login(make_user("part", "participant"))
    assert client.get("/corpus/search/", {"q": "metformin"}).status_code == 403


def test_query_parsing_and_fts5_rewriting():
    groups = search_query.parse('Kidney "shock wave" or laser -gall')
    assert search_query.fts5(groups) == '("kidney" AND ("shock wave" OR "laser")) NOT "gall"'
    assert search_query.marks(groups) == ["kidney", "shock wave", "laser"]
    assert search_query.parse('NEAR( "x') == [[search_query.Term(("near",))], [search_query.Term(("x",))]]
    assert search_query.fts5(search_query.parse("-only")) == ""


def test_document_dates():
    assert search_query.document_date("blog06", "x", {"DATE_XML": "2006-01-08T10:00:00+0000"}) == date(2006, 1, 8)
    assert search_query.document_date("aquaint2", "APW_ENG_20050231.0001", {}) is None
    assert search_query.document_date("aquaint2", "APW_ENG_20050203.0001", {}) == date(2005, 2, 3)
    assert search_query.document_date("bolt-forum", "t", {"posts": [{"datetime": "2012-03-04 10:00"}]}) == date(
        2012, 3, 4
    )
    assert search_query.document_date("pubmed", "1", {}) is None


def test_the_index_can_be_left_to_a_worker_task_with_its_progress_on_the_collection(client, organizer, capsys):
    from corpus.tasks import build_search_index_task

    call_command(
        "load_collection", "queued", str(FIX / "search" / "relevance.jsonl"), "--format", "pubmed", "--search", "none"
    )
    queued = Collection.objects.get(name="queued")
    assert (queued.search_status, search("metformin", [queued]).hits) == ("", [])
    client.force_login(organizer)
    assert "not built" in client.get("/corpus/").content.decode()
    assert build_search_index_task(queued.pk) == 6
    queued.refresh_from_db()
    assert (queued.search_status, queued.search_done, queued.search_total) == ("ready", 6, 6)
    assert docnos(search("metformin", [queued])) == ["100005"]
    # --search later hands it to the task (run here: no broker in the tests)
    call_command(
        "load_collection", "later2", str(FIX / "search" / "relevance.jsonl"), "--format", "pubmed", "--search", "later"
    )
    assert "queued" in capsys.readouterr().out
    assert docnos(search("metformin", [Collection.objects.get(name="later2")])) == ["100005"]


def test_a_query_matching_more_than_the_ranking_cap_says_so(settings, abstracts, client, organizer):
    assert search("stones", [abstracts]).matched == 3 and not search("stones", [abstracts]).capped
    settings.SEARCH_RANK_CANDIDATES = 2
    capped = search("stones", [abstracts])
    assert capped.capped and capped.matched == 2 and len(capped.hits) == 2
    client.force_login(organizer)
    page = client.get("/corpus/search/", {"q": "stones"}).content.decode()
    assert "More than 2 documents match" in page
