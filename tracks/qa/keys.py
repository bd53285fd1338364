"""QA's judging pages and their keys (registered with assess.keymap from QaConfig.ready()). Page ids are what the
templates pass to {% key_list %}."""

from assess.keymap import (
    ACCEPT_SUGGESTION,
    NEXT,
    NUMBER,
    NUMBER_DONE,
    PREVIOUS,
    SEARCH,
    SHIFT_DIGITS,
    TAKE_PRIMARY,
    TAKE_SECOND,
    UNJUDGED,
    Key,
    Page,
)

HISTORY = Key(("h",), "h", "history")
CLASS = Key(SHIFT_DIGITS, "⇧1 ⇧2 …", "class")
NEW_CLASS = Key(("=",), "=", "new-class")
NUGGET_FROM_SELECTION = Key(("+",), "+", "nugget-from-selection")
TYPE_NUGGET = Key(("t",), "t", "type-nugget")
NEXT_NUGGET = Key(("J",), "J", "next-nugget")
ACCEPT_PROPOSAL = Key(("y",), "y", "yes")  # the shared yes/no keys: the first of a model server's proposed nuggets
REJECT_PROPOSAL = Key(("n",), "n", "no")
PREVIOUS_NUGGET = Key(("K",), "K", "previous-nugget")
VITAL = Key(("v",), "v", "vital")
OKAY = Key(("o",), "o", "okay")

SERIES = Page("qa-series", "a QA series", ((UNJUDGED, "first question with items left to judge"),))

INSTANCES = Page(
    "qa-instances",
    "QA instance judging and answer classes",
    (
        (NEXT, "next item (at the end of a question: the next question)"),
        (PREVIOUS, "previous item"),
        (UNJUDGED, "next unjudged item"),
        (HISTORY, "history of this item"),
        (NUMBER, "judgment: the label with that number (worst to best)"),
        (NUMBER_DONE, "end a class number at once instead of waiting for a second digit"),
        (CLASS, "correct, in the answer class with that number (list questions; from 10 classes on, type both digits)"),
        (NEW_CLASS, "correct, in a new answer class named after this answer (list questions)"),
        (SEARCH, "search the collection (an answer found there is added as correct); Escape closes the search"),
        (ACCEPT_SUGGESTION, "accept the machine suggestion shown beside the item (assisted judging)"),
    ),
    auto_advance=True,
)

NUGGETS = Page(
    "qa-nuggets",
    "QA nuggets: build, vote, match",
    (
        (NEXT, "next answer string"),
        (PREVIOUS, "previous answer string"),
        (UNJUDGED, "next answer string not matched yet"),
        (
            NUMBER,
            "the current answer string holds the nugget with that number (again: it does not); "
            "from 10 nuggets on, type both digits",
        ),
        (NUMBER_DONE, "end a nugget number at once instead of waiting for a second digit"),
        (NUGGET_FROM_SELECTION, "make the selected words of an answer string a nugget (its docid left out)"),
        (TYPE_NUGGET, "type a new nugget (Enter adds it and goes back to the keys, so does Escape without adding)"),
        (NEXT_NUGGET, "next nugget (the one v and o vote on)"),
        (PREVIOUS_NUGGET, "previous nugget"),
        (VITAL, "vote the current nugget vital (moves on)"),
        (OKAY, "vote the current nugget okay (moves on)"),
        (ACCEPT_SUGGESTION, "the current answer string holds the nuggets the machine suggests (assisted judging)"),
        (ACCEPT_PROPOSAL, "accept the first nugget a model server proposes, as edited in its box (assisted judging)"),
        (REJECT_PROPOSAL, "reject the first nugget a model server proposes"),
    ),
)

VOTES = Page(
    "qa-votes",
    "QA vital/okay votes",
    (
        (NEXT, "next nugget"),
        (PREVIOUS, "previous nugget"),
        (UNJUDGED, "next nugget without your vote"),
        (VITAL, "vote the current nugget vital (moves on)"),
        (OKAY, "vote the current nugget okay (moves on)"),
    ),
)

ADJUDICATION = Page(
    "qa-adjudication",
    "QA adjudication of instance labels",
    (
        (NEXT, "next disagreement"),
        (PREVIOUS, "previous disagreement"),
        (UNJUDGED, "next open disagreement"),
        (TAKE_PRIMARY, "decide: the primary's label (and class)"),
        (TAKE_SECOND, "decide: the second's label"),
        (NUMBER, "decide: the label with that number (worst to best)"),
    ),
)

PAGES = (SERIES, INSTANCES, NUGGETS, VOTES, ADJUDICATION)
