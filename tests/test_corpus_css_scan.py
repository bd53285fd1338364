"""corpus.css's scan for what could fetch and its quick check (issue 32: the viewer's time on style sheets) find
exactly what the patterns without the lookahead found: on the hostile vectors and on random CSS made of the letters
that start a match in every case, the characters that fold to them (long s, Kelvin sign, dotted capital I) and CSS
punctuation."""

import random
import re
from pathlib import Path

from corpus import css

# The pattern before issue 32, the reference.
BEFORE = re.compile(
    r"""(?:url|image-set|-webkit-image-set|image|cross-fade|element|src|expression)\s*\((?:[^()]|\([^()]*\))*\)?"""
    r"""|@import[^;]*;?|@namespace[^;]*;?|@font-face\s*\{[^}]*\}?|behaviou?r\s*:[^;}]*|-moz-binding\s*:[^;}]*""",
    re.I | re.S,
)
DANGER_BEFORE = re.compile(r"url|image|import|expression|binding|behavio|src|element|\\|/\*", re.I)
HOSTILE = Path(__file__).resolve().parent / "fixtures" / "corpus" / "hostile"
WORDS = ["url", "URL", "uRl", "image-set", "-webkit-image-set", "IMAGE", "cross-fade", "element", "src", "sRc",
         "expression", "@import", "@IMPORT", "@namespace", "@font-face", "behavior", "behaviour", "-moz-binding",
         "\u017frc", "ur\u212a", "\u0130mage", "color", "x", " ", "\t", "\n", "(", ")", "{", "}", ";", ":", "'", '"',
         "/*", "*/", "\\", "-", "@", "é", "背景"]  # fmt: skip


def _texts():
    texts = [line for path in sorted(HOSTILE.glob("*.txt")) for line in path.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(32)
    return texts + ["".join(rng.choices(WORDS, k=rng.randint(1, 40))) for _ in range(5000)]


def test_the_lookahead_scan_matches_what_the_full_pattern_matched():
    texts = _texts()
    found = 0
    for text in texts:
        assert [m.span() for m in css._FETCHING.finditer(text)] == [m.span() for m in BEFORE.finditer(text)], text
        found += BEFORE.search(text) is not None
    assert found > 1000  # the random texts do hit the pattern


def test_the_quick_check_with_a_lookahead_matches_what_it_matched_before():
    """css._DANGER (is this CSS, or this style attribute's value, worth cleaning at all) got the same lookahead."""
    found = 0
    for text in _texts():
        assert [m.span() for m in css._DANGER.finditer(text)] == [m.span() for m in DANGER_BEFORE.finditer(text)], text
        found += DANGER_BEFORE.search(text) is not None
    assert found > 1000
