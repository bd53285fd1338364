"""The plug-in test track's one measure (pure)."""

from collections.abc import Iterable

from scoring.measures.definition import Measure


def lines(entries: Iterable[object]) -> int:
    return sum(1 for _ in entries)


LINES = Measure("lines", "Lines", "How many answers the run returned.", "test: 'a trivial measure'", lines)
MEASURES = (LINES,)
