"""BOLT IR phase 2 measures, as SPEC-NOTES defines them (the official scorer was never published). Pure.

MEASURES declares each measure the scorer (tracks.bolt.scorer) stores, for Track.measures; the scorer stores
every one per topic and as a mean over topics per run (char_ap per topic only, char_map per run only).

Citation measures, per topic and run:
- A citation's characters are those of its passage as submitted, entities decoded, layout white space at both
  ends trimmed (SPEC-NOTES; the setting `passage_white_space` can collapse white space instead:
  tracks.bolt.formats.xml_common). Its relevant
  characters: all of them when judged yes or maybe, only those inside its relspans when the assessor marked
  any, none when judged no, unjudged, or a near-duplicate of a higher-ranked citation of the same run.
- R(topic): relevant characters over the topic's judged pool items and the citations the assessors found.
- precision = relevant returned / returned; recall = relevant returned / R; F = harmonic mean (0 when both 0).
- AP: walk the citations by rank and each passage left to right; AP = (1/R) Σ over relevant characters of
  (relevant so far / characters so far). MAP (and the run's mean P, R, F) over topics with R > 0; the others
  are left out and listed. A run that returns nothing for a topic scores 0 on it (precision included).

Grouping measures, per view (the miscellaneous group is never judged and never counted):
- view precision: share of the judged groups that are relevant (appropriate) and of the right scope;
- group precision: mean over groups of the share of its judged citations judged to belong;
- group skew: within each group, the standard deviation (population: divide by n) of its judged citations'
  precisions (a citation's precision: the share of its characters judged relevant, so 1 or 0 for a whole yes or
  no, between for marked relevant parts; a near-duplicate takes its leader's judgment), averaged over the view's
  groups that have a judged citation (SPEC-NOTES: "standard deviation of the precision of the citations in a
  group, averaged over the view's groups").
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scoring.measures.definition import Measure

RELEVANT = ("yes", "maybe")

_harmonic = [0.0]


def harmonic(n: int) -> float:
    """H(n) = 1 + 1/2 + ... + 1/n, from a table grown as needed."""
    while len(_harmonic) <= n:
        _harmonic.append(_harmonic[-1] + 1.0 / len(_harmonic))
    return _harmonic[n]


def relevant_spans(length: int, judgment: Mapping[str, Any] | None, false_alarm: bool = False) -> list[tuple[int, int]]:
    """Merged, clipped [start, end) intervals of the relevant characters of a passage of `length` characters."""
    if false_alarm or not judgment or judgment.get("rel") not in RELEVANT:
        return []
    marks = judgment.get("relspans") or []
    if not marks:
        return [(0, length)] if length > 0 else []
    return merge_spans(marks, length)


def merge_spans(spans: Iterable[Sequence[int]], length: int) -> list[tuple[int, int]]:
    """[start, length] marks as sorted, merged [start, end) intervals clipped to a passage of `length` chars."""
    intervals = sorted((max(0, int(s)), min(length, int(s) + int(n))) for s, n in spans)
    merged: list[tuple[int, int]] = []
    for start, end in intervals:
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def relevant_chars(length: int, judgment: Mapping[str, Any] | None, false_alarm: bool = False) -> int:
    return sum(end - start for start, end in relevant_spans(length, judgment, false_alarm))


def topic_total(relevant_per_item: Iterable[int]) -> int:
    """R(topic) from the relevant-character counts of the judged pool items and assessor-found citations."""
    return sum(relevant_per_item)


def topic_scores(
    citations: Iterable[tuple[int, Iterable[tuple[int, int]]]], total_relevant: int
) -> dict[str, float | None]:
    """Measures of one run on one topic. `citations`: in rank order, (length, [(start, end), ...] relevant)."""
    returned = relevant = 0
    ap_sum = 0.0
    for length, spans in citations:
        for start, end in spans:
            # A run of k relevant characters beginning after g characters of which r0 were relevant adds
            # sum_{j=1..k} (r0 + j) / (g + j) = k + (r0 - g) (H(g + k) - H(g)).
            g = returned + start
            k = end - start
            ap_sum += k + (relevant - g) * (harmonic(g + k) - harmonic(g))
            relevant += k
        returned += length
    precision = relevant / returned if returned else 0.0
    recall = relevant / total_relevant if total_relevant else None
    if recall is None:
        f = None
    elif precision + recall == 0:
        f = 0.0
    else:
        f = 2 * precision * recall / (precision + recall)
    ap = ap_sum / total_relevant if total_relevant else None
    return {
        "char_precision": precision,
        "char_recall": recall,
        "char_f": f,
        "char_ap": ap,
        "chars_returned": returned,
        "chars_relevant_returned": relevant,
        "chars_relevant_total": total_relevant,
    }


def run_means(per_topic: Mapping[int, Mapping[str, Any]]) -> tuple[dict[str, float | None], list[int]]:
    """Means over topics with R > 0 of one run's topic scores ({topic: topic_scores(...)}); returns the means
    (char_map is the mean AP) and the topics left out because nothing relevant is known for them."""
    counted = {t: s for t, s in per_topic.items() if s["chars_relevant_total"]}
    left_out = sorted(t for t in per_topic if t not in counted)
    means = {}
    for measure, name in (
        ("char_precision", "char_precision"),
        ("char_recall", "char_recall"),
        ("char_f", "char_f"),
        ("char_ap", "char_map"),
    ):
        values = [s[measure] for s in counted.values()]
        means[name] = sum(values) / len(values) if values else None
    return means, left_out


def _share(flags: Iterable[bool | None]) -> float | None:
    judged = [f for f in flags if f is not None]
    return sum(1 for f in judged if f) / len(judged) if judged else None


def citation_precision(length: int, judgment: Mapping[str, Any] | None) -> float | None:
    """The share of a citation's `length` characters judged relevant, or None when it is not judged."""
    if not judgment or judgment.get("rel") not in ("yes", "maybe", "no"):
        return None
    return relevant_chars(length, judgment) / length if length > 0 else 0.0


def std_dev(values: Sequence[float]) -> float:
    """Population standard deviation (divide by n) of at least one value."""
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def view_scores(groups: Iterable[Mapping[str, Any]]) -> dict[str, float | None]:
    """Measures of one view. `groups`: dicts with misc (bool), relevant, scope (bool or None when unjudged),
    members ([bool or None] whether each citation belongs), cites_precision ([float or None] per citation: its
    citation_precision)."""
    judged = [g for g in groups if not g.get("misc")]
    scoped = [g for g in judged if g.get("relevant") is not None and g.get("scope") is not None]
    view_precision = (sum(1 for g in scoped if g["relevant"] and g["scope"]) / len(scoped)) if scoped else None
    cohesion = [s for s in (_share(g.get("members") or []) for g in judged) if s is not None]
    group_precision = sum(cohesion) / len(cohesion) if cohesion else None
    spreads = []
    for g in judged:
        precisions = [p for p in g.get("cites_precision") or [] if p is not None]
        if precisions:
            spreads.append(std_dev(precisions))
    skew = sum(spreads) / len(spreads) if spreads else None
    return {"view_precision": view_precision, "group_precision": group_precision, "group_skew": skew}


def mean_defined(values: Iterable[Any]) -> float | None:  # numbers or None (Any: `values` is rebound to the numbers)
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


_CITATIONS = "004 Subtask 1: Citation Retrieval, Evaluation"
_GROUPINGS = "004 Subtask 2: Thematic Grouping, Evaluation"
MEASURES: tuple[Measure, ...] = (
    Measure(
        "char_precision",
        "Char. precision",
        "The share of the characters of the returned passages that assessors judged relevant (yes or maybe; "
        "only the marked part when they marked one), near-duplicates counting as not relevant.",
        f"{_CITATIONS}: 'Character precision, the fraction of characters returned marked “yes” or “maybe”'",
        topic_scores,
    ),
    Measure(
        "char_recall",
        "Char. recall",
        "The share of all relevant characters known for the topic (judged pool citations and those LDC found) "
        "that the run returned.",
        f"{_CITATIONS}: 'Character recall, the fraction of “yes” or “maybe” characters out of all such citations "
        "judged by LDC (including those found by LDC during topic development)'",
        topic_scores,
    ),
    Measure(
        "char_f",
        "Char. F",
        "The harmonic mean of character precision and character recall, weighted equally.",
        f"{_CITATIONS}: 'An F-measure (harmonic mean) of the above precision and recall metrics, weighted equally'",
        topic_scores,
    ),
    Measure(
        "char_ap",
        "Char. AP",
        "Average precision by character: reading the citations in rank order, the precision so far at each "
        "relevant character, summed and divided by the topic's relevant characters.",
        f"{_CITATIONS}: 'Character-based mean average precision'",
        topic_scores,
    ),
    Measure(
        "char_map",
        "Char. MAP",
        "The mean of character AP over the topics for which any relevant characters are known.",
        f"{_CITATIONS}: 'Character-based mean average precision'",
        run_means,
    ),
    Measure(
        "view_precision",
        "View precision",
        "The share of a view's judged groups (miscellaneous aside) that are relevant and of the right scope, "
        "averaged over the topic's views.",
        f"{_GROUPINGS}: 'The fraction of appropriate, well-scoped groups in the view (“view precision”)'",
        view_scores,
    ),
    Measure(
        "group_precision",
        "Group precision",
        "The mean over a view's groups of the share of their judged citations that belong in the group, "
        "averaged over the topic's views.",
        f"{_GROUPINGS}: 'The average cohesiveness of groups in the view (“group precision”)'",
        view_scores,
    ),
    Measure(
        "group_skew",
        "Group skew",
        "Within each group, the standard deviation of its citations' precisions (the share of each citation's "
        "characters judged relevant), averaged over the view's groups, then over the topic's views.",
        f"{_GROUPINGS}: 'The standard deviation of the precision of citations in a group, averaged over groups "
        "in a view (“group skew”)'",
        view_scores,
    ),
)
