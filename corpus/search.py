"""Full-text search over the collections: the index build and the ranked search with snippets.

PostgreSQL keeps a tsvector per document (corpus.SearchEntry.vector; a RUM index per collection where the server
has RUM, corpus.search_rum, else one GIN index), made with the collection's text search configuration
(`Collection.search_language`, e.g. "english", "simple", "arabic"), and ranks with `ts_rank_cd`; queries are read
by `websearch_to_tsquery` (phrases in quotes, `or`, `-word`). SQLite (the embedded demo) keeps an FTS5 table
`corpus_fts` (Porter-stemmed English whatever the collection's language) ranked by bm25, and the same queries are
rewritten into FTS5's syntax by corpus.search_query. Both cut snippets with the matches marked. A document is
found once `build_index` has given it its SearchEntry row; the build is idempotent and resumable (it indexes the
collection's documents that have no row yet, a batch per transaction).
"""

import json
from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.db import connection, transaction

from corpus import search_pairs, search_plan, search_query, search_rum
from corpus.models import Collection, Document, SearchEntry

BATCH = 2000
# Text beyond this many characters is not indexed: a tsvector holds at most 1 MB, and positions end at 16,383
# anyway. Snippets are cut from the same prefix.
INDEXED_CHARS = 300_000
SNIPPET_CHARS = 100_000
# A snippet is cut from a window of the text around the first word that may match: ts_headline parses all it is
# given (~0.1 ms a KB), and over whole pages that was most of a search's CPU.
SNIPPET_WINDOW = 1200
SNIPPET_BEFORE = 200
PAGE = 20
# A query matching more documents than this ranks the first this many the index yields (reading each one's
# tsvector is what a search costs); the page then says "more than N match" and asks for more words.
RANK_CANDIDATES = 300


class SearchError(ValueError):
    """A search that cannot run (unknown text search configuration, bad date range): says what to change."""


@dataclass
class Hit:
    document_id: int
    collection: str
    docno: str
    date: date | None
    rank: float
    snippet: str = ""  # safe HTML, matches in <mark>


@dataclass
class Results:
    query: str
    hits: list = field(default_factory=list)
    more: bool = False  # another page follows
    matched: int = 0  # documents matching (PostgreSQL: counted up to rank_candidates())
    capped: bool = False  # more matched than were ranked (PostgreSQL)
    marks: list = field(default_factory=list)  # what the viewer marks in an opened document
    page: int = 1


# --- the index ------------------------------------------------------------------------------------------------


_KNOWN_LANGUAGES = set()  # configurations seen to exist: a search then costs no catalogue query


def check_language(name):
    """The text search configuration `name` if PostgreSQL knows it (any name on SQLite, which stems English)."""
    if connection.vendor != "postgresql" or name in _KNOWN_LANGUAGES:
        return name
    with connection.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_ts_config WHERE cfgname = %s", [name])
        if cur.fetchone() is None:
            cur.execute("SELECT string_agg(cfgname, ', ' ORDER BY cfgname) FROM pg_ts_config")
            raise SearchError(f"no text search configuration {name!r}; PostgreSQL has: {cur.fetchone()[0]}")
    _KNOWN_LANGUAGES.add(name)
    return name


# The next batch of a collection's documents without an entry, walking the documents' primary key from `after`:
# what a batch costs then does not grow with the collection. Left to the statistics (behind a collection just
# loaded: autovacuum may be off or not yet by), the planner read all of the collection's documents and sorted them
# for every batch. `collection_id + 0` keeps the unique (collection, docno) index out, the fenced NOT EXISTS is one
# probe of the entries' key per document, and the SET LOCAL below leaves the key's order as the only way.
_UNINDEXED = (
    "SELECT d.id, d.docno, d.meta::text FROM corpus_document d WHERE d.id > %s AND d.collection_id + 0 = %s "
    "AND NOT EXISTS (SELECT FROM corpus_searchentry e WHERE e.document_id = d.id OFFSET 0) ORDER BY d.id LIMIT %s"
)


def _unindexed(collection, after, batch):
    if connection.vendor != "postgresql":
        return list(
            Document.objects.filter(collection=collection, pk__gt=after, search_entry__isnull=True)
            .order_by("pk")
            .values_list("pk", "docno", "meta")[:batch]
        )
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off")
        cur.execute(_UNINDEXED, [after, collection.pk, batch])
        return [(pk, docno, json.loads(meta)) for pk, docno, meta in cur.fetchall()]


# A document's lexemes: its docno weighted A, then its text's first INDEXED_CHARS characters. The one expression
# both the build below and a load's own batches (index_loaded) write, so both give the same entries.
_VECTOR = "setweight(to_tsvector(%s::regconfig, d.docno), 'A') || to_tsvector(%s::regconfig, left(d.text, %s))"

# A batch's entries, each document found by `{find}` over u.key, one row of the batch's keys: a subquery fenced by
# OFFSET 0, so each is one probe of the key's index. As a join, the planner went by statistics behind a growing
# collection (autovacuum may be off or not yet by) and hashed every document of it, or of the table, for each batch.
_ENTRIES = (
    "INSERT INTO corpus_searchentry (document_id, collection_id, date, vector) "
    f"SELECT d.id, d.collection_id, u.day, {_VECTOR} "
    "FROM unnest(%s::{key}[], %s::date[]) AS u(key, day) CROSS JOIN LATERAL (SELECT d.id, d.collection_id, d.docno, "
    "d.text FROM corpus_document d WHERE {find} OFFSET 0) d "
    "ON CONFLICT (document_id) DO NOTHING RETURNING document_id"
)


def _index_batch_postgresql(collection, ids, days):
    with connection.cursor() as cur:
        cur.execute(
            _ENTRIES.format(key="bigint", find="d.id = u.key"),
            [collection.search_language, collection.search_language, INDEXED_CHARS, ids, days],
        )


def index_loaded(cursor, collection_id, language, docnos, days):
    """PostgreSQL: give the documents `docnos` of the collection, just written in the caller's transaction, their
    entries (`days`: each one's document_date), in one statement; returns their ids. A load calls it per batch, so
    the text is read back while it is still in memory and a document is stored with its entry or not at all."""
    cursor.execute(
        _ENTRIES.format(key="text", find="d.collection_id = %s AND d.docno = u.key"),
        [language, language, INDEXED_CHARS, docnos, days, collection_id],
    )
    return [row[0] for row in cursor.fetchall()]


def _index_batch_sqlite(collection, ids, days):
    with connection.cursor() as cur:
        marks = ",".join(["%s"] * len(ids))
        cur.execute(f"DELETE FROM corpus_fts WHERE rowid IN ({marks})", ids)  # a rerun after a crash
        cur.execute(
            # without the snippet's marker characters: a document's own \x01 would come back as a <mark>
            "INSERT INTO corpus_fts (rowid, body) SELECT id, "
            f"replace(replace(docno || ' ' || substr(text, 1, %s), %s, ''), %s, '') "
            f"FROM corpus_document WHERE id IN ({marks})",
            [INDEXED_CHARS, search_query.START, search_query.STOP, *ids],
        )
    SearchEntry.objects.bulk_create(
        [SearchEntry(document_id=i, collection_id=collection.pk, date=d) for i, d in zip(ids, days)],
        ignore_conflicts=True,
    )


def build_index(collection, progress=None, batch=BATCH):
    """Index the documents of `collection` (a Collection or its name) that are not indexed yet; returns how many
    it indexed. Progress is kept on the collection (search_status/done/total) and passed to `progress(done,
    total)` after each batch. Safe to run twice or after an interrupted run."""
    if not isinstance(collection, Collection):
        collection = Collection.objects.get(name=collection)
    check_language(collection.search_language)
    indexed = SearchEntry.objects.filter(collection=collection).count()
    total = collection.documents.count()
    rows = Collection.objects.filter(pk=collection.pk)
    rows.update(search_status="building", search_done=indexed, search_total=total)
    write = _index_batch_postgresql if connection.vendor == "postgresql" else _index_batch_sqlite
    done, after = 0, 0
    try:
        # (a load that indexed its batches as it went leaves nothing: no scan of the collection for it)
        while indexed + done < total and (rows := _unindexed(collection, after, batch)):
            ids = [pk for pk, _, _ in rows]
            days = [search_query.document_date(collection.format, docno, meta) for _, docno, meta in rows]
            with transaction.atomic():
                write(collection, ids, days)
            done += len(ids)
            after = ids[-1]
            Collection.objects.filter(pk=collection.pk).update(search_done=indexed + done)
            if progress:
                progress(indexed + done, total)
        if connection.vendor == "postgresql" and index_kind() == "rum":
            # once the entries are in, one bulk build (a no-op when it exists: later loads add to it row by row),
            # in pieces built side by side when the collection is large
            pieces = search_rum.create(collection.pk, search_rum.pieces_for(indexed + done))
            Collection.objects.filter(pk=collection.pk).update(search_pieces=pieces)
            collection.search_pieces = pieces
        if connection.vendor == "postgresql":
            # a large collection's phrases of common words (a no-op when built: later loads add to it)
            search_pairs.create(collection, indexed + done)
            # The lexemes' shares of documents that corpus.search_plan reads, current now rather than whenever
            # autovacuum comes by (a sample of 30,000 rows whatever the size: 3-13 s, the tsvectors' lexemes counted).
            with connection.cursor() as cur:
                cur.execute("ANALYZE corpus_searchentry")
    except Exception as exc:
        Collection.objects.filter(pk=collection.pk).update(search_status=f"failed: {exc}"[:500])
        raise
    Collection.objects.filter(pk=collection.pk).update(
        search_status="ready", search_done=indexed + done, search_total=max(total, indexed + done)
    )
    return done


def drop_index(collection):
    """Forget a collection's index (before a rebuild with another language)."""
    with transaction.atomic():
        if connection.vendor == "sqlite":
            with connection.cursor() as cur:
                cur.execute(
                    "DELETE FROM corpus_fts WHERE rowid IN "
                    "(SELECT document_id FROM corpus_searchentry WHERE collection_id = %s)",
                    [collection.pk],
                )
        else:
            if index_kind() == "rum":
                search_rum.drop(collection.pk)
            search_pairs.drop(collection.pk)
        SearchEntry.objects.filter(collection=collection).delete()
        Collection.objects.filter(pk=collection.pk).update(
            search_status="", search_done=0, search_pieces=1, search_pairs=[]
        )
        collection.search_pairs = []


# --- searching ------------------------------------------------------------------------------------------------


def rank_candidates():
    """How many matches a PostgreSQL search ranks at most (setting SEARCH_RANK_CANDIDATES)."""
    return int(getattr(settings, "SEARCH_RANK_CANDIDATES", RANK_CANDIDATES))


_INDEX_KIND = {}  # database alias -> "rum" or "gin": a schema fact, read once per process


def index_kind():
    """ "rum" where PostgreSQL has RUM (migration corpus 0004 then made each collection a RUM index of its own),
    "gin" where the one GIN index of migration 0003 stays."""
    alias = connection.alias
    if alias not in _INDEX_KIND:
        with connection.cursor() as cur:
            cur.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'corpus_search_vector'")
            _INDEX_KIND[alias] = "gin" if cur.fetchone() else "rum"
    return _INDEX_KIND[alias]


def _where(collection, since, until):
    """The filter on one collection and the dates. The collection is `collection_id + 0 = <pk>`, the predicate of
    its RUM index (search_rum), so the planner picks that index and never the btree on collection_id, which would
    make it read every document's tsvector; dates are `date + 0` for the same reason. An index built in pieces
    adds the OR of their predicates, which the planner reads as one BitmapOr of the pieces."""
    pieces = search_rum.piece_filter("e", collection.search_pieces) if index_kind() == "rum" else ""
    where, args = [f"e.collection_id + 0 = {int(collection.pk)}{pieces}"], []
    if since:
        where.append("e.date + 0 >= %s")
        args.append(since)
    if until:
        where.append("e.date + 0 <= %s")
        args.append(until)
    return " AND ".join(where), args


# The snippet is cut from a window of the text (SNIPPET_WINDOW characters from SNIPPET_BEFORE before the first word
# that begins as one of the query's lexemes does, less a word cut at either end) when it shows the query; else from
# the whole text as before (a word that only looked alike, a stem that does not begin its word, a phrase whose
# first word came alone earlier); else, when even that shows no mark (an AND whose words lie further apart than a
# snippet), from the window with any of the query's words. A word begins as its lexeme less the last letter does,
# since stemming changes a word's end ("happi" for happy, "hope" for hoping). The lexemes are read from the
# tsquery's text ('' is a quote inside a lexeme; excluded ones, !'…', are left out).
_LEXEMES = (
    "SELECT '(?i)\\m(?:' || string_agg(regexp_replace(CASE WHEN char_length(x.l) > 3 THEN left(x.l, -1) "
    "ELSE x.l END, '([^[:alnum:]_])', '\\\\\\1', 'g'), '|') || ')' AS re, "
    "string_agg('''' || x.quoted || '''', ' | ')::tsquery AS anyword "
    "FROM (SELECT t[1] AS quoted, replace(t[1], '''''', '''') AS l FROM regexp_matches(regexp_replace("
    "{tsquery}::text, '!''(?:[^'']|'''')*''', '', 'g'), '''((?:[^'']|'''')*)''', 'g') AS t) x"
)
_WINDOW = (
    "(SELECT regexp_replace(regexp_replace(substr(d.text, greatest(1, a.at - {before}), {size}), "
    "CASE WHEN a.at > {before} + 1 THEN '^\\S*\\s+' ELSE '^' END, ''), CASE WHEN greatest(1, a.at - {before}) "
    "+ {size} <= least(char_length(d.text), {chars}) THEN '\\s+\\S*$' ELSE '$' END, '') "
    "FROM (SELECT regexp_instr(left(d.text, {chars}), (SELECT re FROM lexemes)) AS at OFFSET 0) a WHERE a.at > 0)"
)
# (OFFSET 0 keeps each subquery's value computed once: pulled up, its expression would be copied into each use.)
_SNIPPET = (
    "(SELECT CASE WHEN strpos(w.h, {mark}) > 0 THEN w.h ELSE (SELECT CASE WHEN strpos(f.h, {mark}) > 0 THEN f.h "
    "ELSE (SELECT CASE WHEN strpos(v.h, {mark}) > 0 THEN v.h ELSE f.h END "
    "FROM (SELECT ts_headline({language}, w.text, (SELECT anyword FROM lexemes), {options}) AS h OFFSET 0) v) END "
    "FROM (SELECT ts_headline({language}, translate(left(d.text, {chars}), {markers}, ''), {tsquery}, {options}) "
    "AS h OFFSET 0) f) END "
    "FROM (SELECT t.text, ts_headline({language}, t.text, {tsquery}, {options}) AS h "
    "FROM (SELECT translate({window}, {markers}, '') AS text OFFSET 0) t OFFSET 0) w)"
)


def _snippet_sql(language, tsquery):
    """The snippet's expression over `d.text` (it reads the CTE `lexemes`), its constants written inline (the
    configuration's name is one check_language found; the rest are ours); `tsquery` appears twice in it."""

    def literal(value):
        return "'" + value.replace("'", "''") + "'"

    options = f"StartSel={search_query.START}, StopSel={search_query.STOP}, MaxWords=30, MinWords=12, MaxFragments=2"
    window = _WINDOW.format(before=SNIPPET_BEFORE, size=SNIPPET_WINDOW, chars=SNIPPET_CHARS)
    return _SNIPPET.format(
        mark=literal(search_query.START),
        language=f"{literal(language)}::regconfig",
        chars=SNIPPET_CHARS,
        markers=literal(search_query.START + search_query.STOP),
        tsquery=tsquery,
        options=literal(options),
        window=window,
    )


def _search_postgresql(query, groups, collection, since, until, limit, offset, cap, snippets=None):
    """(hits of the page, how many match up to `cap`) in one collection. Only the first `snippets` hits (default
    all) get a snippet: the one fetched to know whether another page follows is never shown. `groups`: the query
    as search_query.parse read it.

    The index finds the matches (RUM checks a phrase from the positions it stores; GIN has every candidate's
    tsvector read to check it); the first `cap` found are ranked by ts_rank_cd, which reads each one's tsvector,
    so a search costs at most `cap` tsvector reads, and the page says when more matched than were ranked. An AND
    of words in many documents is matched instead by reading the collection's entries in heap order until `cap`
    match, the same rows for less (corpus.search_plan); a query that requires a phrase of two common words finds
    its candidates in the collection's pairs index and checks each (corpus.search_pairs). (RUM's own ranking,
    `ORDER BY vector <=> query`, ranks every match: exact, but for a word in most documents it sorts them all,
    slower than reading a thousand tsvectors; under the cap it was no faster either.)"""
    where, args = _where(collection, since, until)
    # The tsquery is written inline (a stable function of constants, evaluated once), so the planner uses the
    # index for the match.
    tsquery = "websearch_to_tsquery(%s::regconfig, %s)"
    q = [collection.search_language, query]
    match, match_args = f"e.vector @@ {tsquery} AND {where}", [*q, *args]
    with transaction.atomic(), connection.cursor() as cur:
        # Hoping to find `cap` matches early, the planner would read the whole table and test every tsvector
        # (over a second at 200,000 documents) for a phrase it takes to be common: always an index. Never a
        # parallel plan: its workers' rows come in no fixed order, and the first `cap` must be the same each time.
        cur.execute("SET LOCAL enable_seqscan = off; SET LOCAL max_parallel_workers_per_gather = 0")
        documents = collection.search_done
        scan = search_plan.may_scan(groups, since, until, documents, cap)
        if settings.SEARCH_SCAN_IN_ORDER and (scan or search_plan.may_narrow(groups, since, until, documents, cap)):
            cur.execute(search_plan.FREQUENCIES, q)
            text, frequencies, floor = cur.fetchone()
            if scan and search_plan.scan_is_cheaper(text, frequencies, documents, cap):
                # The collection's entries in heap order (search_plan): the function form of @@ keeps the
                # full-text index out, and only corpus_search_load_order indexes `collection_id * 1`.
                cur.execute("SET LOCAL enable_bitmapscan = off")
                match = f"e.collection_id * 1 = {int(collection.pk)} AND ts_match_vq(e.vector, {tsquery})"
                match_args = [*q, *args]
            elif rarest := search_plan.narrowest(text, frequencies, floor, documents, cap):
                # The index reads the rarest word's postings only; each candidate is checked against the whole
                # query (search_plan), in heap order as before.
                match = f"e.vector @@ %s::tsquery AND ts_match_vq(e.vector, {tsquery}) AND {where}"
                match_args = [rarest, *q, *args]
        elif collection.search_pairs and any(t.phrase and not t.negated for g in groups for t in g):
            cur.execute(f"SELECT {tsquery}::text", q)
            pairs = search_pairs.match(collection, cur.fetchone()[0])
            if pairs:
                # The candidates through the pairs index, each checked against the whole query (search_pairs);
                # the function form of @@ keeps the full-text index out.
                condition, pair_args = pairs
                match = f"{condition} AND ts_match_vq(e.vector, {tsquery}) AND {where}"
                match_args = [*pair_args, *q, *args]
        rows, matched = _run_search(cur, match, match_args, tsquery, q, collection, limit, offset, cap, snippets)
    hits = [Hit(i, c, d, day, float(r), search_query.snippet_html(s or "")) for i, c, d, day, r, s, _ in rows]
    return hits, matched


def _run_search(cur, match, match_args, tsquery, q, collection, limit, offset, cap, snippets):
    """_search_postgresql's statement over the matches `match` (with `match_args`) finds: (its rows, how many match
    up to `cap`)."""
    # One statement: the matches are found once (`m`), counted, ranked, and only the page is given snippets, the
    # costly part per document (_SNIPPET).
    sql = (
        f"WITH m AS MATERIALIZED (SELECT e.document_id, e.date, e.vector FROM corpus_searchentry e "
        f"WHERE {match} LIMIT %s), "
        f"ranked AS (SELECT m.document_id, m.date, ts_rank_cd(m.vector, {tsquery}) AS rank FROM m "
        "ORDER BY rank DESC, m.document_id LIMIT %s OFFSET %s), "
        "top AS (SELECT ranked.*, row_number() OVER (ORDER BY rank DESC, document_id) AS n FROM ranked), "
        f"lexemes AS ({_LEXEMES.format(tsquery=tsquery)}) "
        "SELECT top.document_id, %s, d.docno, top.date, top.rank, CASE WHEN top.n <= %s THEN "
        f"{_snippet_sql(collection.search_language, tsquery)} END, (SELECT count(*) FROM m) "
        "FROM top JOIN corpus_document d ON d.id = top.document_id ORDER BY top.rank DESC, top.document_id"
    )
    params = [*match_args, cap, *q, limit, offset, *q, collection.name, limit if snippets is None else snippets]
    params += [*q, *q]
    cur.execute(sql, params)
    rows = cur.fetchall()
    if rows:
        return rows, rows[0][-1]
    # no match, or a page past the last: the count alone
    count = f"SELECT count(*) FROM (SELECT 1 FROM corpus_searchentry e WHERE {match} LIMIT %s) m"
    cur.execute(count, [*match_args, cap])
    return rows, cur.fetchone()[0]


def _search_sqlite(match, collection_ids, since, until, limit, offset):
    if not match:
        return []
    where, args = [f"e.collection_id IN ({','.join(['%s'] * len(collection_ids))})"], list(collection_ids)
    if since:
        where.append("e.date >= %s")
        args.append(since.isoformat())
    if until:
        where.append("e.date <= %s")
        args.append(until.isoformat())
    sql = (
        "SELECT f.rowid, c.name, d.docno, e.date, -bm25(corpus_fts), "
        f"snippet(corpus_fts, 0, '{search_query.START}', '{search_query.STOP}', '…', 24) "
        "FROM corpus_fts f JOIN corpus_searchentry e ON e.document_id = f.rowid "
        "JOIN corpus_document d ON d.id = f.rowid JOIN corpus_collection c ON c.id = d.collection_id "
        f"WHERE corpus_fts MATCH %s AND {' AND '.join(where)} ORDER BY bm25(corpus_fts), f.rowid LIMIT %s OFFSET %s"
    )
    with connection.cursor() as cur:
        cur.execute(sql, [match, *args, limit, offset])
        rows = cur.fetchall()
    return [
        Hit(i, c, d, date.fromisoformat(day) if isinstance(day, str) else day, float(r), search_query.snippet_html(s))
        for i, c, d, day, r, s in rows
    ]


def search(query, collections, since=None, until=None, page=1, per_page=PAGE):
    """Ranked hits of `query` in `collections` (Collection objects; the caller has already narrowed them to what
    the user may read), written between `since` and `until` (dates, either may be None), `per_page` per page."""
    if len(query or "") > search_query.MAX_QUERY_CHARS:  # (the whole query would reach websearch_to_tsquery)
        raise SearchError(f"the query is {len(query):,} characters long; at most {search_query.MAX_QUERY_CHARS}")
    groups = search_query.parse(query or "")
    results = Results(query=query, marks=search_query.marks(groups), page=page)
    collections = list(collections)
    if not groups or not collections:
        return results
    if since and until and since > until:
        raise SearchError(f"the date range is empty: from {since} is after to {until}")
    offset, want = (page - 1) * per_page, per_page + 1
    hits = []
    if connection.vendor == "postgresql":
        cap = rank_candidates()
        # Each collection is searched on its own (its language parses the query, its own index finds the
        # matches); with several, each gives every page so far and the ranks merge.
        merged = len(collections) > 1
        for collection in collections:
            check_language(collection.search_language)
            found, matched = _search_postgresql(
                query,
                groups,
                collection,
                since,
                until,
                offset + want if merged else want,
                0 if merged else offset,
                cap,
                # (merged, a hit ranked below offset + per_page in its own collection is below the page's end)
                offset + per_page if merged else per_page,
            )
            hits += found
            results.matched += matched
            results.capped |= matched >= cap
        if merged:
            hits.sort(key=lambda h: (-h.rank, h.document_id))
            hits = hits[offset : offset + want]
    else:
        hits = _search_sqlite(search_query.fts5(groups), [c.pk for c in collections], since, until, want, offset)
    results.more = len(hits) > per_page
    results.hits = hits[:per_page]
    return results


def unindexed_count(collections):
    """How many documents of `collections` search cannot find yet."""
    ids = [c.pk for c in collections]
    return (
        Document.objects.filter(collection_id__in=ids).count()
        - SearchEntry.objects.filter(collection_id__in=ids).count()
    )
