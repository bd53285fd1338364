"""The key map of the judging pages: the keys every page shares, and the registry each track declares its pages in.

A key has one action wherever it works: `j`/`k` always move to the next/previous thing of the page, so `n` can
mean "no" everywhere; digits always choose the thing shown with that number (a label, a translation grade, a
nugget). Registration enforces it: a page whose key would do a different action than the same key already does
elsewhere is refused (KeyClash). The templates take their key hints and `data-key` attributes from here, the `?`
dialog and the key list beside the page are rendered from here, and the scripts act on the action names a page
declares (rendered as JSON into the page, see `for_script`), never on letters of their own.

A track declares its pages in its own module (tracks/<name>/keys.py) and holds them as data (Track.pages); the
map is built from the registered tracks' pages when first used, and again when they change. A key a track needs
for a new action must be a key no page uses yet: a clash raises KeyClash on the first page rendered (and in
tests/test_keymap.py, which builds the map of every registered track).
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from core.tracks import TRACKS

DIGITS = tuple("1234567890")
# A digit key that does not give a digit (Shift on most layouts). The script names such a press "Shift+<digit>"
# (static/js/keys.js), whatever the layout puts on the key.
SHIFT_DIGITS = tuple(f"Shift+{d}" for d in DIGITS)


@dataclass(frozen=True)
class Key:
    keys: tuple[str, ...]  # KeyboardEvent.key values (SHIFT_DIGITS as above)
    shown: str  # how the key list writes them
    action: str  # what the key does, the same on every page


@dataclass(frozen=True)
class Page:
    ident: str  # the page's data-page, and what its template passes to {% key_list %}
    title: str
    keys: Sequence[tuple[Key, str]]  # (key, what its action does here, in the page's words), in list order
    auto_advance: bool = False  # offers "move on after each judgment" beside its key list


class KeyClash(ValueError):
    """A key declared with a second action: it would do different things on different pages."""


# The actions every page may share; a page lists those it uses, with its own words for them.
HELP = Key(("?",), "?", "keys")  # on every page, first (for_page adds it)
HELP_TEXT = "show this list of keys (Escape closes it)"
NEXT = Key(("j",), "j", "next")
NEXT_ARROW = Key(("ArrowDown",), "↓", "next")
PREVIOUS = Key(("k",), "k", "previous")
PREVIOUS_ARROW = Key(("ArrowUp",), "↑", "previous")
UNJUDGED = Key(("u",), "u", "unjudged")
NUMBER = Key(DIGITS, "1 2 3 …", "number")
NUMBER_DONE = Key(("Enter",), "Enter", "number-done")  # ends a number before its second digit would
SEARCH = Key(("/",), "/", "search")  # opens the search panel (assess/search_panel.py) on the pages that include it
# adjudication, every track: take one of the two assessors' judgments as the decision
TAKE_PRIMARY = Key(("p",), "p", "take-primary")
TAKE_SECOND = Key(("s",), "s", "take-second")
# assisted judging (assess/assist.py): take the machine suggestion shown beside the item, on the pages that show one
ACCEPT_SUGGESTION = Key(("g",), "g", "accept-suggestion")

SHARED = (
    HELP,
    NEXT,
    NEXT_ARROW,
    PREVIOUS,
    PREVIOUS_ARROW,
    UNJUDGED,
    NUMBER,
    NUMBER_DONE,
    SEARCH,
    TAKE_PRIMARY,
    TAKE_SECOND,
    ACCEPT_SUGGESTION,
)


@dataclass(frozen=True)
class KeyMap:
    pages: dict[str, Page]  # page id -> page, in the tracks' order
    bound: dict[str, tuple[str, str]]  # key name -> (its one action, the page or module that declared it first)
    key_of: dict[str, Key]  # action -> its first declared key (the one hints show)


def _check(key: Key, by: str, pending: dict[str, tuple[str, str]], bound: dict[str, tuple[str, str]]) -> None:
    """Raise KeyClash if a name of `key` does another action, bound already or `pending` (name -> (action,
    declared by)) in the same registration; else add its names to `pending`."""
    for name in key.keys:
        action, first = bound.get(name) or pending.get(name) or (key.action, by)
        if action != key.action:
            raise KeyClash(
                f"{by}: key {name!r} cannot be {key.action!r}, it is {action!r} already "
                f"(declared by {first}); a key has one action on every page"
            )
        pending.setdefault(name, (key.action, by))


def _bind(keymap: KeyMap, keys: Sequence[Key], by: str) -> None:
    """Bind the keys to their actions, all of them or none: all are checked first."""
    pending: dict[str, tuple[str, str]] = {}
    for k in keys:
        _check(k, by, pending, keymap.bound)
    for name, bound in pending.items():
        keymap.bound.setdefault(name, bound)
    for k in keys:
        keymap.key_of.setdefault(k.action, k)


def build(pages: Iterable[Page]) -> KeyMap:
    """The key map of the shared keys and `pages`. Raises KeyClash if a key of a page does another action
    elsewhere or on the page, ValueError if a key has no description."""
    keymap = KeyMap({}, {}, {})
    _bind(keymap, SHARED, __name__)
    for page in pages:
        for k, text in page.keys:
            if not text.strip():
                raise ValueError(f"page {page.ident!r}: key {k.shown!r} has no description")
        _bind(keymap, [k for k, _ in page.keys], f"page {page.ident!r}")
        keymap.pages[page.ident] = page
    return keymap


_built = cache(build)


_last: tuple[list, KeyMap | None] = ([], None)  # (the registered tracks it was built for, the map)


def current() -> KeyMap:
    """The map of every registered track's pages (a page several tracks hold, QA's, counts once). Kept while the
    same Track objects are registered (they are frozen): hashing every page to find the cached map cost a list
    question's save ~0.1 ms for its two key hints (issue 32)."""
    global _last
    tracks = list(TRACKS.values())
    seen, built = _last
    if built is not None and len(seen) == len(tracks) and all(a is b for a, b in zip(seen, tracks)):
        return built
    built = _built(tuple(dict.fromkeys(page for track in tracks for page in track.pages)))
    _last = (tracks, built)
    return built


def pages() -> dict[str, Page]:
    return current().pages


def get_page(ident: str) -> Page:
    found = pages()
    try:
        return found[ident]
    except KeyError:
        raise KeyError(f"undeclared judging page {ident!r}; declared: {', '.join(found)}") from None


def action_of(name: str) -> str | None:
    """What a key does (None: no page uses it)."""
    bound = current().bound.get(name)
    return bound[0] if bound else None


def key(action: str) -> str:
    """The key of an action, for a data-key attribute ("next" -> "j")."""
    try:
        return current().key_of[action].keys[0]
    except KeyError:
        raise KeyError(f"no key does {action!r}; is the app of the page that declares it installed?") from None


def number(n: int) -> str:
    """The key that chooses the n-th (1-based) numbered choice: "1" … "9"; "" beyond (two digits are typed, not
    pressed on a button)."""
    return str(n) if 1 <= n <= 9 else ""


def for_page(page: str) -> list[tuple[str, str]]:
    """The key list of a page: [(shown, description)], `?` first, then in the page's order."""
    return [(HELP.shown, HELP_TEXT)] + [(k.shown, text) for k, text in get_page(page).keys]


def for_script(page: str) -> dict[str, str]:
    """{key: action} of a page, for static/js/keys.js: the scripts act only on what the page declares."""
    return {name: k.action for k in (HELP, *(k for k, _ in get_page(page).keys)) for name in k.keys}
