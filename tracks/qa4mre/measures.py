"""c@1 and the QA4MRE diagnostics (seed 003, SPEC-NOTES "QA4MRE 2012"). Plain data, no Django import.

c@1 = (n_R + n_U * n_R / n) / n over n questions, n_R of them answered correctly and n_U unanswered.
A question with answered="NO" is unanswered whether or not it carries a candidate answer; the candidates are
scored apart, as the self-validation diagnostic: of the unanswered questions that carry a candidate, the share
whose candidate is right. A question whose gold standard marks no answer as correct cannot be answered right.
Undefined values (no question, nothing answered, no candidate) are None, shown as "–".
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import median

from scoring.measures.definition import Measure


@dataclass(frozen=True)
class Outcome:
    """One question of one run against the gold standard."""

    answered: bool
    right: bool  # answered and the chosen answer is the gold one
    candidate: bool = False  # unanswered but carrying a candidate answer
    candidate_right: bool = False


def outcome(answered: bool, a_id: int | None, gold: int | None) -> Outcome:
    """The outcome of a response (answered flag and chosen a_id or None) given the gold a_id (or None)."""
    hit = a_id is not None and gold is not None and a_id == gold
    if answered:
        return Outcome(answered=True, right=hit)
    return Outcome(answered=False, right=False, candidate=a_id is not None, candidate_right=hit)


@dataclass(frozen=True)
class Counts:
    n: int
    right: int
    wrong: int
    unanswered: int
    candidates: int
    candidates_right: int


def count(outcomes: Iterable[Outcome]) -> Counts:
    outcomes = list(outcomes)
    return Counts(
        n=len(outcomes),
        right=sum(o.right for o in outcomes),
        wrong=sum(o.answered and not o.right for o in outcomes),
        unanswered=sum(not o.answered for o in outcomes),
        candidates=sum(o.candidate for o in outcomes),
        candidates_right=sum(o.candidate_right for o in outcomes),
    )


def c_at_1(counts: Counts) -> float | None:
    if counts.n == 0:
        return None
    return (counts.right + counts.unanswered * counts.right / counts.n) / counts.n


def accuracy_answered(counts: Counts) -> float | None:
    answered = counts.n - counts.unanswered
    return counts.right / answered if answered else None


def self_validation(counts: Counts) -> float | None:
    return counts.candidates_right / counts.candidates if counts.candidates else None


# What the track declares (Track.measures): the names the scorer stores at every scope, besides the shared
# headline "score" (= c@1 of the run, each reading test and each question).
DEFINITIONS: tuple[Measure, ...] = (
    Measure(
        "c_at_1",
        "c@1",
        "The share of questions answered right, where a question left unanswered earns that "
        "share instead of nothing: leaving a question unanswered beats answering it wrong.",
        "003 EVALUATION: 'Each test will receive an evaluation score between 0 and 1 using c@1'",
        c_at_1,
    ),
    Measure(
        "accuracy_answered",
        "Accuracy over answered",
        "Share of the answered questions that were answered right.",
        "003 EVALUATION: 'encourages systems to reduce the number of incorrect answers while maintaining the "
        "number of correct ones by leaving some questions unanswered'",
        accuracy_answered,
    ),
    Measure(
        "self_validation",
        "Self-validation",
        "Of the questions left unanswered with a candidate answer, the share whose candidate was right.",
        "003 ANSWERS: 'the differences could be interesting for further analysis (e.g., to provide additional "
        "feedback about a system's self-validation)'",
        self_validation,
    ),
)
MEASURES: tuple[str, ...] = tuple(m.name for m in DEFINITIONS)
LABELS: dict[str, str] = {m.name: m.label for m in DEFINITIONS}


def measures(outcomes: Iterable[Outcome]) -> dict[str, float | None]:
    """{measure name: value} for a set of questions (a whole run, a reading test or a topic)."""
    counts = count(outcomes)
    return {m.name: m.function(counts) for m in DEFINITIONS}  # type: ignore[misc]  # (each has a function)


def grouped(
    outcomes_by_question: Mapping[str, Outcome], groups: Mapping[str, Iterable[str]]
) -> dict[str, dict[str, float | None]]:
    """{group: measures} where `groups` maps a group (reading test, topic) to its question idents. A question
    the run lacks counts as unanswered without a candidate."""
    missing = Outcome(answered=False, right=False)
    return {
        group: measures(outcomes_by_question.get(q, missing) for q in questions) for group, questions in groups.items()
    }


def best_median_worst(values: Iterable[float | None]) -> tuple[float | None, float | None, float | None]:
    """(best, median, worst) of the defined values, or (None, None, None) when none is defined."""
    defined = sorted(v for v in values if v is not None)
    if not defined:
        return None, None, None
    return defined[-1], median(defined), defined[0]
