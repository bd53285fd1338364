"""Server-side highlighting: answer strings (case and white space ignored, across tag boundaries) and, for forum
posts, character spans of the raw XML. Marks are <mark class="hl">; the first piece of each match is numbered
id="mark-N" in document order, so a frame URL ending in #mark-1 scrolls to the first without any script.

Strings are matched by one regular expression run over the HTML itself: between two characters of the string it
lets white space, &nbsp; and tags pass, and each of & < > may appear as its entity (the only ones the renderers
write in text). The scan is C-speed; Python only looks at the tags of pages where a match was found, to keep
matches out of attribute values and raw-text elements and to cut each match into marks that never cross a tag.
"""

import bisect
import re

_TAG = r"<(?:[^>\"']|\"[^\"]*\"|'[^']*')*>"
_GAP = rf"(?:\s|&nbsp;|{_TAG})*"
_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\u00a0": "&nbsp;", '"': "&quot;"}
# Everything that is not text: raw-text elements whole, comments, tags (whose quoted values may hold ">").
_NOT_TEXT = re.compile(
    r"<(style|script|title|textarea)\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>.*?</\1\s*>"
    rf"|<!--.*?-->|{_TAG}",
    re.S | re.I,
)
_LEADING = re.compile(r"^(?:\s|&nbsp;)+")
_TRAILING = re.compile(r"(?:\s|&nbsp;)+$")
OPEN = '<mark class="hl">'
OPEN_START = '<mark class="hl start">'
CLOSE = "</mark>"
_NUMBER = re.compile(r'<mark class="(hl|span) start">')
MAX_NEEDLE = 2000  # characters; an answer string longer than this is cut (the regex grows with it)


def _char(c):
    alt = _ENTITY.get(c)
    return f"(?:{re.escape(c)}|{alt})" if alt else re.escape(c)


def needle_pattern(s):
    """Regex source matching `s` in HTML text, ignoring white space and tags between its characters."""
    chars = "".join(s.split())[:MAX_NEEDLE]
    return _GAP.join(_char(c) for c in chars)


class _NonText:
    """Sorted spans of tags, comments and raw-text elements of a document, built on first need."""

    def __init__(self, doc):
        self.starts, self.ends, self.raw = [], [], []
        for m in _NOT_TEXT.finditer(doc):
            self.starts.append(m.start())
            self.ends.append(m.end())
            self.raw.append(m.group(1) is not None or m.group().startswith("<!--"))

    def inside(self, pos):
        """Is `pos` strictly inside a non-text span (so text cannot begin or end there)?"""
        i = bisect.bisect_right(self.starts, pos) - 1
        return i >= 0 and self.starts[i] < pos < self.ends[i]

    def between(self, a, b):
        i = bisect.bisect_left(self.starts, a)
        j = bisect.bisect_left(self.starts, b)
        return range(i, j)


def find_matches(doc, strings):
    """Non-overlapping matches of `strings` in the text of `doc`: a list of lists of HTML ranges to mark."""
    patterns = [p for p in (needle_pattern(s) for s in strings if s) if p]
    if not patterns:
        return []
    regex = re.compile("|".join(f"(?:{p})" for p in patterns), re.I)
    nontext = None
    out = []
    for m in regex.finditer(doc):
        a, b = m.span()
        if nontext is None:
            nontext = _NonText(doc)
        if nontext.inside(a) or nontext.inside(b - 1):
            continue
        spans = nontext.between(a, b)
        if any(nontext.raw[k] for k in spans):
            continue
        ranges, pos = [], a
        for k in list(spans) + [None]:
            stop = b if k is None else nontext.starts[k]
            piece = doc[pos:stop]
            lead = _LEADING.match(piece)
            trail = _TRAILING.search(piece)
            s = pos + (lead.end() if lead else 0)
            e = stop - (len(trail.group()) if trail else 0)
            if e > s:
                ranges.append((s, e))
            if k is not None:
                pos = nontext.ends[k]
        if ranges:
            out.append(ranges)
    return out


def highlight_strings(doc, strings):
    """`doc` (safe HTML) with every match of `strings` wrapped in marks; returns (html, number of matches)."""
    matches = find_matches(doc, strings)
    if not matches:
        return doc, 0
    parts, pos = [], 0
    for ranges in matches:
        for k, (a, b) in enumerate(ranges):
            parts.append(doc[pos:a])
            parts.append(OPEN_START if k == 0 else OPEN)
            parts.append(doc[a:b])
            parts.append(CLOSE)
            pos = b
    parts.append(doc[pos:])
    return "".join(parts), len(matches)


def number_marks(doc):
    """Give each match's first mark id="mark-N" in document order; returns (html, count)."""
    count = 0

    def number(m):
        nonlocal count
        count += 1
        return f'<mark class="{m.group(1)} start" id="mark-{count}">'

    return _NUMBER.sub(number, doc), count
