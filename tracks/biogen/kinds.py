"""BioGen's judgment kind and its value's shape (the Track holds it, assess.kinds checks it; tracks.biogen.judging
checks the label fits the item first): a label, and for a citation the supporting words the assessor marked in the
abstract."""

from core.tracks import JudgmentKind
from tracks.biogen.labels import ALL_LABELS, KIND


def label_words(value, names):
    """E.g. "supports, 2 supporting passages marked"."""
    n = len(value.get("evidence") or ())
    return value["label"] + (f", {n} supporting passage{'s' if n > 1 else ''} marked" if n else "")


KINDS = (
    JudgmentKind(
        KIND,
        {"label": ALL_LABELS, "evidence": [str]},
        "an answer's accuracy, a sentence's label or a citation's support, with the supporting words of a citation",
        label_words,
        labels=ALL_LABELS,
    ),
)
