"""The randomization test of every pair of runs (scoring.measures.randomization), at a campaign's size: `--runs`
runs (every pair tested) over `--series` series with `--permutations` sign patterns each. The baseline of the same
run is one pass of numpy over the same pairs' mean differences (what the test repeats per permutation), so the
ratio says what the permutations cost. Goal: the significance page answers within 2 s for 25 runs (300 pairs)."""

import os
import time

from benchmarks.harness import Result


def add_arguments(parser):
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--series", type=int, default=70)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5, help="timings taken; the median is reported")


def run(args):
    import numpy as np

    from scoring.measures.randomization import randomization_pairs

    rng = np.random.default_rng(1)
    rows = [(f"r{i:02d}", t, float(rng.random())) for i in range(args.runs) for t in range(args.series)]
    scores = np.array([[v for r, _, v in rows if r == f"r{i:02d}"] for i in range(args.runs)])
    test_s, base_s = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        test = randomization_pairs(rows, permutations=args.permutations)
        test_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        [(scores[a] - scores[b]).mean() for a in range(args.runs) for b in range(a + 1, args.runs)]
        base_s.append(time.perf_counter() - start)
    median = sorted(test_s)[len(test_s) // 2]
    base = sorted(base_s)[len(base_s) // 2]
    load = os.getloadavg()[0]
    return [
        Result(f"randomization test, {len(test.pairs)} pairs", median, "s", "<= 2", f"load average {load:.2f}"),
        Result("baseline: one pass of mean differences", base, "s", notes=f"load average {load:.2f}"),
        Result("ratio test / baseline", median / base if base else float("inf"), "x"),
        Result("load average (1 min)", load, ""),
    ]
