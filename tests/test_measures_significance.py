"""Two-way ANOVA + Tukey HSD with the two-way error term, checked against numpy arithmetic."""

import numpy as np
import pytest

from scoring.measures.significance import letter_groups, tukey_two_way

SCORES = np.array(
    [
        [0.60, 0.70, 0.65, 0.75],  # run A, series s0..s3: mean .675
        [0.58, 0.66, 0.63, 0.73],  # run B: mean .65
        [0.50, 0.55, 0.52, 0.63],  # run C: mean .55
        [0.20, 0.35, 0.25, 0.30],  # run D: mean .275
    ]
)


def _rows():
    return [(run, f"s{j}", float(SCORES[i, j])) for i, run in enumerate("ABCD") for j in range(4)]


def test_error_term_is_the_two_way_models():
    result = tukey_two_way(_rows())
    # Additive model residual r_ij = y_ij - row mean - column mean + grand mean; df = (4-1)(4-1) = 9
    y = SCORES
    r = y - y.mean(1, keepdims=True) - y.mean(0, keepdims=True) + y.mean()
    mse = float((r**2).sum() / 9)
    assert result.df_error == 9
    assert result.mse == pytest.approx(mse)
    # q(.05; 4; 9) = 4.415 in printed Tukey tables
    assert result.q == pytest.approx(4.415, abs=0.002)
    assert result.hsd == pytest.approx(result.q * np.sqrt(mse / 4))


def test_letters():
    result = tukey_two_way(_rows())
    letters = {run: ltr for run, _, ltr in result.runs}
    # A-B differ by .025 and B-C by .10 and A-C by .125: compare with HSD computed above
    hsd = result.hsd
    assert 0.025 < hsd < 0.10  # so A~B only
    assert letters == {"A": "A", "B": "A", "C": "B", "D": "C"}
    assert [r for r, _, _ in result.runs] == ["A", "B", "C", "D"]
    assert result.p_run < 0.001


def test_letter_groups_overlapping_like_trec_table5():
    means = [
        ("r1", 0.48),
        ("r2", 0.36),
        ("r3", 0.231),
        ("r4", 0.2296),
        ("r5", 0.2216),
        ("r6", 0.2023),
        ("r7", 0.1804),
        ("r8", 0.1735),
        ("r9", 0.1592),
        ("r10", 0.1415),
    ]
    letters = letter_groups(means, hsd=0.052)
    # .231-.1804=.0506 < .052 so r3..r7 share C; r5..r8 (.2216-.1735=.0481) D; r6..r9 (.0431) E; r7..r10 (.0389) F
    assert letters == {
        "r1": "A",
        "r2": "B",
        "r3": "C",
        "r4": "C",
        "r5": "C D",
        "r6": "C D E",
        "r7": "C D E F",
        "r8": "D E F",
        "r9": "E F",
        "r10": "F",
    }


def test_too_few_runs():
    assert tukey_two_way([("A", "s1", 0.5), ("A", "s2", 0.4)]) is None


def test_no_error_term_when_runs_were_scored_on_different_series():
    # 3 runs on s1, one of them on s2 too (the rest not judged yet): 4 scores, 4 parameters (intercept, 2 runs,
    # 1 series), no residual degree of freedom (the RAG demo's significance page raised on this)
    assert tukey_two_way([("A", "s1", 0.5), ("B", "s1", 0.4), ("C", "s1", 0.3), ("C", "s2", 0.2)]) is None
