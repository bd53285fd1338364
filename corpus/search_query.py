"""What full-text search needs that is plain text work (no Django): the query language, the terms to mark, the
snippet's markup and a document's date.

The query language is the web-search syntax PostgreSQL's `websearch_to_tsquery` reads, so both databases take the
same queries: words (all must occur), "a phrase" in double quotes, `or` between two alternatives, `-word` or
`-"a phrase"` to exclude. `parse` turns a query into clauses; `fts5` writes them in SQLite FTS5's syntax;
`marks` lists the words and phrases the viewer marks in an opened document.
"""

import html
import re
from dataclasses import dataclass
from datetime import date

# A snippet is cut by the database with these two characters around each match. A document may hold them (its
# text is kept as decoded), so corpus.search removes them from the text it cuts snippets from.
START, STOP = "\x01", "\x02"
MAX_QUERY_CHARS = 500
_TOKEN = re.compile(r'-?"[^"]*"?|\S+')
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Term:
    words: tuple[str, ...]  # one word, or a phrase's words in order
    negated: bool = False

    @property
    def phrase(self):
        return len(self.words) > 1


def parse(query):
    """The query as a list of alternatives groups: [[Term, ...], ...]; each inner list holds the terms joined by
    `or`, the outer list's groups must all hold. Punctuation inside words splits them, as the databases'
    tokenisers do. Returns [] for a query without a word."""
    groups, pending_or = [], False
    for token in _TOKEN.findall(query[:MAX_QUERY_CHARS]):
        negated = token.startswith("-")
        body = token[1:] if negated else token
        if body.lower() == "or" and not negated:
            pending_or = bool(groups)
            continue
        words = tuple(w.lower() for w in _WORD.findall(body))
        if not words:
            continue
        term = Term(words, negated)
        if pending_or and not negated and groups and not any(t.negated for t in groups[-1]):
            groups[-1].append(term)
        else:
            groups.append([term])
        pending_or = False
    if all(t.negated for g in groups for t in g):
        return []  # nothing to look for: only exclusions
    return groups


def _fts5_term(term):
    return '"' + " ".join(term.words) + '"'  # FTS5 strings: a phrase of its tokens; words are quoted, so never syntax


def fts5(groups):
    """The clauses in SQLite FTS5's query syntax ("" when there is nothing to match)."""
    positive, negative = [], []
    for group in groups:
        if group[0].negated:
            negative.append(_fts5_term(group[0]))
        elif len(group) == 1:
            positive.append(_fts5_term(group[0]))
        else:
            positive.append("(" + " OR ".join(_fts5_term(t) for t in group) + ")")
    if not positive:
        return ""
    query = " AND ".join(positive)
    for term in negative:  # FTS5's NOT is binary: what the left side matches, less the right side's matches
        query = f"({query}) NOT {term}"
    return query


def marks(groups):
    """The words and phrases the viewer marks in an opened document (exclusions are not marked)."""
    out = []
    for group in groups:
        for term in group:
            text = " ".join(term.words)
            if not term.negated and text not in out:
                out.append(text)
    return out


def snippet_html(text):
    """A snippet the database cut (matches between START and STOP) as safe HTML with <mark> around the matches."""
    escaped = html.escape(" ".join(text.split()), quote=False)
    return escaped.replace(START, "<mark>").replace(STOP, "</mark>")


_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DOCNO_DAY = re.compile(r"_(\d{4})(\d{2})(\d{2})\.")  # AQUAINT-2: AFP_ENG_20050101.0001


def _day(y, m, d):
    try:
        return date(int(y), int(m), int(d))
    except ValueError:
        return None


def document_date(fmt, docno, meta):
    """The day a document was written, for the date filter, or None: Blog06 DATE_XML, AQUAINT-2's docno, a BOLT
    thread's first post, a PubMed abstract none."""
    meta = meta or {}
    if fmt == "blog06":
        m = _ISO.match(str(meta.get("DATE_XML", "")).strip())
        return _day(*m.groups()) if m else None
    if fmt == "aquaint2":
        m = _DOCNO_DAY.search(docno)
        return _day(*m.groups()) if m else None
    if fmt == "bolt-forum":
        posts = meta.get("posts") or []
        m = _ISO.match(str(posts[0].get("datetime", "")).strip()) if posts else None
        return _day(*m.groups()) if m else None
    return None
