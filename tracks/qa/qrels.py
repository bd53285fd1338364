"""QA's answer documents as qrels (core.extension_points.qrels; docs/formats.md): the document is the one a
response cites as supporting it, under the response's question. Binary, as the document's part of the
judgment: 1 when the answer was judged right (correct, globally or locally correct, or non-exact: the string's
extent is not the document's fault), 0 otherwise (unsupported, incorrect); Other and ciQA responses 1 when they
matched a nugget. NIL responses name no document and are left out."""

from core.label_scales import NUGGETS, LabelScale
from scoring.qrels import item_index, item_qrels
from tracks.qa.measures import KNOWN_ANSWER_LABELS
from tracks.qa.questions import INSTANCE_TYPES


def grade(kind, value):
    if kind == "instance":
        return 1 if value.get("label") in KNOWN_ANSWER_LABELS else 0
    return 1 if value.get("nuggets") else 0


def docno(key, docid, data):
    return docid if docid and docid != "NIL" else None


VOTES = LabelScale("vote", ("vital", "okay"), ordinal=True)


def scales_of(track):
    """The track's scales (issue 29): instance labels nominal (the track's own, no order declared), a response's
    nuggets nugget by nugget, votes ordinal (vital > okay). A qrels grade reads back as an instance label: 1 the
    track's fully correct label, 0 incorrect (the reverse of `grade`; NIL responses name no document)."""
    labels = track.labels("instance")

    def scales():
        found = {"nugget_match": LabelScale(NUGGETS), "nugget_vote": VOTES, "nugget_revote": VOTES}
        if labels:
            right = "globally-correct" if "globally-correct" in labels else "correct"
            grades = {1: {"label": right, "answer_class": None}, 0: {"label": "incorrect", "answer_class": None}}
            found["instance"] = LabelScale("label", labels, grades=grades)
        return found

    return scales


def items(evaluation):
    """Responses to factoid and list questions: the ones judged by instance label."""
    return "instance", item_index(evaluation, docno, topic__kind__in=sorted(INSTANCE_TYPES))


def qrels(evaluation, which):
    return item_qrels(
        evaluation,
        ["instance", "nugget_match"],
        which,
        docno,
        grade,
    )
