"""BOLT's judging pages and their keys (registered with assess.keymap from BoltConfig.ready()). Page ids are what
the templates pass to {% key_list %}."""

from assess.keymap import (
    ACCEPT_SUGGESTION,
    NEXT,
    NEXT_ARROW,
    NUMBER,
    PREVIOUS,
    PREVIOUS_ARROW,
    SEARCH,
    TAKE_PRIMARY,
    TAKE_SECOND,
    UNJUDGED,
    Key,
    Page,
)

YES = Key(("y",), "y", "yes")
MAYBE = Key(("m",), "m", "maybe")
NO = Key(("n",), "n", "no")
SOURCE_CHECKED = Key(("c",), "c", "source-checked")
MARK_RELEVANT = Key(("r",), "r", "mark-relevant")
REMOVE_RELSPAN = Key(("x",), "x", "remove-relspan")
ADD_FOUND = Key(("f",), "f", "add-found")
PART_WHOLE = Key(("w",), "w", "part-whole")
PART_PRIMARY = Key(("a",), "a", "part-primary")
PART_SECOND = Key(("b",), "b", "part-second")
DECIDE = Key(("d",), "d", "decide")

TRANSLATION = "translation: 1 acceptable, 2 problematic, 3 not acceptable"

CITATIONS = Page(
    "bolt-citations",
    "BOLT citation judging",
    (
        (NEXT, "next citation"),
        (PREVIOUS, "previous citation"),
        (UNJUDGED, "next unjudged citation"),
        (NUMBER, TRANSLATION),
        (YES, "relevant: yes"),
        (MAYBE, "relevant: maybe"),
        (NO, "relevant: no"),
        (SOURCE_CHECKED, "source checked (on/off)"),
        (MARK_RELEVANT, "mark the selected passage text relevant (a relspan)"),
        (REMOVE_RELSPAN, "remove the last relspan"),
        (SEARCH, "search the collection (Escape closes the search)"),
        (ADD_FOUND, "in a thread opened from the search: add the selected span of a post as a relevant citation"),
        (ACCEPT_SUGGESTION, "accept the machine suggestion shown beside the item (assisted judging)"),
    ),
)

TOPIC = Page("bolt-topic", "a BOLT topic and its citations", ((UNJUDGED, "first unjudged citation"),))

FIND = Page(
    "bolt-find",
    "BOLT: find a citation in a thread",
    ((ADD_FOUND, "add the selected span of a post as a relevant citation"),),
)

GROUPINGS = Page(
    "bolt-groupings",
    "BOLT grouping view",
    (
        (NEXT, "next question"),
        (NEXT_ARROW, "next question"),
        (PREVIOUS, "previous question"),
        (PREVIOUS_ARROW, "previous question"),
        (UNJUDGED, "next unanswered question"),
        (YES, "answer yes (saved at once; moves on)"),
        (NO, "answer no (saved at once; moves on)"),
    ),
)

QUEUE = Page("bolt-adjudication-queue", "BOLT adjudication queue", ((UNJUDGED, "first open disagreement"),))

ADJUDICATION = Page(
    "bolt-adjudication",
    "BOLT adjudication of one citation",
    (
        (NEXT, "next disagreement"),
        (PREVIOUS, "previous disagreement"),
        (UNJUDGED, "next open disagreement"),
        (NUMBER, TRANSLATION),
        (YES, "decision: relevant, yes"),
        (MAYBE, "decision: relevant, maybe"),
        (NO, "decision: relevant, no"),
        (SOURCE_CHECKED, "source checked (on/off)"),
        (TAKE_PRIMARY, "take the primary's judgment as it is"),
        (TAKE_SECOND, "take the second's judgment as it is"),
        (PART_WHOLE, "relevant part: the whole passage"),
        (PART_PRIMARY, "relevant part: as the primary marked it"),
        (PART_SECOND, "relevant part: as the second marked it"),
        (DECIDE, "save the decision"),
    ),
)

PAGES = (TOPIC, CITATIONS, FIND, GROUPINGS, QUEUE, ADJUDICATION)
