"""TREC RAG's judgment kinds and their values' shapes (the Track holds them, assess.kinds checks them; the track's
judging narrows the label to the item's kind first)."""

from core.tracks import JudgmentKind, MapOf
from tracks.rag.labels import ALL_LABELS, ASSIGNMENTS, IMPORTANCE, IMPORTANCE_KIND, KIND, TEXT


def rag_words(value, names):
    """E.g. "highly relevant", or "nuggets assigned: 2 support, 1 partial_support"."""
    label = TEXT.get(value["label"], value["label"])
    held = value.get("nuggets") or {}
    if not held:
        return label
    counts = {a: sum(1 for v in held.values() if v == a) for a in ASSIGNMENTS}
    return label + ": " + ", ".join(f"{n} {a}" for a, n in counts.items() if n)


# (worst, best) value of an unjudged item by its kind (issue 29's bounds): a segment irrelevant or perfectly
# relevant, a pair no or full support, an answer supporting none or all of its topic's nuggets.
BOUND_LABELS = {"relevance": ("0", "3"), "support": ("no_support", "full_support")}


def bounds(item_data, nugget_ids):
    """Bounds of an unjudged segment, (sentence, segment) pair or answer (an answer of a topic without nuggets
    has none: its nugget scores wait for the nuggets anyway)."""
    kind = item_data.get("kind")
    if kind in BOUND_LABELS:
        return tuple({"label": label, "nuggets": {}} for label in BOUND_LABELS[kind])
    if kind == "answer" and nugget_ids:
        return tuple(
            {"label": "assigned", "nuggets": {str(n): assignment for n in nugget_ids}}
            for assignment in ("not_support", "support")
        )
    return None


def importance_words(value, names):
    return value["vote"]


KINDS = (
    JudgmentKind(
        KIND,
        {"label": ALL_LABELS, "nuggets": MapOf(ASSIGNMENTS)},
        "a cited segment's relevance (0-3), a sentence's support by a segment it cites, or an answer's nuggets",
        rag_words,
        labels=ALL_LABELS,
        bounds=bounds,
    ),
    JudgmentKind(IMPORTANCE_KIND, {"vote": IMPORTANCE}, "a nugget's importance: vital or okay", importance_words),
)
