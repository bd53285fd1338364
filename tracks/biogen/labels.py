"""The labels an assessor gives each BioGen pool item (SPEC-NOTES, seed 002 Assessment), by item kind. Plain data."""

from tracks.biogen.measures import CITATION_LABELS, SENTENCE_LABELS

KIND = "biogen"  # the one judgment kind: its value's label depends on the item (answer, sentence, citation)
ANSWER_LABELS = ("accurate", "not_accurate")
ALL_LABELS = ANSWER_LABELS + SENTENCE_LABELS + CITATION_LABELS

TEXT = {
    "accurate": "accurate",
    "not_accurate": "not accurate",
    "required": "required",
    "unnecessary": "unnecessary",
    "borderline": "borderline",
    "inappropriate": "inappropriate",
    "supports": "supports",
    "contradicts": "contradicts",
    "neutral": "neutral",
    "not_relevant": "not relevant",
    "partially_supports": "partially supports",
}


def labels_for(item_kind: str, run_shape: str = "2024") -> tuple[str, ...]:
    """The labels of an item of `item_kind`; 2025 Task A adds "partially supports" for citations."""
    if item_kind == "answer":
        return ANSWER_LABELS
    if item_kind == "sentence":
        return SENTENCE_LABELS
    if item_kind == "citation":
        return CITATION_LABELS if run_shape == "2025-A" else CITATION_LABELS[:4]
    return ()
