"""Which runs differ significantly: two-way ANOVA (run and series as factors) of per-series scores, then
Tukey's HSD with the two-way model's error term, shown as the TREC overview's letter table.

HSD = q(1 - alpha; k runs; df_error) * sqrt(MSE / number of series). Runs whose means differ by less than HSD are
not significantly different and share a letter. No Django here: statsmodels, scipy and plain data.
"""

import math
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy.stats import studentized_range
from statsmodels.stats.anova import anova_lm


@dataclass(frozen=True)
class Significance:
    runs: list[tuple[str, float, str]]  # [(run, mean score, letters)], best first
    mse: float
    df_error: int
    q: float
    hsd: float
    p_run: float
    n_series: int
    anova: list[tuple[str, float, float, float | None, float | None]]  # [(source, df, sum of squares, F, p)]


def letter_groups(means: Sequence[tuple[str, float]], hsd: float) -> dict[str, str]:
    """Letters for runs sorted best first: each maximal run of neighbours spanning less than `hsd` gets a letter.

    `means` is [(run, mean)] sorted by mean descending. Returns {run: "A B"...}.
    """
    groups, last_end = [], -1
    n = len(means)
    for i in range(n):
        j = i
        while j + 1 < n and means[i][1] - means[j + 1][1] < hsd:
            j += 1
        if j > last_end:  # not contained in the previous group
            groups.append((i, j))
            last_end = j
    letters: dict[str, list[str]] = {run: [] for run, _ in means}
    for g, (i, j) in enumerate(groups):
        letter = _letter(g)
        for run, _ in means[i : j + 1]:
            letters[run].append(letter)
    return {run: " ".join(v) for run, v in letters.items()}


def _letter(index: int) -> str:
    alphabet = string.ascii_uppercase
    return alphabet[index] if index < 26 else alphabet[index // 26 - 1] + alphabet[index % 26]


def tukey_two_way(scores: Sequence[tuple[str, Any, float | None]], alpha: float = 0.05) -> Significance | None:
    """`scores` is [(run, series, per-series score)], one per run and series (a complete design).

    Returns None when there are fewer than two runs or two series, or too few scores left for an error term.
    """
    frame = pd.DataFrame(scores, columns=["run", "series", "score"]).dropna()
    runs, series = frame["run"].unique(), frame["series"].unique()
    if len(runs) < 2 or len(series) < 2:
        return None
    frame["run"] = frame["run"].astype(str)
    frame["series"] = frame["series"].astype(str)
    model = smf.ols("score ~ C(run) + C(series)", data=frame).fit()
    if model.df_resid <= 0:  # as many parameters as scores (runs scored on different series): no error term
        return None
    table = anova_lm(model, typ=2)
    df_error = int(model.df_resid)
    mse = float(model.ssr / model.df_resid) if df_error > 0 else float("nan")
    k = len(runs)
    q = float(studentized_range.ppf(1 - alpha, k, df_error)) if df_error > 0 else float("nan")
    n_series = len(series)
    hsd = q * math.sqrt(mse / n_series) if df_error > 0 else float("nan")
    means = frame.groupby("run")["score"].mean().sort_values(ascending=False, kind="stable")
    ordered = [(str(run), float(m)) for run, m in means.items()]  # str already (astype above): for the type
    letters = letter_groups(ordered, hsd) if not np.isnan(hsd) else {r: "" for r, _ in ordered}
    anova = [
        (
            str(src).replace("C(", "").replace(")", ""),
            float(row["df"]),
            float(row["sum_sq"]),
            _nan_none(row.get("F")),
            _nan_none(row.get("PR(>F)")),
        )
        for src, row in table.iterrows()
    ]
    p_run = float(table.loc["C(run)", "PR(>F)"])
    return Significance(
        runs=[(r, m, letters[r]) for r, m in ordered],
        mse=mse,
        df_error=df_error,
        q=q,
        hsd=hsd,
        p_run=p_run,
        n_series=n_series,
        anova=anova,
    )


def _nan_none(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)
