"""BioGen's cited PMIDs as qrels (core.extension_points.qrels; docs/formats.md): the document is the PMID of a
citation item, graded from its label supports 2; contradicts, neutral, partially supports 1 (relevant, as the
track's document precision counts them: tracks.biogen.measures.RELEVANT); not relevant 0. A PMID cited by
several sentences of a topic keeps its highest grade."""

from core.label_scales import LabelScale
from pooling.models import RunEntry
from scoring.qrels import item_index, item_qrels
from tracks.biogen.labels import ALL_LABELS, KIND
from tracks.biogen.measures import RELEVANT

GRADES = {label: 1 for label in RELEVANT} | {"supports": 2, "not_relevant": 0}


# A qrels grade read back (issue 29): 2 supports, 0 not relevant; grade 1 stands for four labels and reads as
# partially supports, the one between supports and not relevant (docs/formats.md).
FROM_GRADE = {2: "supports", 1: "partially_supports", 0: "not_relevant"}


def docno(key, docid, data):
    return docid if key.startswith("c:") and docid else None


def scales():
    """One kind whose labels differ by item (answer, sentence, citation): compared as a nominal scale."""
    grades = {rel: {"label": label, "evidence": []} for rel, label in FROM_GRADE.items()}
    return {KIND: LabelScale("label", ALL_LABELS, grades=grades)}


def items(evaluation):
    return KIND, item_index(evaluation, docno)


def qrels(evaluation, which):
    return item_qrels(
        evaluation,
        [KIND],
        which,
        docno,
        lambda kind, value: GRADES.get(value.get("label")),
    )


def ranked_documents(run):
    """A run's PMIDs as a ranking, topic by topic (core.extension_points.ranked_documents): the answer's own
    `references` list in its order (2024, where every cited PMID must be listed), then any PMID cited but not
    listed (2025's shapes have no such list) in the order the answer cites it, sentence by sentence. The score
    falls along the ranking (a TREC run file needs one; trec_eval sorts by it)."""
    entries = RunEntry.objects.filter(run=run, data__kind__in=("answer", "sentence")).order_by("topic__position", "pk")
    ranked = []
    for ident, data in entries.values_list("topic__ident", "data"):
        pmids = data.get("references") if data["kind"] == "answer" else data.get("pmids")
        ranked += [(ident, str(pmid)) for pmid in pmids or ()]
    # (a PMID met again keeps its first place: scoring.formats.trec.write_run)
    return [(ident, pmid, float(len(ranked) - n)) for n, (ident, pmid) in enumerate(ranked)]
