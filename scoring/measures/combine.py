"""Per-series combined scores and run scores (TREC 2007: 1/3 each; TAC 2008: 1/2 rigid + 1/2 squishy).

Pure functions. A series that lacks a question type averages the types it has, with their weights renormalised,
and is flagged; questions whose value is None (a list question with an empty final answer set) are left out.
"""

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import median
from typing import Any


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean (statistics.mean is exact but far slower, and thousands are taken per rescoring)."""
    values = list(values)
    return math.fsum(values) / len(values)


TREC2007_WEIGHTS = {"FACTOID": 1 / 3, "LIST": 1 / 3, "OTHER": 1 / 3}
TREC2004_WEIGHTS = {"FACTOID": 0.5, "LIST": 0.25, "OTHER": 0.25}  # TREC 2004-2005; a setting, not a default
TAC2008_WEIGHTS = {"RIGIDLIST": 0.5, "SQUISHYLIST": 0.5}


@dataclass(frozen=True)
class SeriesScore:
    value: float | None
    components: dict[str, float]  # question type -> mean value over the series' questions of that type
    counts: dict[str, int]  # question type -> questions counted
    missing: tuple[str, ...] = ()  # weighted types the series lacks (flag)
    left_out: int = 0  # questions left out (value None)


def series_score(question_values: Iterable[tuple[str, float | None]], weights: Mapping[str, float]) -> SeriesScore:
    """`question_values` is [(question type, value or None), ...] for one run and one series."""
    sums: dict[str, list[Any]]  # question type -> [values, count]
    sums, left_out = {}, 0
    for qtype, value in question_values:
        if value is None:
            left_out += 1
            continue
        acc = sums.setdefault(qtype, [[], 0])
        acc[0].append(value)
        acc[1] += 1
    return series_score_from_sums({t: (math.fsum(v), n) for t, (v, n) in sums.items()}, weights, left_out)


def series_score_from_sums(
    sums: Mapping[str, tuple[float, int]], weights: Mapping[str, float], left_out: int = 0
) -> SeriesScore:
    """The same from {question type: (sum of values, number of questions with a value)}, as a database can
    aggregate them without sending every question's value."""
    components = {t: total / n for t, (total, n) in sums.items() if n}
    counts = {t: n for t, (_, n) in sums.items() if n}
    present = {t: w for t, w in weights.items() if t in components}
    missing = tuple(t for t in weights if t not in components)
    if present and sum(present.values()) > 0:
        total = sum(present.values())
        value = sum(w * components[t] for t, w in present.items()) / total
    elif components and not weights:
        value = mean(components.values())
    else:
        value = None
    return SeriesScore(value=value, components=components, counts=counts, missing=missing, left_out=left_out)


def run_score(series_values: Iterable[float | None]) -> float | None:
    """A run's score: the mean of its per-series scores (series with no score are left out)."""
    values = [v for v in series_values if v is not None]
    return mean(values) if values else None


def component_means(series_scores: Iterable[SeriesScore]) -> dict[str, float]:
    """A run's component scores: the mean over all its questions of each type (not the mean of series means)."""
    sums: dict[str, float]
    counts: dict[str, int]
    sums, counts = {}, {}
    for s in series_scores:
        for t, v in s.components.items():
            sums[t] = sums.get(t, 0.0) + v * s.counts[t]
            counts[t] = counts.get(t, 0) + s.counts[t]
    return {t: sums[t] / counts[t] for t in sums}


@dataclass(frozen=True)
class Spread:
    best: float | None
    median: float | None
    worst: float | None


def spread(values: Iterable[Any]) -> Spread:  # numbers or None (Any: `values` is rebound to the numbers)
    """Best, median and worst of the values that exist (the report's comparison with all judged runs)."""
    values = [v for v in values if v is not None]
    if not values:
        return Spread(None, None, None)
    return Spread(max(values), median(values), min(values))
