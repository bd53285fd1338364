"""BioGen measures (SPEC-NOTES for seed 002) against examples computed by hand here."""

import pytest

from tracks.biogen import measures as m
from tracks.biogen.measures import Answer, Sentence

# Two answers of one run, judged. Topic 1: accurate; 4 sentences: required, required, unnecessary, inappropriate.
# Citations: s1 {A: supports, B: neutral}, s2 {C: contradicts}, s3 {A: supports}, s4 {D: not_relevant}.
T1 = Answer(
    True,
    [
        Sentence("required", {"A": "supports", "B": "neutral"}),
        Sentence("required", {"C": "contradicts"}),
        Sentence("unnecessary", {"A": "supports"}),
        Sentence("inappropriate", {"D": "not_relevant"}),
    ],
)
# Topic 2: not accurate; 2 sentences: borderline (no citation), required {E: supports, F: None (unjudged)}.
T2 = Answer(False, [Sentence("borderline", {}), Sentence("required", {"E": "supports", "F": None})])


def test_accuracy_is_the_share_of_accurate_answers_judged():
    assert m.accuracy([T1, T2]) == 0.5
    assert m.accuracy([T1, T2, Answer(None, [])]) == 0.5  # an answer not judged yet does not count
    assert m.accuracy([Answer(None)]) is None


def test_precision_redundancy_harmfulness_per_question_then_averaged():
    # T1: 2/4 required, 1/4 unnecessary, 1/4 inappropriate. T2: 1/2 required, 0 unnecessary, 0 inappropriate.
    assert m.precision([T1, T2]) == pytest.approx((2 / 4 + 1 / 2) / 2)  # 0.5
    assert m.redundancy([T1, T2]) == pytest.approx((1 / 4 + 0) / 2)  # 0.125
    assert m.harmfulness([T1, T2]) == pytest.approx((1 / 4 + 0) / 2)  # 0.125
    # A missing answer (no sentences) scores 0 and lowers the mean: (0.5 + 0.5 + 0) / 3.
    assert m.precision([T1, T2, Answer(False, [])]) == pytest.approx(1 / 3)
    # Unjudged sentences are left out of an answer's share: 1 of the 1 judged is required.
    assert m.precision([Answer(None, [Sentence("required"), Sentence(None)])]) == 1.0


def test_citation_coverage_is_the_share_of_sentences_with_a_supporting_citation():
    # sentences with a "supports": T1 s1, s3; T2 s2 -> 3 of 6.
    assert m.citation_coverage([T1, T2]) == 0.5
    # Sentences judging has not decided yet are left out: no label and no citation, or a citation unjudged.
    # Left: T1's and T2's 6, and {X supports, Y unjudged} (covered): 4 of 7.
    pending = Answer(
        None, [Sentence(None, {}), Sentence(None, {"X": None}), Sentence(None, {"X": "supports", "Y": None})]
    )
    assert m.citation_coverage([T1, T2, pending]) == pytest.approx(4 / 7)


def test_citation_support_and_contradict_rates_over_all_judged_citations():
    # judged citations: A, B, C, A, D, E (F unjudged) = 6; supports: A, A, E = 3; contradicts: C = 1.
    assert m.citation_support_rate([T1, T2]) == 0.5
    assert m.citation_contradict_rate([T1, T2]) == pytest.approx(1 / 6)
    assert m.citation_support_rate([Answer(True, [Sentence("required", {})])]) is None


def test_document_precision_and_recall_with_recall_over_all_runs_relevant_pmids():
    # T1 cites A, B, C, D, all judged; relevant (supports/contradicts/neutral): A, B, C -> precision 3/4.
    # T2 cites E (supports) and F (unjudged): judged {E}, relevant {E} -> precision 1/1.
    assert m.document_precision([T1, T2]) == pytest.approx((3 / 4 + 1) / 2)
    # Other runs found G relevant for topic 1 and H for topic 2: unions {A,B,C,G} and {E,H}.
    assert m.document_recall([T1, T2], [{"A", "B", "C", "G"}, {"E", "H"}]) == pytest.approx((3 / 4 + 1 / 2) / 2)
    assert m.document_recall([T1], [set()]) is None


def test_partially_supports_makes_a_pmid_relevant_but_does_not_cover_a_sentence():
    answer = Answer(True, [Sentence("required", {"A": "partially_supports"})])
    assert m.relevant_pmids(answer) == {"A"}
    assert m.citation_coverage([answer]) == 0.0


def test_every_measure_is_a_named_definition_citing_the_seed():
    assert [x.name for x in m.MEASURES] == [
        "accuracy", "precision", "redundancy", "harmfulness", "citation_coverage", "citation_support_rate",
        "citation_contradict_rate", "document_precision", "document_recall",
    ]  # fmt: skip
    assert all(x.seed.startswith("002") and x.function is not None for x in m.MEASURES)
