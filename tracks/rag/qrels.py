"""TREC RAG's qrels (core.extension_points.qrels; docs/formats.md): the document is the segment of a relevance
item (r:<segment>), graded with its UMBRELA label 0-3, as TREC 2024 RAG's qrels are; and a retrieval run's
ranking for trec_eval (core.extension_points.ranked_documents)."""

from pooling.models import RunEntry
from scoring.qrels import item_qrels
from tracks.rag.labels import KIND, RELEVANCE_LABELS


def qrels(evaluation, which):
    return item_qrels(
        evaluation,
        [KIND],
        which,
        lambda key, docid, data: docid if key.startswith("r:") and docid else None,
        lambda kind, value: int(value["label"]) if value.get("label") in RELEVANCE_LABELS else None,
    )


def ranked_documents(run):
    """A retrieval run's segments in rank order, topic by topic; an answer run's cited segments, in citation
    order, with descending scores (what trec_eval needs to read them as a ranking)."""
    rows = (
        RunEntry.objects.filter(run=run).order_by("topic__position", "id").values_list("topic__ident", "docid", "data")
    )
    seen, count = set(), {}
    for ident, docid, data in rows:
        kind = (data or {}).get("kind")
        if kind == "ranked":
            yield ident, docid, float(data.get("score", 0))
        elif kind == "relevance" and (ident, docid) not in seen:
            seen.add((ident, docid))
            count[ident] = count.get(ident, 0) + 1
            yield ident, docid, float(1000 - count[ident])
