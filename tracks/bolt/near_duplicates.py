"""Near-duplicate citations (seed 004; SPEC-NOTES, BOLT). Pure: no Django import.

Two passages are near-duplicates when at least 95 % of the distinct word bigrams of the shorter (the one with
fewer bigrams) are among the other's. Words are runs of letters and digits, compared case-insensitively. A
passage of fewer than two words has no bigram; it is a near-duplicate only of a passage with the same words.

Classes within one ranked list (one run's citations for one topic) are built by walking the list from the top:
a citation joins the class of the first, highest-ranked, class leader it is a near-duplicate of, or else leads
a class of its own. Comparing with leaders only (not chaining through members) keeps every member within 95 %
of the citation whose judgment it takes, which a transitive closure would not.
"""

import re
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from difflib import SequenceMatcher
from itertools import islice
from typing import Any

from tracks.bolt.measures import merge_spans

WORD = re.compile(r"\w+")
THRESHOLD_PERCENT = 95
MIN_ALIGNED = 5  # carry_relspans: the shortest run of equal characters that counts as the same text
# shared_features: how many distinct passages one batch remembers (about 300 bytes each, the passage aside).
SHARED_MAX = 100_000

_shared: ContextVar[dict[str, array] | None] = ContextVar("near_duplicate_features", default=None)


def bigrams(passage: str) -> frozenset[tuple[str, ...]]:
    """The distinct word bigrams of a passage, or for a passage of under two words its word tuple (so that it
    matches only the same words)."""
    words = WORD.findall(passage.lower())
    if len(words) < 2:
        return frozenset({("\x00",) + tuple(words)})
    return frozenset(zip(words, words[1:]))


def features(passage: str) -> frozenset[int]:
    """`bigrams` as their hashes: the same sets to count and intersect, a third faster to build over the 300,000
    citations of a pool (no tuple is kept). Two different bigrams of one passage pair sharing a 64-bit hash is
    the only way the answer could differ; the chance is negligible next to the 5 % the threshold allows."""
    words = WORD.findall(passage.lower())
    if len(words) < 2:
        return frozenset({hash(("\x00",) + tuple(words))})
    return frozenset(map(hash, zip(words, words[1:])))


@contextmanager
def shared_features() -> Iterator[None]:
    """Within the block, `leaders` computes each distinct passage's features once. The runs of one upload batch
    repeat each other's passages (the pools of benchmarks/bolt.py: each citation in 7 runs on average), and
    features are most of the time near-duplicate detection takes. Kept as packed arrays (a tenth of a
    frozenset's memory), which `leaders` intersects as they are."""
    token = _shared.set({})
    try:
        yield
    finally:
        _shared.reset(token)


def near_duplicates(a: str | frozenset[int], b: str | frozenset[int], threshold: int = THRESHOLD_PERCENT) -> bool:
    """Whether two passages (or their `features`) are near-duplicates."""
    fa = a if isinstance(a, frozenset) else features(a)
    fb = b if isinstance(b, frozenset) else features(b)
    shorter, other = (fa, fb) if len(fa) <= len(fb) else (fb, fa)
    return 100 * len(shorter & other) >= threshold * len(shorter)


def leaders(passages: Iterable[str], threshold: int = THRESHOLD_PERCENT) -> list[int]:
    """For passages in rank order, the index of each one's class leader (itself for a leader).

    The bigrams of all leaders so far are kept in one set: a passage sharing too few bigrams with that union to
    reach the threshold against even the smallest leader cannot match any, and becomes a leader as soon as that
    many of its bigrams are found missing. Otherwise the leaders are tried in rank order."""
    result = []
    # (index, features, their number) in rank order; features as a frozenset, or as the array of distinct hashes
    # that shared_features keeps (counted and intersected as it is: a set is built only when one is compared).
    found_leaders: list[tuple[int, frozenset[int] | array, int]] = []
    union: set[int] = set()
    smallest: Any = None  # the fewest features of a leader (Any: an int wherever found_leaders is not empty)
    shared = _shared.get()
    for i, passage in enumerate(passages):
        f: frozenset[int] | array
        if shared is None:
            f = features(passage)
        elif (packed := shared.get(passage)) is not None:
            f = packed
        else:
            f = features(passage)
            if len(shared) < SHARED_MAX:
                shared[passage] = array("q", list(f))  # (from a list: a third faster than from the set)
        n = len(f)
        found = None
        if found_leaders:
            need = -(-threshold * min(n, smallest) // 100)  # ceil without floats
            # Counted until more features are missing from the union than the threshold allows: a passage that
            # is no near-duplicate (almost all) is known to be a leader after two or three of its features.
            allowed, missing = n - need, 0
            for h in f:
                if h not in union:
                    missing += 1
                    if missing > allowed:
                        break
            if missing <= allowed:
                fs = f if isinstance(f, frozenset) else frozenset(f)
                for leader, lf, ln in found_leaders:
                    # A leader may miss `slack` of its features from the passage and still match, so one whose
                    # first slack + 1 all miss cannot: most leaders a passage is tried against are passed over
                    # after two or three lookups instead of a whole intersection.
                    wanted = threshold * min(n, ln)
                    slack = ln - -(-wanted // 100)
                    if slack < 0 or (slack < ln and fs.isdisjoint(islice(lf, slack + 1))):
                        continue
                    if 100 * len(fs.intersection(lf)) >= wanted:
                        found = leader
                        break
        if found is None:
            found_leaders.append((i, f, n))
            union.update(f)
            smallest = n if smallest is None else min(smallest, n)
            result.append(i)
        else:
            result.append(found)
    return result


def carry_relspans(leader: str, passage: str, relspans: Iterable[Sequence[int]]) -> list[list[int]]:
    """The leader's relevant spans ([start, length] in `leader`) as spans of its near-duplicate `passage`.

    A near-duplicate takes its leader's judgment, relevant parts included (SPEC-NOTES), but its text differs a
    little (a quote inside a longer post, a word changed), so positions are carried by aligning the two passages
    character by character (difflib, no junk heuristic, only runs of at least MIN_ALIGNED equal characters):
    each relevant part of the leader becomes the stretch of `passage` from the first to the last of its
    characters found there. A part none of whose characters are in `passage` is dropped. No spans in (the
    whole leader relevant) gives none out (the whole passage relevant)."""
    to_passage: list[int | None] = [None] * len(leader)
    for a, b, size in SequenceMatcher(None, leader, passage, autojunk=False).get_matching_blocks():
        if size < MIN_ALIGNED:
            continue  # a letter or two in common is chance, not the same text
        for i in range(size):
            to_passage[a + i] = b + i
    carried = []
    for start, end in merge_spans(relspans, len(leader)):
        found = [p for p in to_passage[start:end] if p is not None]
        if found:
            carried.append([found[0], found[-1] - found[0] + 1])
    return [[s, e - s] for s, e in merge_spans(carried, len(passage))]


def leader_judgment(leader: str, passage: str, judgment: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The judgment a near-duplicate takes from its class leader: the leader's, with relspans carried over to
    the near-duplicate's text. When the leader's relevant parts are marked and none of them is in the
    near-duplicate, nothing of it is relevant: rel "no"."""
    if not judgment:
        return None
    taken = dict(judgment)
    marked = judgment.get("relspans") or []
    if judgment.get("rel") in ("yes", "maybe") and marked:
        taken["relspans"] = carry_relspans(leader, passage, marked)
        if not taken["relspans"]:
            taken.update(rel="no", trans="na")
    else:
        taken["relspans"] = []
    return taken
