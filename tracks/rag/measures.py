"""TREC RAG measures, as SPEC-NOTES ("TREC RAG") gives them from the public record. Pure.

Nugget scores (nuggetizer's definitions): an answer's nuggets as [(importance, assignment)], importance "vital" or
"okay", assignment "support", "partial_support" or "not_support"; None for an answer whose nuggets are not all
assigned yet (left out of the run's mean until they are). Support (Thakur et al. 2025): an answer's sentences as
[{segment: label}], label "full_support", "partial_support", "no_support" or None (not judged yet). Relevance:
nDCG@20 of a retrieval run's ranked segments against the graded qrels (UMBRELA's 0-3).

A run's score is the mean over its topics of the per-answer values (a topic the run did not answer scores 0).
"""

import math
from collections.abc import Iterable, Mapping, Sequence

from scoring.measures.definition import Measure

WEIGHT = {"full_support": 1.0, "partial_support": 0.5, "no_support": 0.0}
ASSIGNED = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
STRICT = {"support": 1.0, "partial_support": 0.0, "not_support": 0.0}

Nuggets = Sequence[tuple[str, str]]  # [(importance, assignment)]
Sentences = Sequence[Mapping[str, str | None]]  # [{segment id: support label or None}]


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the defined values; None when there are none."""
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def _nugget_score(nuggets: Nuggets | None, weights: Mapping[str, float], vital_only: bool) -> float | None:
    if nuggets is None:
        return None
    chosen = [a for importance, a in nuggets if importance == "vital" or not vital_only]
    return sum(weights[a] for a in chosen) / len(chosen) if chosen else 0.0


def nugget_all(nuggets: Nuggets | None) -> float | None:
    """SPEC-NOTES: 'Vital and All count partial_support as ½' (over all nuggets)."""
    return _nugget_score(nuggets, ASSIGNED, False)


def nugget_vital(nuggets: Nuggets | None) -> float | None:
    """SPEC-NOTES: 'Vital and All count partial_support as ½' (over the vital nuggets)."""
    return _nugget_score(nuggets, ASSIGNED, True)


def nugget_strict_all(nuggets: Nuggets | None) -> float | None:
    """SPEC-NOTES: 'Strict All = the same over all nuggets' (only support counts)."""
    return _nugget_score(nuggets, STRICT, False)


def nugget_strict_vital(nuggets: Nuggets | None) -> float | None:
    """SPEC-NOTES: 'Strict Vital = nuggets with support among the vital ones / number of vital nuggets'."""
    return _nugget_score(nuggets, STRICT, True)


def support_precision(sentences: Sentences) -> float | None:
    """SPEC-NOTES: 'weighted precision = mean over the answer's (sentence, cited segment) pairs of the support
    weight (full 1, partial ½, none 0)'. Unjudged pairs are left out; an answer citing nothing scores 0."""
    pairs = [label for s in sentences for label in s.values()]
    if not pairs:
        return 0.0
    return mean(WEIGHT[label] for label in pairs if label is not None)


def sentence_weight(citations: Mapping[str, str | None]) -> float | None:
    """A sentence's support weight for recall: the highest weight among its cited segments (SPEC-NOTES: 'Assay
    takes the highest weight among them'), 0 without a citation; None while an unjudged citation could still
    raise it."""
    if not citations:
        return 0.0
    judged = [WEIGHT[v] for v in citations.values() if v is not None]
    if judged and max(judged) == 1.0:
        return 1.0
    if len(judged) < len(citations):
        return None
    return max(judged)


def support_recall(sentences: Sentences) -> float | None:
    """SPEC-NOTES: 'weighted recall = mean over the answer's sentences of the sentence's support weight, a
    sentence with no citation counting 0'. Sentences whose weight is not decided yet are left out."""
    if not sentences:
        return 0.0
    return mean(sentence_weight(s) for s in sentences)


def ndcg(ranked: Sequence[str], grades: Mapping[str, int], depth: int = 20) -> float | None:
    """nDCG@depth with the grade as gain and log2(rank + 1) discount (Järvelin and Kekäläinen 2002, trec_eval's
    ndcg_cut); None when the topic has no relevant segment judged."""
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:depth]
    if not ideal:
        return None
    dcg = sum(grades.get(d, 0) / math.log2(r + 2) for r, d in enumerate(ranked[:depth]))
    idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    return dcg / idcg


NOTES = 'SPEC-NOTES "TREC RAG"'
NUGGET_MEASURES = (
    Measure(
        "nugget_all",
        "All",
        "Nuggets the answer supports (partial support ½) over all the topic's nuggets, averaged over topics.",
        f"{NOTES}: 'Strict All = the same over all nuggets; Vital and All count partial_support as ½'",
        nugget_all,
    ),
    Measure(
        "nugget_vital",
        "Vital",
        "Vital nuggets the answer supports (partial support ½) over the topic's vital nuggets, averaged.",
        f"{NOTES}: 'Vital and All count partial_support as ½; 0 when the set is empty'",
        nugget_vital,
    ),
    Measure(
        "nugget_strict_all",
        "Strict All",
        "Nuggets the answer fully supports over all the topic's nuggets, averaged over topics.",
        f"{NOTES}: 'Strict All = the same over all nuggets'",
        nugget_strict_all,
    ),
    Measure(
        "nugget_strict_vital",
        "Strict Vital",
        "Vital nuggets the answer fully supports over the topic's vital nuggets, averaged over topics.",
        f"{NOTES}: 'Strict Vital = nuggets with support among the vital ones / number of vital nuggets'",
        nugget_strict_vital,
    ),
)
SUPPORT_MEASURES = (
    Measure(
        "support_precision",
        "Support precision",
        "Mean support weight (full 1, partial ½) of the answer's (sentence, cited segment) pairs, averaged.",
        f"{NOTES}: 'weighted precision = mean over the answer's (sentence, cited segment) pairs of the support weight'",
        support_precision,
    ),
    Measure(
        "support_recall",
        "Support recall",
        "Mean over the answer's sentences of its best citation's support weight (uncited: 0), averaged.",
        f"{NOTES}: 'weighted recall = mean over the answer's sentences of the sentence's support weight'",
        support_recall,
    ),
)
RELEVANCE_MEASURES = (
    Measure(
        "ndcg_cut_20",
        "nDCG@20",
        "A retrieval run's nDCG over its top 20 segments with the relevance grades 0-3 as gains.",
        f"{NOTES}: 'every cited segment is pooled for relevance (0–3 ... UMBRELA's scale)'; retrieval runs",
        ndcg,
    ),
)
MEASURES = NUGGET_MEASURES + SUPPORT_MEASURES + RELEVANCE_MEASURES
