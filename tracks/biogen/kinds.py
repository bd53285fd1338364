"""BioGen's judgment kind and its value's shape (the Track holds it, assess.kinds checks it; tracks.biogen.judging
checks the label fits the item first): a label, and for a citation the supporting words the assessor marked in the
abstract."""

from core.tracks import JudgmentKind
from tracks.biogen.labels import ALL_LABELS, KIND


def label_words(value, names):
    """E.g. "supports, 2 supporting passages marked"."""
    n = len(value.get("evidence") or ())
    return value["label"] + (f", {n} supporting passage{'s' if n > 1 else ''} marked" if n else "")


# (worst, best) label by item kind, for the track's headline and shares: an answer not accurate or accurate, a
# sentence inappropriate or required, a citation not relevant or supporting.
BOUND_LABELS = {
    "answer": ("not_accurate", "accurate"),
    "sentence": ("inappropriate", "required"),
    "citation": ("not_relevant", "supports"),
}


def label_bounds(item_data, nugget_ids):
    """Bounds of an unjudged answer, sentence or citation (BOUND_LABELS), by the item's kind."""
    labels = BOUND_LABELS.get(item_data.get("kind"))
    if labels is None:
        return None
    return tuple({"label": label, "evidence": []} for label in labels)


KINDS = (
    JudgmentKind(
        KIND,
        {"label": ALL_LABELS, "evidence": [str]},
        "an answer's accuracy, a sentence's label or a citation's support, with the supporting words of a citation",
        label_words,
        labels=ALL_LABELS,
        bounds=label_bounds,
    ),
)
