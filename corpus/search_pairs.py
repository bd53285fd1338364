"""Phrases of two common words, found through an index of the collection's adjacent common-word pairs (issue 32,
item 4; PostgreSQL).

A phrase query is checked from positions: RUM reads every posting of both words with their positions. For two
words each in a large share of the documents that is the whole cost of a search (1,000,000 Blog06-like documents:
40-58 ms per index piece, a phrase p99 of 194 ms), and no order of reading stops early, since such a phrase is
rare even when its words are not. So a large collection gets, once its entries are in, a second index: over each
entry, the pairs of its common lexemes that stand at adjacent positions, one lexeme each ("fox jump"), with no
positions (GIN). A query whose tsquery requires such a phrase (`'fox' <-> 'jump'` as the whole query or one of its
top-level AND terms) is matched by that index's short posting list, and each candidate is checked against the
whole query from its own tsvector.

The same rows either way, in the same order. The pairs are computed from the stored tsvector's positions (what
`@@` itself reads: positions past 16,383 collapsed, at most 256 per lexeme), so an entry holds a pair exactly when
it matches the phrase; the index only narrows the candidates, the query is checked in full, and a bitmap heap
scan returns the first `cap` matches in heap order as the full-text index's does.

"Common" is a collection's own: lexemes in at least SEARCH_PAIRS_PERCENT % of a sample of its entries, fixed when the
index is built (kept on the collection; the function that computes an entry's pairs holds the list, so an index
and its list never disagree). Later loads add their entries' pairs through the index as rows are written.
"""

import re

from django.conf import settings
from django.db import connection, transaction

from corpus import search_rum

SAMPLE = 5000  # entries sampled for the common lexemes (a lexeme's share among them)
MAX_COMMON = 1000  # at most this many common lexemes, the most frequent first

# --- the query: which pairs a tsquery requires (pure) -------------------------------------------------------

# PostgreSQL's tsquery output: quoted lexemes ('' for a quote, \ escapes), with :* and weights after; operators.
_TOKEN = re.compile(r"\s*('(?:[^'\\]|''|\\.)*'(?::[*A-Da-d]+)?|<->|<\d+>|[&|!()])")
_LEXEME = re.compile(r"'((?:[^'\\]|''|\\.)*)'")


def _tokens(text):
    out, at = [], 0
    text = text.rstrip()
    while at < len(text):
        m = _TOKEN.match(text, at)
        if not m:
            return None  # not a form this module knows: no pairs, the query runs as it would without them
        out.append(m.group(1))
        at = m.end()
    return out


def _unescape(quoted):
    return re.sub(r"\\(.)", r"\1", quoted.replace("''", "'"))


def required_pairs(tsquery_text, common):
    """The pairs (first lexeme, second lexeme) of common lexemes that every match of the tsquery (as PostgreSQL
    writes it) holds adjacent: its top-level AND terms that are a phrase of exactly two plain lexemes, both in
    `common`. [] when there is none, or the query has a top-level `|` (an OR needs neither side)."""
    tokens = _tokens(tsquery_text or "")
    if not tokens:
        return []
    terms, term, depth = [], [], 0
    for token in tokens:
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        if depth == 0 and token == "|":
            return []
        if depth == 0 and token == "&":
            terms.append(term)
            term = []
        else:
            term.append(token)
    terms.append(term)
    pairs = []
    for term in terms:
        if len(term) != 3 or term[1] != "<->":
            continue
        first, second = (_LEXEME.fullmatch(t) for t in (term[0], term[2]))  # (a suffix :* or :A fails fullmatch)
        if first and second:
            pair = (_unescape(first.group(1)), _unescape(second.group(1)))
            if pair[0] in common and pair[1] in common and pair not in pairs:
                pairs.append(pair)
    return pairs


def _quote(lexeme):
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def pairs_tsquery(pairs):
    """The tsquery text that the pairs index answers: each pair one lexeme ("first second"), all required."""
    return " & ".join(_quote(f"{a} {b}") for a, b in pairs)


# --- the index ----------------------------------------------------------------------------------------------


def name(pk):
    """The collection's pairs function, and its pairs index (or the prefix of its pieces' names)."""
    return f"corpus_search_pairs_{int(pk)}"


# An entry's adjacent common pairs: its common lexemes (setweight marks them C in one C pass over the sorted
# tsvector, ts_filter keeps them), each at each of its positions, joined to what stands at the next position.
_FUNCTION = """
CREATE OR REPLACE FUNCTION {name}(v tsvector) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $pairs$
  WITH x AS MATERIALIZED (SELECT u.lexeme AS l, p FROM unnest(ts_filter(setweight(setweight(v, 'D'), 'C', {common}),
  '{{c}}')) u, unnest(u.positions) p)
  SELECT coalesce(array_to_tsvector(array_agg(a.l || ' ' || b.l)), ''::tsvector) FROM x a JOIN x b ON b.p = a.p + 1
$pairs$
"""


def common_lexemes(pk, share, entries, sample=SAMPLE):
    """The lexemes in at least `share` of a sample of the collection's `entries` entries (every k-th by id), most
    frequent first, at most MAX_COMMON; [] when it has none."""
    step = max(1, entries // sample)
    inner = f"SELECT vector FROM corpus_searchentry WHERE collection_id = {int(pk)} AND document_id % {step} = 0"
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM ({inner}) s")
        sampled = cur.fetchone()[0]
        if not sampled:
            return []
        # (a lexeme with a `$` could end the function's dollar-quoted body it is written into: documents are
        # untrusted, and no phrase of words needs one)
        cur.execute(
            "SELECT word FROM ts_stat(%s) WHERE ndoc >= %s AND strpos(word, '$') = 0 ORDER BY ndoc DESC, word LIMIT %s",
            [inner, share * sampled, MAX_COMMON],
        )
        return [row[0] for row in cur.fetchall()]


def _index_sql(pk, n=1, i=0):
    piece = f" AND {search_rum.piece_predicate(i, n)}" if n > 1 else ""
    index = name(pk) if n <= 1 else f"{name(pk)}_{int(i)}of{int(n)}"
    return (
        f"CREATE INDEX IF NOT EXISTS {index} ON corpus_searchentry USING gin ({name(pk)}(vector)) "
        f"WHERE collection_id + 0 = {int(pk)}{piece}"
    )


def create(collection, entries):
    """Build the pairs index of `collection` (which has `entries` entries) if it has none and SEARCH_PAIRS_FROM
    entries or more, in as many pieces as its full-text index (collection.search_pieces: the search's filter then
    covers both), side by side; returns the common lexemes it was built for ([] for none)."""
    from corpus.models import Collection

    built = Collection.objects.filter(pk=collection.pk).values_list("search_pairs", flat=True).first()
    if built:  # (read afresh: another build may have made it since the caller's object was read)
        collection.search_pairs = built
        return built
    pk, n = collection.pk, max(1, collection.search_pieces)
    if n > 1 and connection.in_atomic_block:
        return []  # pieces are built by other backends, which cannot see the caller's rows: the next build outside
    if not settings.SEARCH_PAIRS_FROM or entries < settings.SEARCH_PAIRS_FROM:
        return []
    common = common_lexemes(pk, settings.SEARCH_PAIRS_PERCENT / 100, entries)
    if not common:
        return []
    drop(pk)  # what an interrupted build left: its function's list is not this one
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SELECT quote_literal(%s::text[]) || '::text[]'", [common])
        cur.execute(_FUNCTION.format(name=name(pk), common=cur.fetchone()[0]))
    try:
        search_rum.build([_index_sql(pk, n, i) for i in range(n)])
    except Exception:
        drop(pk)  # never a collection with some of its pieces: the next build starts again
        raise
    Collection.objects.filter(pk=pk).update(search_pairs=common)
    collection.search_pairs = common
    return common


def drop(pk):
    """Drop the collection's pairs index (its pieces) and its function (the caller clears Collection.search_pairs)."""
    with connection.cursor() as cur:
        cur.execute(f"DROP FUNCTION IF EXISTS {name(pk)}(tsvector) CASCADE")  # (its indexes with it)


def match(collection, tsquery_text):
    """(SQL, params) of the condition that finds a query's candidates through the pairs index, or None when the
    collection has none or the query requires no pair of its common lexemes."""
    if not collection.search_pairs:
        return None
    pairs = required_pairs(tsquery_text, set(collection.search_pairs))
    if not pairs:
        return None
    return f"{name(collection.pk)}(e.vector) @@ %s::tsquery", [pairs_tsquery(pairs)]


def drop_with_collection(sender, instance, **kwargs):
    """post_delete of a Collection: its entries went with it, so its pairs index and function go too."""
    if connection.vendor == "postgresql":
        drop(instance.pk)  # (also what an interrupted build left)
