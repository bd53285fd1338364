"""TREC RAG's judging pages and their keys (registered with assess.keymap through the Track's pages)."""

from assess.keymap import (
    ACCEPT_SUGGESTION,
    NEXT,
    NEXT_ARROW,
    NUMBER,
    PREVIOUS,
    PREVIOUS_ARROW,
    TAKE_PRIMARY,
    TAKE_SECOND,
    UNJUDGED,
    Key,
    Page,
)

NEXT_BATCH = Key(("]",), "]", "next-batch")
PREVIOUS_BATCH = Key(("[",), "[", "previous-batch")
VITAL = Key(("v",), "v", "vital")
OKAY = Key(("o",), "o", "okay")
ACCEPT = Key(("y",), "y", "yes")  # the shared yes/no keys: accept or reject a suggestion
REJECT = Key(("n",), "n", "no")
NEW_NUGGET = Key(("t",), "t", "type-nugget")  # as on QA's nugget pages

TOPIC = Page("rag-topic", "a RAG topic: its relevance, support and nugget work", ((UNJUDGED, "first unjudged batch"),))

SUPPORT = Page(
    "rag-support",
    "RAG support, batched by segment: every sentence citing one segment",
    (
        (NEXT, "next sentence"),
        (NEXT_ARROW, "next sentence"),
        (PREVIOUS, "previous sentence"),
        (PREVIOUS_ARROW, "previous sentence"),
        (NUMBER, "the sentence: 1 full support, 2 partial support, 3 no support (then the next sentence)"),
        (NEXT_BATCH, "next segment"),
        (PREVIOUS_BATCH, "previous segment"),
        (UNJUDGED, "next segment with unjudged sentences"),
        (ACCEPT_SUGGESTION, "accept the machine suggestion shown beside the current sentence (assisted judging)"),
    ),
)

RELEVANCE = Page(
    "rag-relevance",
    "RAG relevance of the cited segments, one at a time",
    (
        (NEXT, "next segment"),
        (NEXT_ARROW, "next segment"),
        (PREVIOUS, "previous segment"),
        (PREVIOUS_ARROW, "previous segment"),
        (NUMBER, "grade: 1 irrelevant (0), 2 related (1), 3 highly relevant (2), 4 perfectly relevant (3)"),
        (UNJUDGED, "next unjudged segment"),
        (ACCEPT_SUGGESTION, "accept the machine suggestion shown beside the segment (assisted judging)"),
    ),
)

NUGGETS = Page(
    "rag-nuggets",
    "RAG nuggets of a topic: create, and take or reject the suggestions",
    (
        (NEXT, "next suggestion"),
        (PREVIOUS, "previous suggestion"),
        (ACCEPT, "accept the suggestion (as edited)"),
        (REJECT, "reject the suggestion"),
        (VITAL, "the suggestion or new nugget is vital"),
        (OKAY, "the suggestion or new nugget is okay"),
        (NEW_NUGGET, "type a new nugget (Enter saves it)"),
    ),
)

ASSIGN = Page(
    "rag-assign",
    "RAG nugget assignment of one answer",
    (
        (NEXT, "next nugget"),
        (NEXT_ARROW, "next nugget"),
        (PREVIOUS, "previous nugget"),
        (PREVIOUS_ARROW, "previous nugget"),
        (NUMBER, "the nugget: 1 support, 2 partial support, 3 no support (then the next nugget)"),
        (NEXT_BATCH, "next answer"),
        (PREVIOUS_BATCH, "previous answer"),
        (UNJUDGED, "next answer not fully assigned"),
        (ACCEPT_SUGGESTION, "accept the machine suggestion's assignment of the nuggets (assisted judging)"),
    ),
)

QUEUE = Page("rag-adjudication-queue", "RAG adjudication queue", ((UNJUDGED, "first open disagreement"),))

ADJUDICATION = Page(
    "rag-adjudication",
    "RAG adjudication of one item",
    (
        (NEXT, "next disagreement"),
        (PREVIOUS, "previous disagreement"),
        (UNJUDGED, "next open disagreement"),
        (NUMBER, "decision: the label with that number"),
        (TAKE_PRIMARY, "take the primary's judgment"),
        (TAKE_SECOND, "take the second's judgment"),
    ),
)

PAGES = (TOPIC, SUPPORT, RELEVANCE, NUGGETS, ASSIGN, QUEUE, ADJUDICATION)
