"""The paired two-sided randomization test, against a hand-enumerated case and scipy's permutation_test."""

import numpy as np
import pytest
from scipy.stats import permutation_test

from scoring.measures.randomization import paired_randomization, randomization_pairs


def test_three_series_enumerated_by_hand():
    # differences -.1, .2, .1 (observed sum .2); the 8 sign patterns give sums
    # +++ .2, ++- 0, +-+ -.2, +-- -.4, -++ .4, -+- .2, --+ 0, --- -.2: six have |sum| >= .2
    a, b = [0.3, 0.5, 0.4], [0.4, 0.3, 0.3]
    assert paired_randomization(a, b) == (pytest.approx(6 / 8), True)
    # differences .1, .2, .1 (sum .4): the other six patterns sum to ±.2 or 0, so only +++ and --- reach it
    assert paired_randomization([0.4, 0.5, 0.4], [0.3, 0.3, 0.3]) == (pytest.approx(2 / 8), True)


def test_identical_runs_have_p_one():
    assert paired_randomization([0.2, 0.4, 0.6, 0.1], [0.2, 0.4, 0.6, 0.1]) == (1.0, True)


def test_sampled_p_agrees_with_scipy_and_reproduces():
    rng = np.random.default_rng(7)
    x = rng.random(40)
    y = x - 0.04 + rng.normal(0, 0.15, 40)  # a p-value well inside (0, 1), where sampling error shows
    p, exact = paired_randomization(list(x), list(y), permutations=10_000, seed=3)
    assert not exact  # 2^40 > 10,000: sampled
    ref = permutation_test(
        (x, y),
        lambda u, v, axis: np.mean(u - v, axis=axis),
        permutation_type="samples",
        alternative="two-sided",
        n_resamples=100_000,
        vectorized=True,
        random_state=11,
    ).pvalue
    assert 0.01 < ref < 0.9
    # binomial standard error of 10,000 draws, plus scipy's own: 4 sigma
    assert abs(p - ref) < 4 * np.sqrt(ref * (1 - ref) * (1 / 10_000 + 1 / 100_000))
    assert paired_randomization(list(x), list(y), permutations=10_000, seed=3)[0] == p
    assert paired_randomization(list(x), list(y), permutations=10_000, seed=4)[0] != p


def test_exact_agrees_with_scipy_exact():
    rng = np.random.default_rng(5)
    x, y = rng.random(10), rng.random(10)
    p, exact = paired_randomization(list(x), list(y), permutations=1024)  # 2^10 = 1024: every pattern
    ref = permutation_test(
        (x, y),
        lambda u, v, axis: np.mean(u - v, axis=axis),
        permutation_type="samples",
        alternative="two-sided",
        n_resamples=10_000,
        vectorized=True,
    )
    assert exact and p == pytest.approx(ref.pvalue)
    # one fewer permutation than patterns: sampled, with the observation counted
    p_sampled, exact = paired_randomization(list(x), list(y), permutations=1023)
    assert not exact and p_sampled * 1024 == pytest.approx(round(p_sampled * 1024))


def test_sampled_p_is_never_zero():
    p, exact = paired_randomization([1.0] * 30, [0.0] * 30, permutations=999)
    assert not exact and p == pytest.approx(1 / 1000)


def test_pairs_best_first_over_common_series():
    rows = [("B", "s1", 0.5), ("B", "s2", 0.5), ("B", "s3", 0.5)]
    rows += [("A", "s1", 0.9), ("A", "s2", 0.8), ("A", "s3", 0.7)]
    rows += [("C", "s1", 0.1), ("C", "s2", None), ("C", "s3", 0.2)]
    test = randomization_pairs(rows, permutations=1000, seed=0)
    assert (test.permutations, test.seed) == (1000, 0)
    assert [(t.a, t.b, t.n_series) for t in test.pairs] == [("A", "B", 3), ("A", "C", 2), ("B", "C", 2)]
    ab = test.pairs[0]
    assert ab.mean_difference == pytest.approx(0.3) and ab.exact
    assert ab.p == pytest.approx(2 / 8)  # every difference positive: only +++ and --- reach it
    assert ab.p == paired_randomization([0.9, 0.8, 0.7], [0.5, 0.5, 0.5], permutations=1000)[0]
    assert test.pairs[1].mean_difference == pytest.approx((0.8 + 0.5) / 2)
    assert randomization_pairs([("A", "s1", 0.3)]) is None


def test_bounds():
    with pytest.raises(ValueError):
        randomization_pairs([("A", "s", 0.1), ("B", "s", 0.2)], permutations=0)
    with pytest.raises(ValueError):
        randomization_pairs([("A", "s", 0.1), ("B", "s", 0.2)], permutations=100_001)
    with pytest.raises(ValueError):
        paired_randomization([0.1], [0.1, 0.2])
