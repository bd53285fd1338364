"""The paired two-sided randomization (permutation) test of two runs over their common series (Smucker, Allan and
Carterette, "A comparison of statistical significance tests for information retrieval evaluation", CIKM 2007).

Under the null hypothesis the two runs are the same system, so each series' pair of scores could have come out
either way round: the sign of each per-series difference is flipped at random. The test statistic is the mean
difference; the p-value is the share of sign patterns whose |mean difference| is at least the observed one.

- Exact when 2^n <= the number of permutations asked for (n common series): every sign pattern is enumerated once
  and p = count / 2^n (the unflipped pattern, the observation itself, is one of them).
- Otherwise `permutations` patterns are drawn (numpy's default_rng(seed), so a seed reproduces the p-value), and
  p = (count + 1) / (permutations + 1): the observation is counted as one of the patterns. This estimator (Phipson
  and Smyth 2010) is never 0 and never below the true p-value on average, so a test at level alpha keeps its
  level; the plain count / permutations can report p = 0 and reject too often. It is also scipy's
  `permutation_test` estimator for a sampled null distribution.

"At least" is taken with a tolerance of 1e-12 of the sum of |differences|, so a sign pattern whose sum equals the
observed one mathematically is counted though floating-point addition in another order differs in the last bits.
No correction for multiple comparisons: each pair's p-value is its own (the caller says so). No Django here.
"""

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

DEFAULT_PERMUTATIONS = 10_000
DEFAULT_SEED = 0
MAX_PERMUTATIONS = 100_000
_TOLERANCE = 1e-12
_CELLS = 1 << 22  # null statistics computed at once (permutations x pairs): 32 MB of float64


@dataclass(frozen=True)
class PairTest:
    a: str  # the run listed first (higher mean score over all its series)
    b: str
    n_series: int  # the series both runs have a score for
    mean_difference: float  # mean over those series of a's score - b's score
    p: float
    exact: bool  # every sign pattern enumerated (2^n_series <= permutations)


@dataclass(frozen=True)
class Randomization:
    permutations: int
    seed: int
    pairs: list[PairTest]  # every pair of runs with a common series, in the order of the runs (best first)


def _signs(n: int, permutations: int, seed: int) -> tuple[npt.NDArray[np.float64], bool]:
    """The sign patterns (rows of +1/-1, one column per series) and whether they are all 2^n of them."""
    if n < 63 and 2**n <= permutations:
        codes = np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)
        return ((codes & 1) * 2 - 1).astype(np.float64), True
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, size=(permutations, n), dtype=np.int8).astype(np.float64) * 2 - 1, False


def _p_values(diffs: npt.NDArray[np.float64], permutations: int, seed: int) -> tuple[list[float], bool]:
    """p-values of the rows of `diffs` (pairs x series: per-series differences), all with the same sign patterns,
    so a pair's p-value depends on its differences, the permutations and the seed only."""
    signs, exact = _signs(diffs.shape[1], permutations, seed)
    observed = np.abs(diffs.sum(axis=1))
    threshold = observed - _TOLERANCE * np.abs(diffs).sum(axis=1)
    counts = np.zeros(len(diffs), dtype=np.int64)
    step = max(1, _CELLS // len(signs))
    for start in range(0, len(diffs), step):
        block = slice(start, start + step)
        null = np.abs(signs @ diffs[block].T)  # sums, not means: the same n divides both sides
        counts[block] = (null >= threshold[block]).sum(axis=0)
    if exact:
        return [float(c) / len(signs) for c in counts], True
    return [(float(c) + 1) / (permutations + 1) for c in counts], False


def paired_randomization(
    a: Sequence[float], b: Sequence[float], permutations: int = DEFAULT_PERMUTATIONS, seed: int = DEFAULT_SEED
) -> tuple[float, bool]:
    """(p-value, exact) of the two-sided test of a's and b's scores, paired by position (one per series)."""
    if len(a) != len(b) or not a:
        raise ValueError("paired scores need the same, non-zero number of series")
    diffs = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    (p,), exact = _p_values(diffs[None, :], permutations, seed)
    return p, exact


def randomization_pairs(
    scores: Sequence[tuple[str, Any, float | None]],
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
) -> Randomization | None:
    """The test for every pair of runs. `scores` is [(run, series, per-series score)] (None scores are left out).

    Runs are ordered by mean score, best first (ties: by name), as the Tukey letter table lists them; each pair is
    tested over the series both runs have a score for (pairs with none are left out). None for fewer than two runs.
    """
    if not 1 <= permutations <= MAX_PERMUTATIONS:
        raise ValueError(f"permutations must be from 1 to {MAX_PERMUTATIONS}")
    by_run: dict[str, dict[Any, float]] = {}
    for run, series, score in scores:
        if score is not None:
            by_run.setdefault(str(run), {})[series] = float(score)
    if len(by_run) < 2:
        return None
    runs = sorted(sorted(by_run), key=lambda r: -sum(by_run[r].values()) / len(by_run[r]))
    # pairs grouped by their common series count n: one set of sign patterns per n
    groups: dict[int, list[tuple[str, str, list[float]]]] = {}
    for a, b in itertools.combinations(runs, 2):
        common = [s for s in by_run[a] if s in by_run[b]]
        if common:
            diffs = [by_run[a][s] - by_run[b][s] for s in sorted(common, key=str)]
            groups.setdefault(len(common), []).append((a, b, diffs))
    tested: dict[tuple[str, str], PairTest] = {}
    for n, pairs in groups.items():
        matrix = np.array([d for _, _, d in pairs], dtype=np.float64)
        p_values, exact = _p_values(matrix, permutations, seed)
        for (a, b, _), row, p in zip(pairs, matrix, p_values, strict=True):
            tested[a, b] = PairTest(a, b, n, float(row.mean()), p, exact)
    pairs_in_order = [tested[pair] for pair in itertools.combinations(runs, 2) if pair in tested]
    return Randomization(permutations=permutations, seed=seed, pairs=pairs_in_order)
