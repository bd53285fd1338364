"""TREC RAG's qrels (core.extension_points.qrels; docs/formats.md): the document is the segment of a relevance
item (r:<segment>), graded with its UMBRELA label 0-3, as TREC 2024 RAG's qrels are; and a retrieval run's
ranking for trec_eval (core.extension_points.ranked_documents). Read back (issue 29), an UMBRELA qrels file is a
judgment set of relevance grades (scales, items)."""

from core.label_scales import NUGGETS, LabelScale
from pooling.models import RunEntry
from scoring.qrels import item_index, item_qrels
from tracks.rag.labels import ASSIGNMENTS, IMPORTANCE, IMPORTANCE_KIND, KIND, RELEVANCE_LABELS, SUPPORT_LABELS

# The scales' names (core.extension_points.judgment_scales): one kind "rag" holds three scales, told apart by the
# pool item's key (r: a cited segment, p: a (sentence, segment) pair, a: an answer), plus the nuggets' importance.
RELEVANCE, SUPPORT, ASSIGNMENT = "relevance", "support", "assignment"


def docno(key, docid, data):
    return docid if key.startswith("r:") and docid else None


def scales():
    """Every scale ordinal, best first: relevance 3 > 2 > 1 > 0 (UMBRELA's grades; a qrels grade reads back as that
    grade), support full > partial > no, an answer's assignment per nugget support > partial_support >
    not_support (nuggetizer's words: each (answer, nugget) a unit; a nugget not yet assigned is none), and the
    nuggets' importance vital > okay."""
    grades = {int(g): {"label": g, "nuggets": {}} for g in RELEVANCE_LABELS}
    return {
        RELEVANCE: LabelScale("label", RELEVANCE_LABELS[::-1], ordinal=True, grades=grades, kind=KIND, items="r:"),
        SUPPORT: LabelScale("label", SUPPORT_LABELS, ordinal=True, kind=KIND, items="p:"),
        ASSIGNMENT: LabelScale(
            NUGGETS, ASSIGNMENTS, ordinal=True, kind=KIND, items="a:", template={"label": "assigned"}
        ),
        IMPORTANCE_KIND: LabelScale("vote", IMPORTANCE, ordinal=True),
    }


def items(evaluation):
    """The cited or retrieved segments pooled for relevance, by (topic, segment id): what an UMBRELA line names."""
    return KIND, item_index(evaluation, docno, key__startswith="r:")


def qrels(evaluation, which):
    return item_qrels(
        evaluation,
        [KIND],
        which,
        docno,
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
