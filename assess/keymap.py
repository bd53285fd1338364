"""Every key of every judging page, declared once.

A key has one action wherever it works (`tests/test_keymap.py` checks it): `j`/`k` always move to the next/previous
thing of the page, so `n` can mean "no" everywhere; digits always choose the thing shown with that number (a
label, a translation grade, a nugget). The templates take their key hints and `data-key` attributes from here, the
`?` dialog and the key list beside the page are rendered from here, and the scripts act on the action names a page
declares (rendered as JSON into the page, see `for_script`), never on letters of their own.

A new judging page (BioGen, when it lands) adds its page id to PAGES and to the keys it uses; a key it needs for a
new action must be a key no other page uses.
"""
from dataclasses import dataclass

QA_SERIES = "qa-series"
QA_INSTANCES = "qa-instances"
QA_NUGGETS = "qa-nuggets"
QA_VOTES = "qa-votes"
BOLT_CITATIONS = "bolt-citations"
BOLT_FIND = "bolt-find"
BOLT_GROUPINGS = "bolt-groupings"
BOLT_QUEUE = "bolt-adjudication-queue"
BOLT_ADJUDICATION = "bolt-adjudication"

PAGES = {
    QA_SERIES: "a QA series",
    QA_INSTANCES: "QA instance judging and answer classes",
    QA_NUGGETS: "QA nuggets: build, vote, match",
    QA_VOTES: "QA vital/okay votes",
    BOLT_CITATIONS: "BOLT citation judging",
    BOLT_FIND: "BOLT: find a citation in a thread",
    BOLT_GROUPINGS: "BOLT grouping view",
    BOLT_QUEUE: "BOLT adjudication queue",
    BOLT_ADJUDICATION: "BOLT adjudication of one citation",
}

DIGITS = tuple("1234567890")
# A digit key that does not give a digit (Shift on most layouts): the answer class with that number. The script
# names such a press "Shift+<digit>" (static/js/keys.js), whatever the layout puts on the key.
SHIFT_DIGITS = tuple(f"Shift+{d}" for d in DIGITS)


@dataclass(frozen=True)
class Key:
    keys: tuple  # KeyboardEvent.key values (SHIFT_DIGITS as above)
    shown: str  # how the key list writes them
    action: str  # what the key does, the same on every page
    pages: dict  # page id -> what the action does there, in the page's words


KEYS = (
    Key(("?",), "?", "keys", {page: "show this list of keys (Escape closes it)" for page in PAGES}),
    Key(("j",), "j", "next", {
        QA_INSTANCES: "next item (at the end of a question: the next question)",
        QA_NUGGETS: "next answer string",
        QA_VOTES: "next nugget",
        BOLT_CITATIONS: "next citation",
        BOLT_GROUPINGS: "next question",
        BOLT_ADJUDICATION: "next disagreement"}),
    Key(("ArrowDown",), "↓", "next", {BOLT_GROUPINGS: "next question"}),
    Key(("k",), "k", "previous", {
        QA_INSTANCES: "previous item",
        QA_NUGGETS: "previous answer string",
        QA_VOTES: "previous nugget",
        BOLT_CITATIONS: "previous citation",
        BOLT_GROUPINGS: "previous question",
        BOLT_ADJUDICATION: "previous disagreement"}),
    Key(("ArrowUp",), "↑", "previous", {BOLT_GROUPINGS: "previous question"}),
    Key(("u",), "u", "unjudged", {
        QA_SERIES: "first question with items left to judge",
        QA_INSTANCES: "next unjudged item",
        QA_NUGGETS: "next answer string not matched yet",
        QA_VOTES: "next nugget without your vote",
        BOLT_CITATIONS: "next unjudged citation",
        BOLT_GROUPINGS: "next unanswered question",
        BOLT_QUEUE: "first open disagreement",
        BOLT_ADJUDICATION: "next open disagreement"}),
    Key(("h",), "h", "history", {QA_INSTANCES: "history of this item"}),
    Key(DIGITS, "1 2 3 …", "number", {
        QA_INSTANCES: "judgment: the label with that number (worst to best)",
        QA_NUGGETS: "the current answer string holds the nugget with that number (again: it does not); "
                    "from 10 nuggets on, type both digits",
        BOLT_CITATIONS: "translation: 1 acceptable, 2 problematic, 3 not acceptable",
        BOLT_ADJUDICATION: "translation: 1 acceptable, 2 problematic, 3 not acceptable"}),
    Key(("Enter",), "Enter", "number-done", {
        QA_INSTANCES: "end a class number at once instead of waiting for a second digit",
        QA_NUGGETS: "end a nugget number at once instead of waiting for a second digit"}),
    Key(SHIFT_DIGITS, "⇧1 ⇧2 …", "class", {
        QA_INSTANCES: "correct, in the answer class with that number (list questions; from 10 classes on, "
                      "type both digits)"}),
    Key(("=",), "=", "new-class", {
        QA_INSTANCES: "correct, in a new answer class named after this answer (list questions)"}),
    Key(("y",), "y", "yes", {
        BOLT_CITATIONS: "relevant: yes",
        BOLT_GROUPINGS: "answer yes (saved at once; moves on)",
        BOLT_ADJUDICATION: "decision: relevant, yes"}),
    Key(("m",), "m", "maybe", {
        BOLT_CITATIONS: "relevant: maybe",
        BOLT_ADJUDICATION: "decision: relevant, maybe"}),
    Key(("n",), "n", "no", {
        BOLT_CITATIONS: "relevant: no",
        BOLT_GROUPINGS: "answer no (saved at once; moves on)",
        BOLT_ADJUDICATION: "decision: relevant, no"}),
    Key(("c",), "c", "source-checked", {
        BOLT_CITATIONS: "source checked (on/off)",
        BOLT_ADJUDICATION: "source checked (on/off)"}),
    Key(("r",), "r", "mark-relevant", {BOLT_CITATIONS: "mark the selected passage text relevant (a relspan)"}),
    Key(("x",), "x", "remove-relspan", {BOLT_CITATIONS: "remove the last relspan"}),
    Key(("f",), "f", "add-found", {BOLT_FIND: "add the selected span of a post as a relevant citation"}),
    Key(("+",), "+", "nugget-from-selection", {QA_NUGGETS: "make the selected answer text a nugget"}),
    Key(("t",), "t", "type-nugget", {
        QA_NUGGETS: "type a new nugget (Enter adds it, Escape goes back to the keys)"}),
    Key(("J",), "J", "next-nugget", {QA_NUGGETS: "next nugget (the one v and o vote on)"}),
    Key(("K",), "K", "previous-nugget", {QA_NUGGETS: "previous nugget"}),
    Key(("v",), "v", "vital", {
        QA_NUGGETS: "vote the current nugget vital (moves on)",
        QA_VOTES: "vote the current nugget vital (moves on)"}),
    Key(("o",), "o", "okay", {
        QA_NUGGETS: "vote the current nugget okay (moves on)",
        QA_VOTES: "vote the current nugget okay (moves on)"}),
    Key(("p",), "p", "take-primary", {BOLT_ADJUDICATION: "take the primary's judgment as it is"}),
    Key(("s",), "s", "take-second", {BOLT_ADJUDICATION: "take the second's judgment as it is"}),
    Key(("w",), "w", "part-whole", {BOLT_ADJUDICATION: "relevant part: the whole passage"}),
    Key(("a",), "a", "part-primary", {BOLT_ADJUDICATION: "relevant part: as the primary marked it"}),
    Key(("b",), "b", "part-second", {BOLT_ADJUDICATION: "relevant part: as the second marked it"}),
    Key(("d",), "d", "decide", {BOLT_ADJUDICATION: "save the decision"}),
)

_BY_ACTION = {}
for _k in KEYS:
    _BY_ACTION.setdefault(_k.action, _k)


def key(action):
    """The key of an action, for a data-key attribute ("next" -> "j")."""
    return _BY_ACTION[action].keys[0]


def number(n):
    """The key that chooses the n-th (1-based) numbered choice: "1" … "9"; "" beyond (two digits are typed, not
    pressed on a button)."""
    return str(n) if 1 <= n <= 9 else ""


def for_page(page):
    """The key list of a page: [(shown, description)], in declaration order."""
    if page not in PAGES:
        raise KeyError(f"undeclared judging page {page!r}")
    return [(k.shown, k.pages[page]) for k in KEYS if page in k.pages]


def for_script(page):
    """{key: action} of a page, for static/js/keys.js: the scripts act only on what the page declares."""
    return {name: k.action for k in KEYS if page in k.pages for name in k.keys}
