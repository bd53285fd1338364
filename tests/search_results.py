"""What the search tests compare between two ways of finding the same matches."""

from corpus.search import search


def found(query, collection, page=1, per_page=4):
    """A page of a search of one collection: (docno, rank, snippet) of each hit, how many matched, whether capped,
    whether another page follows."""
    results = search(query, [collection], page=page, per_page=per_page)
    return [(h.docno, h.rank, h.snippet) for h in results.hits], results.matched, results.capped, results.more
