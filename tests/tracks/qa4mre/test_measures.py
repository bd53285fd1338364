"""c@1, accuracy over answered questions and the self-validation diagnostic, on examples worked by hand."""

import pytest

from tracks.qa4mre.measures import Outcome, best_median_worst, count, grouped, measures, outcome

GOLD = {"q1": 2, "q2": 4, "q3": 1, "q4": 5, "q5": 3, "q6": 3, "q7": 1, "q8": None, "q9": 2, "q10": 4}


def outcomes(responses):
    """responses: question -> (answered, a_id)."""
    return {q: outcome(answered, a_id, GOLD[q]) for q, (answered, a_id) in responses.items()}


def test_outcome_of_each_response_kind():
    assert outcome(True, 2, 2) == Outcome(answered=True, right=True)
    assert outcome(True, 3, 2) == Outcome(answered=True, right=False)
    assert outcome(True, 3, None) == Outcome(answered=True, right=False)  # gold marks no answer: cannot be right
    assert outcome(False, None, 2) == Outcome(answered=False, right=False)
    # answered="NO" with a candidate is unanswered; the candidate is kept apart for the diagnostic
    assert outcome(False, 2, 2) == Outcome(answered=False, right=False, candidate=True, candidate_right=True)
    assert outcome(False, 1, 2) == Outcome(answered=False, right=False, candidate=True, candidate_right=False)


def test_run_answering_nothing():
    # n = 10, n_R = 0, n_U = 10: c@1 = (0 + 10 * 0 / 10) / 10 = 0; nothing answered, no candidate
    result = measures(outcomes({q: (False, None) for q in GOLD}).values())
    assert result == {"c_at_1": 0.0, "accuracy_answered": None, "self_validation": None}


def test_run_answering_all():
    # answers 2,4,1,1,3 | 3,2,5,2,4: right q1 q2 q3 q5 q6 q9 q10 = 7, wrong q4 q7 q8 (q8 has no gold answer)
    # c@1 = (7 + 0) / 10 = 0.7 = accuracy (c@1 equals accuracy when every question is answered)
    chosen = [2, 4, 1, 1, 3, 3, 2, 5, 2, 4]
    result = measures(outcomes({q: (True, a) for q, a in zip(GOLD, chosen)}).values())
    assert result["c_at_1"] == pytest.approx(0.7)
    assert result["accuracy_answered"] == pytest.approx(0.7)
    assert result["self_validation"] is None


def test_no_with_and_without_candidates():
    # q1 YES 2 right; q2 NO; q3 NO cand 1 (right); q4 YES 5 right; q5 NO cand 2 (wrong)
    # q6 YES 1 wrong; q7 YES 1 right; q8 NO; q9 NO cand 2 (right); q10 YES 4 right
    responses = {
        "q1": (True, 2),
        "q2": (False, None),
        "q3": (False, 1),
        "q4": (True, 5),
        "q5": (False, 2),
        "q6": (True, 1),
        "q7": (True, 1),
        "q8": (False, None),
        "q9": (False, 2),
        "q10": (True, 4),
    }
    by_q = outcomes(responses)
    counts = count(by_q.values())
    assert (counts.n, counts.right, counts.wrong, counts.unanswered) == (10, 4, 1, 5)
    assert (counts.candidates, counts.candidates_right) == (3, 2)
    # n_R = 4, n_U = 5 (the three candidates count as unanswered): c@1 = (4 + 5 * 4/10) / 10 = 0.6
    result = measures(by_q.values())
    assert result["c_at_1"] == pytest.approx(0.6)
    assert result["accuracy_answered"] == pytest.approx(4 / 5)
    assert result["self_validation"] == pytest.approx(2 / 3)
    # had the candidates been answered, 2 more right and 1 more wrong: c@1 would be (6 + 2*6/10)/10 = 0.72;
    # the measure must not give them credit
    assert result["c_at_1"] != pytest.approx(0.72)

    # per reading test: test 1 = q1..q5, test 2 = q6..q10
    groups = {"1.1": ["q1", "q2", "q3", "q4", "q5"], "1.2": ["q6", "q7", "q8", "q9", "q10"], "1": list(GOLD)}
    per_group = grouped(by_q, groups)
    # test 1: n_R = 2, n_U = 3: (2 + 3 * 2/5) / 5 = 3.2 / 5 = 0.64; accuracy 2/2; candidates 1 of 2 right
    assert per_group["1.1"]["c_at_1"] == pytest.approx(0.64)
    assert per_group["1.1"]["accuracy_answered"] == pytest.approx(1.0)
    assert per_group["1.1"]["self_validation"] == pytest.approx(0.5)
    # test 2: n_R = 2, n_U = 2: (2 + 2 * 2/5) / 5 = 2.8 / 5 = 0.56; accuracy 2/3; candidate 1 of 1 right
    assert per_group["1.2"]["c_at_1"] == pytest.approx(0.56)
    assert per_group["1.2"]["accuracy_answered"] == pytest.approx(2 / 3)
    assert per_group["1.2"]["self_validation"] == pytest.approx(1.0)
    assert per_group["1"] == result


def test_missing_question_counts_as_unanswered():
    # only q1 given (right): n = 5, n_R = 1, n_U = 4: (1 + 4/5) / 5 = 0.36
    per_group = grouped(outcomes({"q1": (True, 2)}), {"t": ["q1", "q2", "q3", "q4", "q5"]})
    assert per_group["t"]["c_at_1"] == pytest.approx(0.36)


def test_empty_set_is_undefined():
    assert measures([]) == {"c_at_1": None, "accuracy_answered": None, "self_validation": None}


def test_best_median_worst():
    assert best_median_worst([0.8, None, 0.0, 0.64]) == (0.8, 0.64, 0.0)
    assert best_median_worst([0.5, 0.7]) == (0.7, pytest.approx(0.6), 0.5)
    assert best_median_worst([None]) == (None, None, None)


def test_track_declares_every_stored_measure():
    """Track.measures names what the scorer stores (besides the shared "score"), with the labels tables show."""
    from core.tracks import get_track
    from scoring.registry import measure_label

    declared = get_track("qa4mre-2012").measures
    assert [m.name for m in declared] == ["c_at_1", "accuracy_answered", "self_validation"]
    assert all(m.function is not None and m.seed.startswith("003 ") for m in declared)
    assert [measure_label(m.name, "qa4mre-2012") for m in declared] == [
        "c@1",
        "Accuracy over answered",
        "Self-validation",
    ]
