"""Per-question QA measures of TREC 2004-2007 and TAC 2008 (seeds 000_, 001_ and SPEC-NOTES).

Pure functions over plain data: no Django, no database. Inputs are what a run returned for one question and
the question's official judgments, already looked up by the caller. At the end, the measures the QA scorer stores
as the Measure definitions the tracks declare (TREC2007_MEASURES, TAC2008_MEASURES).
"""

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from scoring.measures.combine import series_score
from scoring.measures.definition import Measure

_WHITESPACE = re.compile(r"\s+")
BETA = 3


def non_white_length(strings: Iterable[str | None]) -> int:
    """Non-white-space characters of all the strings (the `length` of the nugget precision approximation)."""
    return sum(len(_WHITESPACE.sub("", s or "")) for s in strings)


# --- factoid ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FactoidResult:
    correct: bool  # judged globally correct (or, for NIL, NIL is the right answer)
    nil_returned: bool
    nil_correct: bool


def factoid_score(
    response_labels: Sequence[str | None], correct_label: str, nil_returned: bool = False, answer_is_nil: bool = False
) -> FactoidResult:
    """One factoid response. `response_labels` are the official labels of the run's instances (the first is the
    response; a factoid response is exactly one pair or NIL). A NIL response is correct exactly when the
    question's answer is NIL; an unjudged or empty response is wrong."""
    if nil_returned:
        return FactoidResult(correct=answer_is_nil, nil_returned=True, nil_correct=answer_is_nil)
    correct = bool(response_labels) and response_labels[0] == correct_label
    return FactoidResult(correct=correct, nil_returned=False, nil_correct=False)


# Labels that show the collection holds an answer to the question (seed 001, 2.1: "NIL responses were correct only
# if there was no known answer to the question in the collection"): a response judged correct, locally correct
# (right by its document, superseded later) or non-exact (the answer is in it, with too much or too little) found
# one. "unsupported" does not: its document does not hold the answer.
KNOWN_ANSWER_LABELS = frozenset({"correct", "globally-correct", "locally-correct", "non-exact"})


def shows_known_answer(label: str | None) -> bool:
    return label in KNOWN_ANSWER_LABELS


def answer_is_nil(explicit: bool | None = None, known_answer: bool = False, fully_judged: bool = False) -> bool:
    """Whether a question's answer is NIL ("no known answer in the collection"). NIL responses are not pooled,
    so this is inferred: the organizer's explicit flag wins; otherwise NIL is right once every pooled answer of
    the question is judged and none of them (the assessor's own included) shows a known answer
    (shows_known_answer)."""
    if explicit is not None:
        return bool(explicit)
    return fully_judged and not known_answer


def accuracy(results: Iterable[FactoidResult]) -> float | None:
    """Fraction of factoid questions judged correct; None for no questions."""
    results = list(results)
    return sum(r.correct for r in results) / len(results) if results else None


def nil_precision(results: Collection[FactoidResult]) -> float | None:
    """Correct NIL responses / NIL responses returned; None ("–") when the run returned no NIL."""
    returned = sum(r.nil_returned for r in results)
    return sum(r.nil_correct for r in results) / returned if returned else None


def nil_recall(results: Iterable[FactoidResult], nil_questions: int) -> float | None:
    """Correct NIL responses / questions whose answer is NIL; None when no question's answer is NIL."""
    return sum(r.nil_correct for r in results) / nil_questions if nil_questions else None


# --- list / rigid list --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ListResult:
    ip: float
    ir: float
    f: float | None  # None: final answer set empty, question left out of averages
    distinct: int  # D
    instances: int  # N
    answer_set: int  # S


def list_score(response_classes: Collection[str | None], final_answer_set_size: int) -> ListResult:
    """IP, IR and F of one list response.

    `response_classes` has one entry per instance the run returned: the answer class of an instance judged
    correct, or None for any other judgment. An equivalence class counts once however many instances hold it.
    `final_answer_set_size` is S: distinct correct answers of all judged runs plus those the assessor found.
    """
    n = len(response_classes)
    d = len({c for c in response_classes if c is not None})
    s = final_answer_set_size
    if s == 0:
        return ListResult(ip=d / n if n else 0.0, ir=0.0, f=None, distinct=d, instances=n, answer_set=0)
    ip = d / n if n else 0.0
    ir = d / s
    f = 2 * ip * ir / (ip + ir) if d else 0.0
    return ListResult(ip=ip, ir=ir, f=f, distinct=d, instances=n, answer_set=s)


def final_answer_set(judged_classes: Iterable[str | None]) -> set[str]:
    """S as a set: the distinct classes among all correct instances (runs' and assessor-found alike)."""
    return {c for c in judged_classes if c is not None}


# --- nuggets ------------------------------------------------------------------------------------------------


def pyramid_weights(vital_votes: Mapping[int, int]) -> dict[int, float]:
    """{nugget: weight} from {nugget: number of assessors who voted it vital}: each count divided by the largest
    count of the question, so the heaviest nugget weighs 1. With no vital vote at all every weight is 0."""
    top = max(vital_votes.values(), default=0)
    return {n: (v / top if top else 0.0) for n, v in vital_votes.items()}


def binary_weights(official_votes: Mapping[int, str | None]) -> dict[int, float]:
    """{nugget: 1 for vital, 0 for okay} from the official vital/okay label of each nugget."""
    return {n: 1.0 if v == "vital" else 0.0 for n, v in official_votes.items()}


@dataclass(frozen=True)
class NuggetResult:
    recall: float
    precision: float
    f: float
    matched: int  # nuggets matched (vital and okay alike), once each
    length: int
    allowance: int


def nugget_score(matched: Iterable[int], weights: Mapping[int, float], length: int, beta: float = BETA) -> NuggetResult:
    """Nugget recall, length-allowance precision and F(beta) of one response.

    `matched` are the nuggets the run's strings hold (a nugget held by several strings counts once);
    `weights` maps every nugget of the question to its weight (binary 1/0 or pyramid); `length` is the response's
    non-white-space length. R = sum of all weights; an empty response or R = 0 scores 0.
    """
    matched = set(matched) & set(weights)
    big_r = sum(weights.values())
    allowance = 100 * len(matched)
    if length < allowance:
        precision = 1.0
    else:
        precision = 1 - (length - allowance) / length if length else 0.0
    recall = sum(weights[n] for n in matched) / big_r if big_r else 0.0
    if length == 0 or big_r == 0 or precision + recall == 0:
        f = 0.0
    else:
        f = (beta * beta + 1) * precision * recall / (beta * beta * precision + recall)
    return NuggetResult(
        recall=recall, precision=precision, f=f, matched=len(matched), length=length, allowance=allowance
    )


# --- ciQA recall by length ----------------------------------------------------------------------------------


def recall_points(
    strings_with_nuggets: Iterable[tuple[str, Iterable[int]]], weights: Mapping[int, float], step: int = 50
) -> list[tuple[int, float]]:
    """One topic's (length, recall) points: after each answer string in submitted order, the cumulative recall
    against the cumulative non-white-space length rounded up to the next multiple of `step`.

    `strings_with_nuggets` is [(answer string, nuggets it holds), ...] in the order submitted.
    """
    big_r = sum(weights.values())
    seen: set[int]
    points: list[tuple[int, float]]
    seen, length, points = set(), 0, []
    for text, nuggets in strings_with_nuggets:
        length += non_white_length([text])
        seen |= set(nuggets) & set(weights)
        recall = sum(weights[n] for n in seen) / big_r if big_r else 0.0
        bucket = step * math.ceil(length / step) if length else 0
        if points and points[-1][0] == bucket:
            points[-1] = (bucket, recall)
        else:
            points.append((bucket, recall))
    return points


def recall_by_length(topics_points: Sequence[Sequence[tuple[int, float]]], step: int = 50) -> list[tuple[int, float]]:
    """Average over topics of recall at each multiple of `step`, carrying each topic's recall forward between its
    points (0 before its first point). Returns [(length, mean recall), ...] up to the longest response."""
    if not topics_points:
        return []
    longest = max((pts[-1][0] for pts in topics_points if pts), default=0)
    curve = []
    for length in range(step, longest + step, step):
        total = 0.0
        for pts in topics_points:
            total += max((r for (x, r) in pts if x <= length), default=0.0) if pts else 0.0
        curve.append((length, total / len(topics_points)))
    return curve


@dataclass
class QuestionScore:
    """The stored result of one run on one question: the value its series uses, and the numbers behind it."""

    kind: str
    value: float | None
    detail: dict[str, Any] = field(default_factory=dict)


# --- the measures the QA scorer (tracks.qa.scorer) stores, as Track.measures declares them --------------------
# Run level: one mean per question type ("factoid", "list", "other", "rigidlist", "squishylist", "ciqa") and the
# NIL rates; question and series level: "score", whose meaning per question type the last three entries give.

_FACTOID = "001 2.1 Factoid questions"
_LIST = "001 2.2 List questions"
_OTHER = "001 2.3 Other questions"
_SERIES = "001 2.4 Per-series Combined Scores"
_RIGID = "000 Rigid-list-score"
_SQUISHY = "000 Squishy-list-score"

FACTOID = Measure(
    "factoid",
    "Factoid accuracy",
    "The share of the run's factoid questions whose response was judged globally correct (a NIL "
    "response is right only when the collection holds no known answer).",
    f"{_FACTOID}: 'the fraction of questions judged to be globally correct'",
    accuracy,
)
NIL_PRECISION = Measure(
    "nil_precision",
    "NIL precision",
    "Of the run's NIL responses, the share that were right (none when it never returned NIL).",
    f"{_FACTOID}: 'NIL precision is the ratio of the number of times NIL was returned and "
    "correct to the number of times it was returned'",
    nil_precision,
)
NIL_RECALL = Measure(
    "nil_recall",
    "NIL recall",
    "Of the factoid questions without a known answer, the share the run answered NIL.",
    f"{_FACTOID}: 'NIL recall is the ratio of the number of times NIL was returned and correct to "
    "the number of times it was correct in the entire test set'",
    nil_recall,
)
LIST = Measure(
    "list",
    "List F",
    "The mean over the run's list questions of the F of instance precision and instance recall, "
    "counting each distinct correct answer once.",
    f"{_LIST}: 'The score for the list component of a run was the average F-score'",
    list_score,
)
OTHER = Measure(
    "other",
    "Other F(β=3)",
    "The mean over the run's Other questions of the nugget F with recall weighted three times "
    "precision, precision approximated from the response's length.",
    f"{_OTHER}: 'The score for the Other questions component was the average F-score ($\\beta=3$)'",
    nugget_score,
)
RIGIDLIST = Measure(
    "rigidlist",
    "Rigid list F",
    "The mean over the run's rigid list questions of the F of instance precision and instance "
    "recall against the final answer set.",
    f"{_RIGID}: 'combining those scores using the F measure with recall and precision equally weighted'",
    list_score,
)
SQUISHYLIST = Measure(
    "squishylist",
    "Squishy list F",
    "The mean over the run's squishy list questions of the nugget F(β=3), nuggets weighted by how "
    "many assessors voted them vital.",
    f"{_SQUISHY}: 'These scores will be combined using the F measure with beta=3'",
    nugget_score,
)
CIQA = Measure(
    "ciqa",
    "Pyramid F(β=3)",
    "The mean over the run's ciQA topics of the nugget pyramid F(β=3).",
    "001 3.2.3 Evaluation Methodology: 'System responses were evaluated using the “nugget pyramid” "
    "extension of the nugget-based methodology'",
    nugget_score,
)
LIST_F = Measure(
    "list_f",
    "List F",
    "A list question's stored score: F of instance precision (distinct correct answers over instances "
    "returned) and instance recall (over the final answer set).",
    f"{_RIGID}: 'F = (2*IP*IR)/(IP+IR)'",
    list_score,
)
NUGGET_F_PYRAMID = Measure(
    "nugget_f_pyramid",
    "Nugget F(β=3), pyramid",
    "A nugget question's stored score: F(β=3) of pyramid nugget recall and the length "
    "allowance precision (100 characters per nugget matched).",
    f"{_SQUISHY}: 'Each nugget will be assigned a weight equal to the number of assessors who judged it to be vital'",
    nugget_score,
)
SERIES_SCORE = Measure(
    "series_score",
    "Series score",
    "A series' stored score: the weighted mean of its question types' mean scores; the run's "
    "score is the mean over its series.",
    f"{_SERIES}: 'The final per-series score of each run is simply the average of individual "
    "per-series weighted scores'",
    series_score,
)

# The same stored measures as each track's own seed states them.
TAC2008_SERIES_SCORE = replace(
    SERIES_SCORE, seed="000 Overall score: 'per-series combined score = 1/2* (rigid-list-score + squishy-list-score)'"
)
TREC2007_LIST_F = replace(
    LIST_F,
    seed=f"{_LIST}: 'Precision and recall were then combined to produce an F-score "
    "with equal weight given to recall and precision'",
)
TREC2007_NUGGET_F_PYRAMID = replace(
    NUGGET_F_PYRAMID,
    seed=f"{_OTHER}: 'Using the pyramid procedure, a weight was "
    "assigned to each nugget based on the number of assessors "
    "who marked it as vital'",
)

TREC2007_MEASURES = (
    FACTOID,
    LIST,
    OTHER,
    NIL_PRECISION,
    NIL_RECALL,
    TREC2007_LIST_F,
    TREC2007_NUGGET_F_PYRAMID,
    SERIES_SCORE,
)
TAC2008_MEASURES = (RIGIDLIST, SQUISHYLIST, LIST_F, NUGGET_F_PYRAMID, TAC2008_SERIES_SCORE)
CIQA_MEASURES = (CIQA, NUGGET_F_PYRAMID)  # for ciQA's declaration, once its topic format is built
