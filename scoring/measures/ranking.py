"""How alike two rankings of the same runs are, and how far a run's rank moves (issue 29). Pure Python, no Django.

A ranking is given as {run: score} (higher is better; None: no score, left out). Every statistic compares the runs
both rankings score. Sources in docs/reference.md ("Ranking correlation and robustness").
"""

import math
from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

from scoring.measures.definition import Measure

K = TypeVar("K", bound=Hashable)
Scores = Mapping[K, float | None]


def _common(a: "Scores[K]", b: "Scores[K]") -> list[K]:
    """The runs both rankings score, in a fixed order (sorted by their text) so ties break the same every time."""
    return sorted((k for k in a if k in b and a[k] is not None and b[k] is not None), key=str)


def order(scores: "Scores[K]") -> list[K]:
    """Runs best first; equal scores in the order of their text (a fixed tie-break)."""
    keys = sorted((k for k, v in scores.items() if v is not None), key=str)
    return sorted(keys, key=lambda k: -float(scores[k]))  # type: ignore[arg-type]  # (None left out above)


def ranks(scores: "Scores[K]") -> dict[K, int]:
    """{run: rank}, 1 the best; equal scores share the best of their ranks ("1224" competition ranking)."""
    out: dict[K, int] = {}
    previous: tuple[float, int] | None = None  # (score, its rank)
    for position, k in enumerate(order(scores), start=1):
        value = float(scores[k])  # type: ignore[arg-type]
        rank = previous[1] if previous is not None and previous[0] == value else position
        out[k] = rank
        previous = (value, rank)
    return out


def kendall_tau(a: "Scores[K]", b: "Scores[K]") -> float | None:
    """Kendall's τ between two rankings of the runs both score: (concordant − discordant pairs) over the number
    of pairs, with Kendall's correction for ties (τ_b): (C − D) / sqrt((n0 − t_a)(n0 − t_b)), n0 = n(n−1)/2 and
    t_a, t_b the pairs tied in one ranking. Without ties it is Kendall's (1938) τ. None for fewer than two runs or
    when one ranking ties every pair."""
    keys = _common(a, b)
    concordant = discordant = tied_a = tied_b = 0
    for i, x in enumerate(keys):
        for y in keys[i + 1 :]:
            da = float(a[x]) - float(a[y])  # type: ignore[arg-type]
            db = float(b[x]) - float(b[y])  # type: ignore[arg-type]
            if da == 0 or db == 0:
                tied_a += da == 0
                tied_b += db == 0
            elif (da > 0) == (db > 0):
                concordant += 1
            else:
                discordant += 1
    pairs = len(keys) * (len(keys) - 1) // 2
    denominator = math.sqrt((pairs - tied_a) * (pairs - tied_b))
    if pairs == 0 or denominator == 0:
        return None
    return (concordant - discordant) / denominator


def tau_ap(truth: "Scores[K]", estimate: "Scores[K]") -> float | None:
    """Yilmaz, Aslam & Robertson's (2008) AP rank correlation of `estimate` against `truth`, which weighs swaps
    near the top more: walking `estimate` best first, C(i) counts the runs above the i-th that `truth` also puts
    above it; τ_AP = 2/(N−1) · Σ_{i=2..N} C(i)/(i−1) − 1. Not symmetric. Ties (not in the paper): `estimate`'s
    break by the runs' text, and a pair tied in `truth` counts one half. None for fewer than two runs."""
    keys = set(_common(truth, estimate))
    walk = [k for k in order(estimate) if k in keys]
    n = len(walk)
    if n < 2:
        return None
    total = 0.0
    for i in range(1, n):
        here = float(truth[walk[i]])  # type: ignore[arg-type]
        above = [float(truth[k]) for k in walk[:i]]  # type: ignore[arg-type]
        correct = sum(1.0 if t > here else 0.5 if t == here else 0.0 for t in above)
        total += correct / i
    return 2.0 * total / (n - 1) - 1.0


def top_k_overlap(a: "Scores[K]", b: "Scores[K]", k: int) -> float | None:
    """The share of the k best runs of `a` that are also among the k best of `b` (over the runs both score;
    ties at the k-th place broken by the runs' text). None when fewer than k runs are scored by both."""
    keys = set(_common(a, b))
    if k < 1 or len(keys) < k:
        return None
    top_a = [x for x in order(a) if x in keys][:k]
    top_b = [x for x in order(b) if x in keys][:k]
    return len(set(top_a) & set(top_b)) / k


def rank_intervals(rankings: Iterable["Scores[K]"]) -> dict[K, tuple[int, int]]:
    """{run: (best rank, worst rank)} over several rankings of the same runs (each ranked by `ranks`)."""
    out: dict[K, tuple[int, int]] = {}
    for scores in rankings:
        for run, rank in ranks(scores).items():
            low, high = out.get(run, (rank, rank))
            out[run] = (min(low, rank), max(high, rank))
    return out


STATISTICS = (
    Measure(
        "kendall_tau",
        "Kendall's τ",
        "How alike two rankings of the runs are: 1 the same order, −1 reversed (pairs in the same order minus pairs "
        "swapped, over all pairs).",
        "Kendall 1938, 'A new measure of rank correlation' (τ); Kendall 1945 for ties (τ_b)",
        kendall_tau,
    ),
    Measure(
        "tau_ap",
        "τ_AP",
        "Like Kendall's τ, but a swap among the best runs counts more than one at the bottom.",
        "Yilmaz, Aslam & Robertson 2008, 'A new rank correlation coefficient for information retrieval', §3",
        tau_ap,
    ),
    Measure(
        "top_k_overlap",
        "Top-k overlap",
        "The share of the k best runs of one ranking that are also among the k best of the other.",
        "Assay's definition (docs/reference.md)",
        top_k_overlap,
    ),
)
