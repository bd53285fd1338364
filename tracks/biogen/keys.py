"""BioGen's judging pages and their keys (registered with assess.keymap from BiogenConfig.ready())."""

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

YES = Key(("y",), "y", "yes")
NO = Key(("n",), "n", "no")
EVIDENCE = Key(("e",), "e", "evidence")

TOPIC = Page("biogen-topic", "a BioGen topic and its items", ((UNJUDGED, "first unjudged item"),))

ITEM = Page(
    "biogen-item",
    "BioGen judging: an answer, a sentence or a citation",
    (
        (NEXT, "next item"),
        (NEXT_ARROW, "next item"),
        (PREVIOUS, "previous item"),
        (PREVIOUS_ARROW, "previous item"),
        (UNJUDGED, "next unjudged item"),
        (YES, "answer: accurate"),
        (NO, "answer: not accurate"),
        (
            NUMBER,
            "sentence: 1 required, 2 unnecessary, 3 borderline, 4 inappropriate; citation: 1 supports, "
            "2 contradicts, 3 neutral, 4 not relevant (5 partially supports, 2025 Task A)",
        ),
        (EVIDENCE, "citation: type or paste the supporting words of the abstract (Enter marks them)"),
        (ACCEPT_SUGGESTION, "accept the machine suggestion shown beside the item (assisted judging)"),
    ),
)

ADJUDICATION = Page(
    "biogen-adjudication",
    "BioGen adjudication of one item",
    (
        (NEXT, "next disagreement"),
        (PREVIOUS, "previous disagreement"),
        (UNJUDGED, "next open disagreement"),
        (YES, "decision: accurate"),
        (NO, "decision: not accurate"),
        (NUMBER, "decision: the label with that number"),
        (TAKE_PRIMARY, "take the primary's judgment"),
        (TAKE_SECOND, "take the second's judgment"),
    ),
)

QUEUE = Page("biogen-adjudication-queue", "BioGen adjudication queue", ((UNJUDGED, "first open disagreement"),))

PAGES = (TOPIC, ITEM, QUEUE, ADJUDICATION)
