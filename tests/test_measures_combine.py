"""Per-series combined scores and run scores, computed by hand (seed 001_ section 2.4, seed 000_)."""

import pytest

from scoring.measures import combine


def test_trec2007_thirds():
    values = [
        ("FACTOID", 1.0),
        ("FACTOID", 0.0),
        ("FACTOID", 1.0),
        ("FACTOID", 0.0),
        ("LIST", 0.4 / 0.9),
        ("LIST", None),  # the second list question has an empty answer set
        ("OTHER", 110 / 182),
    ]
    s = combine.series_score(values, combine.TREC2007_WEIGHTS)
    # factoid .5, list .4444 (the None is left out), other .6044 -> (.5 + .4444 + .6044) / 3
    assert s.value == pytest.approx((0.5 + 0.4 / 0.9 + 110 / 182) / 3)
    assert s.left_out == 1 and s.missing == ()


def test_tac2008_halves():
    s = combine.series_score([("RIGIDLIST", 0.4), ("RIGIDLIST", 0.6), ("SQUISHYLIST", 0.3)], combine.TAC2008_WEIGHTS)
    # rigid (.4+.6)/2 = .5, squishy .3 -> .5*.5 + .5*.3 = .4
    assert s.value == pytest.approx(0.4)


def test_trec2004_weighting_setting():
    s = combine.series_score([("FACTOID", 0.5), ("LIST", 0.4), ("OTHER", 0.2)], combine.TREC2004_WEIGHTS)
    # .5*.5 + .25*.4 + .25*.2 = .25 + .1 + .05
    assert s.value == pytest.approx(0.4)


def test_missing_type_averages_present_types_and_flags():
    s = combine.series_score([("FACTOID", 0.6), ("OTHER", 0.2)], combine.TREC2007_WEIGHTS)
    assert s.value == pytest.approx(0.4)  # (.6 + .2) / 2
    assert s.missing == ("LIST",)


def test_series_with_nothing_scored():
    s = combine.series_score([("LIST", None)], combine.TREC2007_WEIGHTS)
    assert s.value is None


def test_run_score_is_mean_of_series_scores():
    assert combine.run_score([0.4, 0.6, None, 0.2]) == pytest.approx(0.4)
    assert combine.run_score([]) is None


def test_component_is_mean_over_questions_not_series():
    s1 = combine.series_score(
        [("FACTOID", 1), ("FACTOID", 0), ("FACTOID", 1), ("FACTOID", 0)], combine.TREC2007_WEIGHTS
    )
    s2 = combine.series_score([("FACTOID", 1)], combine.TREC2007_WEIGHTS)
    # 3 right of 5 questions = .6 (the mean of series means would be .75)
    assert combine.component_means([s1, s2])["FACTOID"] == pytest.approx(0.6)


def test_spread():
    sp = combine.spread([0.2, None, 0.9, 0.5, 0.4])
    assert (sp.best, sp.median, sp.worst) == (0.9, pytest.approx(0.45), 0.2)
