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


def importance_words(value, names):
    return value["vote"]


KINDS = (
    JudgmentKind(
        KIND,
        {"label": ALL_LABELS, "nuggets": MapOf(ASSIGNMENTS)},
        "a cited segment's relevance (0-3), a sentence's support by a segment it cites, or an answer's nuggets",
        rag_words,
        labels=ALL_LABELS,
    ),
    JudgmentKind(IMPORTANCE_KIND, {"vote": IMPORTANCE}, "a nugget's importance: vital or okay", importance_words),
)
