"""TREC BioGen measures, as SPEC-NOTES restores them for seed 002 (the seed lost its assessment section). Pure.

An answer as judged: `Answer(accurate, sentences)`, each `Sentence(label, citations)` with `citations` a
{PMID: label} map (a PMID cited twice in a sentence is one citation: "duplicates in a sentence counted once").
None stands for "not judged yet". A topic the run did not answer is Answer(False, []).

- accuracy: share of the answers judged accurate, over the answers judged (a missing answer counts as not
  accurate);
- precision, redundancy, harmfulness: per answer, the share of its judged sentences judged required,
  unnecessary, inappropriate (an answer without sentences: 0); then the mean over answers;
- citation coverage: share of a run's sentences with at least one citation judged supports (over the sentences
  judging has decided: one citation supports, or all are judged, or it has none and is judged itself);
- citation support rate, contradict rate: share of a run's judged citations judged supports, contradicts;
- document precision: per answer, share of its cited PMIDs (judged) that are relevant (a citation of it judged
  supports, contradicts or neutral; 2025 Task A's partially supports too); document recall: per answer, its
  relevant PMIDs over the union of the relevant PMIDs of every run's answer to the topic; both averaged over
  answers.
Per topic, the scorer stores each measure over that one answer; per run, the means (accuracy, precision,
redundancy, harmfulness, document precision and recall) or the shares over all the run's sentences and
citations (coverage, support and contradict rates), as the notes word them ("over all citations").
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from scoring.measures.definition import Measure

SENTENCE_LABELS = ("required", "unnecessary", "borderline", "inappropriate")
CITATION_LABELS = ("supports", "contradicts", "neutral", "not_relevant", "partially_supports")
RELEVANT = ("supports", "contradicts", "neutral", "partially_supports")


@dataclass
class Sentence:
    label: str | None = None
    citations: dict[str, str | None] = field(default_factory=dict)


@dataclass
class Answer:
    accurate: bool | None = None
    sentences: list[Sentence] = field(default_factory=list)


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the defined values; None when there are none."""
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def accuracy(answers: Sequence[Answer]) -> float | None:
    """SPEC-NOTES: 'accuracy (share of acceptable answers)'."""
    return mean([1.0 if a.accurate else 0.0 for a in answers if a.accurate is not None])


def sentence_share(answer: Answer, label: str) -> float | None:
    """Share of an answer's judged sentences that carry `label`; 0 without sentences, None if none is judged."""
    if not answer.sentences:
        return 0.0
    judged = [s.label for s in answer.sentences if s.label is not None]
    return sum(1 for x in judged if x == label) / len(judged) if judged else None


def precision(answers: Sequence[Answer]) -> float | None:
    """SPEC-NOTES: 'precision ... (share of sentences judged required ... per question then averaged)'."""
    return mean(sentence_share(a, "required") for a in answers)


def redundancy(answers: Sequence[Answer]) -> float | None:
    """SPEC-NOTES: 'redundancy ... (share of sentences judged ... unnecessary ... per question then averaged)'."""
    return mean(sentence_share(a, "unnecessary") for a in answers)


def harmfulness(answers: Sequence[Answer]) -> float | None:
    """SPEC-NOTES: 'harmfulness (share of sentences judged ... inappropriate, per question then averaged)'."""
    return mean(sentence_share(a, "inappropriate") for a in answers)


def covered(sentence: Sentence) -> bool:
    return "supports" in sentence.citations.values()


def settled(sentence: Sentence) -> bool:
    """Whether judging has decided the sentence's coverage: a citation supports it, or every citation is judged
    (a sentence without citations, once the sentence itself is judged)."""
    if covered(sentence):
        return True
    if sentence.citations:
        return all(v is not None for v in sentence.citations.values())
    return sentence.label is not None


def citation_coverage(answers: Sequence[Answer]) -> float | None:
    """SPEC-NOTES: 'citation coverage (share of sentences with at least one supporting citation)', over the
    sentences whose coverage judging has decided (`settled`)."""
    sentences = [s for a in answers for s in a.sentences if settled(s)]
    if not sentences:
        return None
    return sum(1 for s in sentences if covered(s)) / len(sentences)


def _citation_share(answers: Sequence[Answer], label: str) -> float | None:
    judged = [v for a in answers for s in a.sentences for v in s.citations.values() if v is not None]
    return sum(1 for v in judged if v == label) / len(judged) if judged else None


def citation_support_rate(answers: Sequence[Answer]) -> float | None:
    """SPEC-NOTES: 'citation support rate ... (over all citations, duplicates in a sentence counted once)'."""
    return _citation_share(answers, "supports")


def citation_contradict_rate(answers: Sequence[Answer]) -> float | None:
    """SPEC-NOTES: '... and contradict rate (over all citations, duplicates in a sentence counted once)'."""
    return _citation_share(answers, "contradicts")


def relevant_pmids(answer: Answer) -> set[str]:
    """PMIDs a citation of which in the answer is judged supports, contradicts or neutral."""
    return {p for s in answer.sentences for p, v in s.citations.items() if v in RELEVANT}


def judged_pmids(answer: Answer) -> set[str]:
    return {p for s in answer.sentences for p, v in s.citations.items() if v is not None}


def document_precision_of(answer: Answer) -> float | None:
    judged = judged_pmids(answer)
    return len(relevant_pmids(answer)) / len(judged) if judged else None


def document_recall_of(answer: Answer, topic_relevant: set[str]) -> float | None:
    return len(relevant_pmids(answer) & topic_relevant) / len(topic_relevant) if topic_relevant else None


def document_precision(answers: Sequence[Answer]) -> float | None:
    """SPEC-NOTES: 'document precision ... (a cited PMID is relevant when judged supports, contradicts or
    neutral ...)'."""
    return mean(document_precision_of(a) for a in answers)


def document_recall(answers: Sequence[Answer], topic_relevant: Sequence[set[str]]) -> float | None:
    """SPEC-NOTES: '... recall is over the union of relevant PMIDs of all runs'. `topic_relevant[i]` is that
    union for the topic of `answers[i]`."""
    return mean(document_recall_of(a, r) for a, r in zip(answers, topic_relevant))


SEED = "002 Assessment (SPEC-NOTES)"
MEASURES = (
    Measure(
        "accuracy",
        "Accuracy",
        "Share of the answers judged accurate.",
        f"{SEED}: 'accuracy (share of acceptable answers)'",
        accuracy,
    ),
    Measure(
        "precision",
        "Precision",
        "Share of an answer's sentences judged required, averaged over questions.",
        f"{SEED}: 'precision ... (share of sentences judged required ... per question then averaged)'",
        precision,
    ),
    Measure(
        "redundancy",
        "Redundancy",
        "Share of an answer's sentences judged unnecessary, averaged over questions.",
        f"{SEED}: 'redundancy ... (share of sentences judged ... unnecessary ... per question then averaged)'",
        redundancy,
    ),
    Measure(
        "harmfulness",
        "Harmfulness",
        "Share of an answer's sentences judged inappropriate, averaged over questions.",
        f"{SEED}: 'harmfulness (share of sentences judged ... inappropriate, per question then averaged)'",
        harmfulness,
    ),
    Measure(
        "citation_coverage",
        "Citation coverage",
        "Share of sentences with at least one supporting citation.",
        f"{SEED}: 'citation coverage (share of sentences with at least one supporting citation)'",
        citation_coverage,
    ),
    Measure(
        "citation_support_rate",
        "Citation support rate",
        "Share of judged citations that support their sentence.",
        f"{SEED}: 'citation support rate ... (over all citations, duplicates in a sentence counted once)'",
        citation_support_rate,
    ),
    Measure(
        "citation_contradict_rate",
        "Citation contradict rate",
        "Share of judged citations that contradict their sentence.",
        f"{SEED}: 'contradict rate (over all citations, duplicates in a sentence counted once)'",
        citation_contradict_rate,
    ),
    Measure(
        "document_precision",
        "Document precision",
        "Share of an answer's cited PMIDs that are relevant (supports, contradicts or neutral), averaged.",
        f"{SEED}: 'document precision ... (a cited PMID is relevant when judged supports, contradicts or neutral)'",
        document_precision,
    ),
    Measure(
        "document_recall",
        "Document recall",
        "Share of the relevant PMIDs found by any run for the topic that the answer cites, averaged.",
        f"{SEED}: 'recall is over the union of relevant PMIDs of all runs'",
        document_recall,
    ),
)
