"""The labels of TREC RAG's judgments (SPEC-NOTES "TREC RAG", Assessment 2024), by pool item kind. Plain data.

One judgment kind ("rag") holds every pool item's judgment, as BioGen's does: a cited segment's relevance grade
(UMBRELA's 0-3), a (sentence, cited segment) pair's support, and for an answer the assignment of every nugget of
its topic. A nugget's importance is a "nugget_vote" judgment on the nugget (the kind QA's nuggets use, so the
shared JSON Lines export, import and official-value reading carry it)."""

KIND = "rag"
IMPORTANCE_KIND = "nugget_vote"

RELEVANCE_LABELS = ("0", "1", "2", "3")  # irrelevant, related, highly relevant, perfectly relevant
SUPPORT_LABELS = ("full_support", "partial_support", "no_support")
ANSWER_LABELS = ("assigned",)  # an answer's label: its nuggets are in the value's "nuggets" map
ALL_LABELS = RELEVANCE_LABELS + SUPPORT_LABELS + ANSWER_LABELS
ASSIGNMENTS = ("support", "partial_support", "not_support")  # nuggetizer's words
IMPORTANCE = ("vital", "okay")

TEXT = {
    "0": "irrelevant",
    "1": "related",
    "2": "highly relevant",
    "3": "perfectly relevant",
    "full_support": "full support",
    "partial_support": "partial support",
    "no_support": "no support",
    "assigned": "nuggets assigned",
    "support": "support",
    "not_support": "no support",
}

KIND_OF_KEY = {"r": "relevance", "p": "support", "a": "answer"}  # the pool keys' first letters (rag-contract)


def item_kind(key: str) -> str:
    """A pool item's kind from its key (the save path's one read has no data)."""
    return KIND_OF_KEY.get(key[:1], "")


def labels_for(kind: str) -> tuple[str, ...]:
    return {"relevance": RELEVANCE_LABELS, "support": SUPPORT_LABELS, "answer": ANSWER_LABELS}.get(kind, ())
