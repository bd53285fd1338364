"""BioGen judging on the generic save protocol (assess.judging.save_judgment: versions, 409, history, stale marks).

One judgment kind ("biogen") for the three kinds of pool item of a topic; its label must be one of the item's
labels (tracks.biogen.labels). Double judging and adjudication work as for BOLT: a second assessor judges the
same items apart; items whose two labels differ wait in the adjudication queue, decided once by an organizer or
an invited adjudicator who did not judge the topic.
"""

from assess import judging as generic
from assess.adjudication import decide, disagreements
from assess.models import Assignment, Judgment
from pooling.evaluations import effective_settings
from pooling.models import PoolItem
from tracks.biogen.labels import KIND, labels_for

TRACK = "biogen-2024"
ORDER = {"answer": 0, "sentence": 1, "citation": 2}
MAX_EVIDENCE = 20
MAX_EVIDENCE_CHARS = 300


class BiogenError(generic.JudgingError):
    """A judgment value that does not fit its item (400)."""


def run_shape(evaluation):
    return str(effective_settings(evaluation).get("run_shape") or "2024")


def topic_items(topic):
    """The topic's pool items, answers first, then sentences, then citations (each in pool order); a citation's
    sentence is found by its text."""
    items = list(PoolItem.objects.filter(topic=topic).order_by("position", "id"))
    return sorted(items, key=lambda i: (ORDER.get(i.data.get("kind"), 3), i.position, i.pk))


def my_judgments(user, items):
    return {
        j.item_id: j
        for j in Judgment.objects.filter(kind=KIND, assessor=user, item_id__in=[i.pk for i in items]).exclude(
            role=Judgment.ADJUDICATED
        )
    }


KIND_OF_KEY = {"a": "answer", "s": "sentence", "c": "citation"}  # tracks.biogen.formats.runs.pool_key


def item_kind(item):
    """An item's kind from its pool key's first letter: the save path's one read (load_item) has no data."""
    return KIND_OF_KEY.get(item.key[:1], "")


def item_labels(item, kind=KIND):
    """The labels the item may be judged with (ep.item_labels, for assisted judging's suggestions)."""
    return labels_for(item_kind(item), run_shape(item.evaluation))


def clean_value(item, value, shape="2024"):
    """A judgment value checked against the item's labels; BiogenError naming what is wrong otherwise."""
    if not isinstance(value, dict):
        raise BiogenError("a BioGen judgment is an object: label (and evidence for a citation)")
    kind = item_kind(item)
    allowed = labels_for(kind, shape)
    label = value.get("label")
    if label not in allowed:
        raise BiogenError(f"a {kind} is judged {', '.join(allowed)}, not {label!r}")
    evidence = value.get("evidence") or []
    if kind != "citation" and evidence:
        raise BiogenError("only a citation has supporting words")
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise BiogenError("evidence is a list of the supporting words (text)")
    words = []
    for e in evidence:
        e = " ".join(e.replace("\x00", "").split())[:MAX_EVIDENCE_CHARS]
        if e and e not in words:
            words.append(e)
    return {"label": label, "evidence": words[:MAX_EVIDENCE]}


def judge_item(user, item, value, expected_version):
    """Save the user's judgment of a pool item of a topic assigned to them (as primary or second assessor).
    `item` may come from assess.judging.load_item (its role and closure read with it: the save path's one read)."""
    if hasattr(item, "my_role"):
        role, closed = item.my_role, item.closed
    else:
        role = Assignment.objects.filter(assessor=user, topic=item.topic).values_list("role", flat=True).first()
        closed = None
    if role is None:
        raise generic.Forbidden(f"topic {item.topic.ident} is not assigned to you")
    clean = clean_value(item, value, run_shape(item.evaluation))
    return generic.save_judgment(
        user,
        topic=item.topic,
        kind=KIND,
        role=role,
        item=item,
        value=clean,
        expected_version=expected_version,
        closed=closed,
    )


# --- adjudication ----------------------------------------------------------------------------------------------


def adjudication_queue(evaluation, user=None):
    """[(item, primary, secondary, adjudicated or None)] of the items the two assessors labelled differently, in
    topic and pool order. With `user`, the topics the user judged are left out."""
    out = disagreements(
        evaluation, KIND, lambda first, second: first.value.get("label") != second.value.get("label"), user
    )
    out.sort(key=lambda row: (row[0].topic.position, ORDER.get(row[0].data.get("kind"), 3), row[0].position))
    return out


def adjudicate(user, item, value, expected_version):
    """Decide a disputed item (assess.adjudication.decide): one decision per item, never by one of its assessors."""
    return decide(
        user,
        item,
        KIND,
        value,
        expected_version,
        clean=lambda value: clean_value(item, value, run_shape(item.evaluation)),
        differ=lambda primary, secondary: primary.get("label") != secondary.get("label"),
    )
