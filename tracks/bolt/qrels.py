"""BOLT's citations as qrels (core.extension_points.qrels; docs/formats.md): the document is the cited post,
THREAD:POST (a post id counts within its thread), graded from the citation judgment yes 2, maybe 1, no 0; a
citation LDC judged in the topic file counts as judged so. Two passages of one post: the higher grade."""

from core.label_scales import LabelScale
from pooling.models import RunEntry
from scoring.qrels import item_index, item_qrels
from tracks.bolt.formats.citations import split_key

GRADES = {"yes": 2, "maybe": 1, "no": 0}


def docno(key, docid, data):
    if data.get("bolt") == "view":  # a grouping view, judged on its own page: no document
        return None
    return f"{docid}:{split_key(key)['post']}"


def scales():
    """Citations compare on rel, an ordinal scale (yes > maybe > no); a qrels grade reads back as that rel with the
    rest of the value empty (translation "na", source not checked, no relevant span). Groupings are not compared."""
    grades = {rel: {"rel": label, "trans": "na", "chksrc": False, "relspans": []} for label, rel in GRADES.items()}
    return {"citation": LabelScale("rel", ("yes", "maybe", "no"), ordinal=True, grades=grades)}


def items(evaluation):
    return "citation", item_index(evaluation, docno)


def qrels(evaluation, which):
    return item_qrels(
        evaluation,
        ["citation"],
        which,
        docno,
        lambda kind, value: GRADES.get(value.get("rel")),
        prejudged=lambda data: GRADES.get(data.get("rel")),
    )


def ranked_documents(run):
    """A citation run's cited posts in its ranking (rank by score, tracks.bolt.formats.citations.rank_cites),
    topic by topic; a post cited again keeps its first place (scoring.formats.trec.write_run)."""
    if (run.data or {}).get("subtask") == "groups":
        return []
    entries = RunEntry.objects.filter(run=run).values_list("topic__ident", "topic__position", "docid", "data")
    ranked = sorted(entries, key=lambda e: (e[1], e[3].get("rank", 0)))
    return [(ident, f"{docid}:{data['post']}", float(data.get("score") or 0.0)) for ident, _, docid, data in ranked]
