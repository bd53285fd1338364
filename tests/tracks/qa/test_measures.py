"""Per-question QA measures against worked examples computed by hand from seeds 000_/001_ and SPEC-NOTES."""

import pytest

from tracks.qa import measures as qa

GC = "globally-correct"


# --- factoid: accuracy = globally correct / questions; NIL precision and recall -------------------------------


def _factoid_run():
    return [
        qa.factoid_score([GC], GC),  # right
        qa.factoid_score(["locally-correct"], GC),  # locally correct is not globally correct: wrong
        qa.factoid_score([], GC, nil_returned=True, answer_is_nil=True),  # correct NIL
        qa.factoid_score([], GC, nil_returned=True, answer_is_nil=False),  # NIL where an answer is known: wrong
        qa.factoid_score([], GC),  # empty response: wrong
    ]


def test_factoid_accuracy_counts_only_globally_correct():
    # 2 correct (q1, correct NIL) of 5 questions = 0.4
    assert qa.accuracy(_factoid_run()) == pytest.approx(2 / 5)


def test_nil_precision_and_recall():
    results = _factoid_run()
    # NIL returned twice, correct once: precision 1/2; 2 questions of the test set have answer NIL: recall 1/2
    assert qa.nil_precision(results) == pytest.approx(0.5)
    assert qa.nil_recall(results, nil_questions=2) == pytest.approx(0.5)


def test_nil_precision_undefined_when_no_nil_returned():
    results = [qa.factoid_score([GC], GC), qa.factoid_score(["incorrect"], GC)]
    assert qa.nil_precision(results) is None  # shown as "–"
    assert qa.nil_recall(results, nil_questions=16) == 0.0
    assert qa.nil_recall(results, nil_questions=0) is None


def test_answer_is_nil_rule():
    assert qa.answer_is_nil(fully_judged=True) is True  # everything judged, no correct answer known
    assert qa.answer_is_nil(fully_judged=True, known_answer=True) is False  # a known answer beats NIL
    assert qa.answer_is_nil(fully_judged=False) is False  # not before judging is complete
    assert qa.answer_is_nil(explicit=True, known_answer=True) is True  # the organizer's flag wins


# --- list: IP = D/N, IR = D/S, F = 2 IP IR / (IP + IR) ---------------------------------------------------------


def test_list_score_classes_count_once_and_assessor_answers_in_S():
    # Final answer set: classes a, b, c from runs plus d found by the assessor -> S = 4.
    s = len(qa.final_answer_set(["a", "a", "b", "c", "d", None]))
    assert s == 4
    # The run returned a twice, b once, one incorrect and one non-exact instance: N = 5, D = 2.
    r = qa.list_score(["a", "a", "b", None, None], s)
    # IP = 2/5 = 0.4; IR = 2/4 = 0.5; F = 2*0.4*0.5/(0.4+0.5) = 0.4/0.9 = 0.4444
    assert (r.distinct, r.instances, r.answer_set) == (2, 5, 4)
    assert r.ip == pytest.approx(0.4)
    assert r.ir == pytest.approx(0.5)
    assert r.f == pytest.approx(0.4 / 0.9)


def test_list_empty_response_scores_zero():
    r = qa.list_score([], 4)
    assert (r.ip, r.ir, r.f) == (0.0, 0.0, 0.0)


def test_list_no_correct_instance_scores_zero():
    assert qa.list_score([None, None], 3).f == 0.0  # D = 0 -> F = 0


def test_list_empty_final_answer_set_is_left_out():
    assert qa.list_score([None], 0).f is None


# --- nuggets: binary and pyramid ------------------------------------------------------------------------------


def test_binary_nugget_f_with_length_penalty_and_repeated_nugget():
    weights = qa.binary_weights({1: "vital", 2: "vital", 3: "okay", 4: "vital"})  # R = 3 vital
    # Nugget 1 is held by two strings of the run: it counts once. Matched {1, 3}: r = 1 vital.
    # length = 250 non-white-space chars, allowance = 100 * 2 matched = 200
    # P = 1 - (250 - 200)/250 = 0.8; R = 1/3; F = 10*0.8*(1/3) / (9*0.8 + 1/3) = (8/3)/(22.6/3) = 8/22.6
    r = qa.nugget_score([1, 1, 3], weights, length=250)
    assert r.matched == 2 and r.allowance == 200
    assert r.precision == pytest.approx(0.8)
    assert r.recall == pytest.approx(1 / 3)
    assert r.f == pytest.approx(8 / 22.6)


def test_pyramid_weights_and_f():
    # Vital votes of nine vote sets: 9, 8, 2, 0 -> weights 1, 8/9, 2/9, 0 (heaviest nugget weighs 1)
    weights = qa.pyramid_weights({1: 9, 2: 8, 3: 2, 4: 0})
    assert weights == pytest.approx({1: 1.0, 2: 8 / 9, 3: 2 / 9, 4: 0.0})
    # Matched {1, 3, 4}: r = 1 + 2/9 = 11/9; R = 1 + 8/9 + 2/9 = 19/9 -> recall = 11/19
    # allowance counts every matched nugget, weight 0 included: 300 > length 250 -> P = 1
    # F = 10 * 1 * (11/19) / (9 * 1 + 11/19) = 110 / 182
    r = qa.nugget_score([1, 3, 4], weights, length=250)
    assert r.allowance == 300 and r.precision == 1.0
    assert r.recall == pytest.approx(11 / 19)
    assert r.f == pytest.approx(110 / 182)


def test_pyramid_paper_weights_shape():
    # Lin & Demner-Fushman's example weights 1.0 .9 .8 .7 .2 .1 .1 .1 0 come from counts 10 9 8 7 2 1 1 1 0
    counts = dict(enumerate([10, 9, 8, 7, 2, 1, 1, 1, 0]))
    assert list(qa.pyramid_weights(counts).values()) == pytest.approx([1, 0.9, 0.8, 0.7, 0.2, 0.1, 0.1, 0.1, 0])


def test_no_vital_nugget_scores_zero():
    binary = qa.binary_weights({1: "okay", 2: "okay"})
    assert qa.nugget_score([1, 2], binary, length=50).f == 0.0  # R = 0
    assert qa.nugget_score([1], qa.pyramid_weights({1: 0, 2: 0}), length=50).f == 0.0


def test_empty_response_scores_zero():
    weights = qa.binary_weights({1: "vital"})
    r = qa.nugget_score([], weights, length=0)
    assert r.f == 0.0 and r.recall == 0.0


def test_non_white_length():
    assert qa.non_white_length(["a b\tc", " de\n"]) == 5


# --- ciQA recall by length ------------------------------------------------------------------------------------


def test_recall_points_spec_example():
    weights = {1: 1.0, 2: 1.0}
    strings = [("x" * 105, [1]), ("y" * 130, [2])]  # 105 chars -> recall .5; 235 chars -> recall 1.0
    assert qa.recall_points(strings, weights) == [(150, 0.5), (250, 1.0)]


def test_recall_by_length_averages_and_carries_forward():
    a = [(150, 0.5), (250, 1.0)]
    b = [(50, 0.25)]
    # at 50: (0 + .25)/2; 100: same; 150: (.5 + .25)/2; 200: carried; 250: (1 + .25)/2
    curve = qa.recall_by_length([a, b])
    assert [x for x, _ in curve] == [50, 100, 150, 200, 250]
    assert [y for _, y in curve] == pytest.approx([0.125, 0.125, 0.375, 0.375, 0.625])
