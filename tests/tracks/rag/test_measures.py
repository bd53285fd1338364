"""TREC RAG measures (SPEC-NOTES "TREC RAG") against examples worked by hand here."""

import math

import pytest

from tracks.rag import measures as m

# A topic with 5 nuggets, 3 vital: V1 support, V2 partial_support, V3 not_support; O1 support, O2 partial_support.
ANSWER = [
    ("vital", "support"),
    ("vital", "partial_support"),
    ("vital", "not_support"),
    ("okay", "support"),
    ("okay", "partial_support"),
]


def test_nugget_scores_of_one_answer():
    # All: (1 + ½ + 0 + 1 + ½) / 5 = 3/5. Vital: (1 + ½ + 0) / 3 = ½.
    assert m.nugget_all(ANSWER) == pytest.approx(0.6)
    assert m.nugget_vital(ANSWER) == pytest.approx(0.5)
    # Strict: only support counts. All: 2/5; Vital: 1/3.
    assert m.nugget_strict_all(ANSWER) == pytest.approx(0.4)
    assert m.nugget_strict_vital(ANSWER) == pytest.approx(1 / 3)


def test_nugget_scores_of_an_empty_set_are_zero_and_unassigned_answers_are_left_out():
    only_okay = [("okay", "support")]
    assert m.nugget_vital(only_okay) == 0.0  # no vital nugget: "0 when the set is empty"
    assert m.nugget_strict_vital(only_okay) == 0.0
    assert m.nugget_all(only_okay) == 1.0
    assert m.nugget_all([]) == 0.0
    assert m.nugget_all(None) is None
    # a run: the mean over its topics of the per-answer scores, unassigned answers left out: (3/5 + 1) / 2
    assert m.mean([m.nugget_all(ANSWER), m.nugget_all(only_okay), m.nugget_all(None)]) == pytest.approx(0.8)


# An answer of 3 sentences: s1 cites A (full) and B (partial); s2 cites C (no support); s3 cites nothing.
SENTENCES = [{"A": "full_support", "B": "partial_support"}, {"C": "no_support"}, {}]


def test_support_precision_is_the_mean_weight_of_the_cited_pairs():
    # pairs: A 1, B ½, C 0 -> 1.5 / 3 = ½
    assert m.support_precision(SENTENCES) == pytest.approx(0.5)
    # an unjudged pair is left out: A 1, B ½ -> 0.75
    assert m.support_precision([{"A": "full_support", "B": "partial_support"}, {"C": None}]) == pytest.approx(0.75)
    assert m.support_precision([{}, {}]) == 0.0  # nothing cited: nothing supported


def test_support_recall_takes_each_sentences_best_citation_and_zero_when_uncited():
    # s1 max(1, ½) = 1; s2 0; s3 uncited 0 -> 1/3
    assert m.support_recall(SENTENCES) == pytest.approx(1 / 3)
    # s1 {partial, unjudged}: the unjudged one could still be full -> left out; s2 {full, unjudged} -> 1
    assert m.support_recall([{"A": "partial_support", "B": None}, {"C": "full_support", "D": None}]) == 1.0
    assert m.support_recall([{"A": "partial_support", "B": "no_support"}]) == 0.5


def test_ndcg_at_20_with_graded_gains():
    grades = {"a": 3, "b": 2, "c": 0, "d": 1}
    # ranking c, a, b: DCG = 0/log2(2) + 3/log2(3) + 2/log2(4) = 3/1.58496 + 1 = 2.89279
    # ideal a, b, d: 3/1 + 2/log2(3) + 1/log2(4) = 3 + 1.26186 + 0.5 = 4.76186
    expected = (3 / math.log2(3) + 1) / (3 + 2 / math.log2(3) + 0.5)
    assert m.ndcg(["c", "a", "b"], grades) == pytest.approx(expected)
    assert m.ndcg(["c", "a", "b"], grades) == pytest.approx(0.60749, abs=1e-5)
    assert m.ndcg(["a", "b", "d"], grades) == pytest.approx(1.0)
    assert m.ndcg(["x"], {"c": 0}) is None  # no relevant segment judged
    # only the top `depth` count: a at rank 2 is cut at depth 1
    assert m.ndcg(["c", "a"], {"a": 3}, depth=1) == 0.0


def test_every_measure_cites_spec_notes():
    assert {x.name for x in m.MEASURES} == {
        "nugget_all", "nugget_vital", "nugget_strict_all", "nugget_strict_vital",
        "support_precision", "support_recall", "ndcg_cut_20",
    }  # fmt: skip
    assert all("SPEC-NOTES" in x.seed and x.function for x in m.MEASURES)
