"""The ranking statistics (scoring.measures.ranking) on worked examples computed by hand, and τ against scipy."""

import math
import random

import pytest
from scipy.stats import kendalltau

from scoring.measures.ranking import kendall_tau, rank_intervals, ranks, tau_ap, top_k_overlap

TRUTH = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}  # A > B > C > D
SWAP_TOP = {"A": 3.0, "B": 4.0, "C": 2.0, "D": 1.0}  # B A C D
SWAP_MIDDLE = {"A": 4.0, "B": 2.0, "C": 3.0, "D": 1.0}  # A C B D
SWAP_BOTTOM = {"A": 4.0, "B": 3.0, "C": 1.0, "D": 2.0}  # A B D C


def test_tau_one_swap_of_six_pairs():
    # 5 concordant, 1 discordant pair of 6: (5 - 1) / 6
    for swapped in (SWAP_TOP, SWAP_MIDDLE, SWAP_BOTTOM):
        assert kendall_tau(TRUTH, swapped) == pytest.approx(2 / 3)
    assert kendall_tau(TRUTH, TRUTH) == 1.0
    assert kendall_tau(TRUTH, {k: -v for k, v in TRUTH.items()}) == -1.0


def test_tau_ap_weighs_a_swap_at_the_top_more():
    # estimate B A C D: C(2) = 0 (B is not above A in truth), C(3) = 2 of 2, C(4) = 3 of 3:
    # 2/3 * (0 + 1 + 1) - 1 = 1/3
    assert tau_ap(TRUTH, SWAP_TOP) == pytest.approx(1 / 3)
    # A C B D: 1/1 + 1/2 (only A is above B in truth) + 3/3 = 2.5 -> 2/3 * 2.5 - 1 = 2/3
    assert tau_ap(TRUTH, SWAP_MIDDLE) == pytest.approx(2 / 3)
    # A B D C: 1 + 2/2 + 2/3 (D is not above C in truth) -> 2/3 * 8/3 - 1 = 7/9
    assert tau_ap(TRUTH, SWAP_BOTTOM) == pytest.approx(7 / 9)
    assert tau_ap(TRUTH, TRUTH) == 1.0
    assert tau_ap(TRUTH, {k: -v for k, v in TRUTH.items()}) == -1.0


def test_tau_with_a_tie_is_kendalls_tau_b():
    tied = {"A": 3.0, "B": 2.0, "C": 2.0, "D": 1.0}  # B and C tied: 5 concordant pairs, 1 tied in one ranking
    assert kendall_tau(tied, TRUTH) == pytest.approx(5 / math.sqrt(5 * 6))


def test_tau_agrees_with_scipy():
    rng = random.Random(29)
    for n in (2, 3, 7, 20, 51):
        for _ in range(20):
            runs = [f"run{i}" for i in range(n)]
            a = {r: float(rng.randint(0, 6)) for r in runs}  # small range: ties on purpose
            b = {r: float(rng.randint(0, 6)) for r in runs}
            expected = kendalltau([a[r] for r in runs], [b[r] for r in runs]).statistic
            got = kendall_tau(a, b)
            if math.isnan(expected):
                assert got is None
            else:
                assert got == pytest.approx(expected)


def test_only_runs_both_rankings_score_count():
    a = {"A": 1.0, "B": 2.0, "C": None, "D": 0.5}
    b = {"A": 1.0, "B": 2.0, "C": 3.0}
    assert kendall_tau(a, b) == 1.0  # A and B only
    assert kendall_tau({"A": 1.0}, {"A": 1.0}) is None
    assert tau_ap({"A": 1.0}, {"A": 2.0}) is None


def test_top_k_overlap():
    assert top_k_overlap(TRUTH, SWAP_TOP, 2) == 1.0  # {A, B} both
    assert top_k_overlap(TRUTH, SWAP_MIDDLE, 2) == 0.5  # {A, B} against {A, C}
    assert top_k_overlap(TRUTH, SWAP_BOTTOM, 3) == pytest.approx(2 / 3)  # {A, B, C} against {A, B, D}
    assert top_k_overlap(TRUTH, SWAP_TOP, 5) is None  # fewer runs than k


def test_ranks_and_intervals():
    assert ranks({"A": 0.5, "B": 0.7, "C": 0.5, "D": 0.1}) == {"B": 1, "A": 2, "C": 2, "D": 4}
    assert rank_intervals([TRUTH, SWAP_TOP, SWAP_BOTTOM]) == {
        "A": (1, 2),
        "B": (1, 2),
        "C": (3, 4),
        "D": (3, 4),
    }
