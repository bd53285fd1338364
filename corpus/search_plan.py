"""How a PostgreSQL search finds the first `cap` matches of a query of common words (issue 32, item 4).

A search ranks the first `cap` matches in heap order (corpus.search). The collection's full-text index reads every
posting of the query's words before that LIMIT applies, ~0.12-0.2 µs per document holding a word: a word in 74 % of
1,000,000 documents took 147 ms, and the cost grows with the collection. Reading the collection's entries in heap
order and testing each (~5-18 µs a row, its tsvector read) stops at the `cap`-th match: ~400 rows, 2 ms, for that
word. Both ways give the same rows — the first `cap` matches in heap order: a bitmap heap scan visits the table's
pages in order, and the btree `corpus_search_load_order` (on `collection_id * 1`, an expression no other query
writes, so no other index can be taken for it) keeps equal keys in heap order (PostgreSQL >= 12 orders a btree's
duplicates by their heap TID). So the choice changes what a search costs, never what it finds.

The choice needs each word's share of documents: PostgreSQL's statistics of corpus_searchentry.vector (ANALYZE keeps
the ~1,000 most common lexemes, each with the fraction of sampled rows holding it; a load runs ANALYZE at its end).
Only an AND of plain words qualifies: a phrase, an `or` or an exclusion is costed differently by the index (an
exclusion measured 42 ms by the index against 214 ms by the scan), and a date filter makes matches rarer than the
words say. A word missing from the statistics is rarer than the rarest kept (~7 % here) and the index is cheaper.

An AND of words and exclusions that the scan does not take may instead be read through its rarest word (below):
the index reads that word's postings alone, and each candidate, in heap order, is checked against the whole query.
The same rows again, since every match holds that word.
"""

import re

# Measured at 200,000 and 1,000,000 documents (benchmarks collection; EXPLAIN ANALYZE, warm and cold pages).
SCAN_ROW_US = 8.0  # one entry read in heap order and tested (4.6 warm, 7.5 typical, 18 with its pages cold)
POSTING_US = 0.15  # one posting of the rarest word read by the index (0.12 at 200,000, 0.2 at 1,000,000)

AND_POSTING_US = 0.055  # one posting of a word in an AND or an exclusion (614,000 of two words: 33.6 ms at 1 M)

# The query's tsquery as text; for each of its lexemes (in order) the fraction of index rows holding it per the
# column's statistics (0 when not among the most common, or no statistics yet); and the smallest fraction kept
# (what a word missing from them has at most: PostgreSQL stores it after the lexemes' own). The statistics' row
# is read once (a CTE named twice is materialized).
FREQUENCIES = (
    "WITH s AS (SELECT most_common_elems::text::text[] AS e, most_common_elem_freqs AS f FROM pg_stats "
    "WHERE schemaname = current_schema() AND tablename = 'corpus_searchentry' AND attname = 'vector') "
    "SELECT q::text, (SELECT array_agg(coalesce(s.f[array_position(s.e, x.l)], 0) ORDER BY x.n) FROM s, "
    "LATERAL (SELECT replace(r.m[1], '''''', '''') AS l, r.n FROM regexp_matches(q::text, "
    "'''((?:[^'']|'''')*)''', 'g') WITH ORDINALITY AS r(m, n)) x), "
    "(SELECT s.f[array_length(s.e, 1) + 1] FROM s) "
    "FROM websearch_to_tsquery(%s::regconfig, %s) q"
)

_AND_OF_LEXEMES = re.compile(r"'(?:[^']|'')*'(?: & '(?:[^']|'')*')*")


def may_scan(groups, since, until, documents, cap):
    """Whether the statistics are worth reading: the query, as search_query.parse reads it, can be an AND of plain
    words, and the collection is large enough that a scan could win even for words in every document (below
    ~16,000 documents the index always costs less, and the statistics' read would be wasted)."""
    if since or until or cap * SCAN_ROW_US >= documents * POSTING_US:
        return False
    return all(len(g) == 1 and not g[0].negated and not g[0].phrase for g in groups)


def scan_is_cheaper(tsquery_text, frequencies, documents, cap):
    """Whether reading the collection's `documents` entries in heap order finds the first `cap` matches for less
    than the index would (frequencies: each lexeme's share of documents, in the tsquery's order)."""
    if not frequencies or not _AND_OF_LEXEMES.fullmatch(tsquery_text or ""):
        return False
    share = 1.0
    for f in frequencies:
        share *= f  # (words taken as independent: a wrong guess costs time, not results)
    if share <= 0:
        return False
    rows = min(documents, cap / share)
    return rows * SCAN_ROW_US < documents * min(frequencies) * POSTING_US


# --- an AND (or an exclusion) read through its rarest word ----------------------------------------------------
#
# An AND of a middling word and a common one (or a word less a common one) costs the index every posting of both:
# RUM intersects whole lists (a word in 4.5 % and one in 57 % of 1,000,000 documents: 33.6 ms, 614,000 postings).
# Every match holds the rarest word, so its postings alone are candidates enough: visited in heap order, each
# checked against the whole query, they give the same first `cap` matches after about cap / (the other terms'
# joint share) checks. Worth it when those checks cost less than the other words' postings.

_TERMS = re.compile(r"!?'(?:[^']|'')*'(?: & !?'(?:[^']|'')*')*")
_TERM = re.compile(r"(!?)('(?:[^']|'')*')")


def may_narrow(groups, since, until, documents, cap):
    """Whether the statistics are worth reading for it: two or more plain words and exclusions of words, one of
    them a word, no dates (they make matches rarer than the words say), and a collection where postings can cost
    more than checks."""
    if since or until or cap * SCAN_ROW_US >= documents * AND_POSTING_US:
        return False
    if not all(len(g) == 1 and not g[0].phrase for g in groups):
        return False
    return len(groups) >= 2 and any(not g[0].negated for g in groups)


def narrowest(tsquery_text, frequencies, floor, documents, cap):
    """The rarest required lexeme of an AND of words and exclusions, quoted as the tsquery writes it, when reading
    only its postings and checking the candidates costs less than reading every term's postings; else None.
    `frequencies`: each lexeme's share, in order (0: missing from the statistics, so at most `floor`)."""
    text = tsquery_text or ""
    if not frequencies or not floor or not _TERMS.fullmatch(text):
        return None
    terms = [(m.group(1) == "!", m.group(2)) for m in _TERM.finditer(text)]
    if len(terms) != len(frequencies) or len(terms) < 2:
        return None
    shares = [f or floor for f in frequencies]
    positive = [i for i, (negated, _) in enumerate(terms) if not negated]
    if not positive:
        return None
    rarest = min(positive, key=lambda i: shares[i])
    others = 1.0  # (terms taken as independent: a wrong guess costs time, not results)
    for i, (negated, _) in enumerate(terms):
        if i != rarest:
            others *= (1 - shares[i]) if negated else shares[i]
    candidates = documents * shares[rarest]
    checks = min(candidates, cap / others) if others > 0 else candidates
    narrow = candidates * AND_POSTING_US + checks * SCAN_ROW_US
    every = documents * sum(shares) * AND_POSTING_US
    return terms[rarest][1] if narrow < every else None
