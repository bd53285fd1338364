"""QA's answer documents as qrels (core.extension_points.qrels; docs/formats.md): the document is the one a
response cites as supporting it, under the response's question. Binary, as the document's part of the
judgment: 1 when the answer was judged right (correct, globally or locally correct, or non-exact: the string's
extent is not the document's fault), 0 otherwise (unsupported, incorrect); Other and ciQA responses 1 when they
matched a nugget. NIL responses name no document and are left out."""

from scoring.qrels import item_qrels
from tracks.qa.measures import KNOWN_ANSWER_LABELS


def grade(kind, value):
    if kind == "instance":
        return 1 if value.get("label") in KNOWN_ANSWER_LABELS else 0
    return 1 if value.get("nuggets") else 0


def qrels(evaluation, which):
    return item_qrels(
        evaluation,
        ["instance", "nugget_match"],
        which,
        lambda key, docid, data: docid if docid and docid != "NIL" else None,
        grade,
    )
