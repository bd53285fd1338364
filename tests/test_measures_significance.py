"""Two-way ANOVA + Tukey HSD with the two-way error term, checked against numpy arithmetic."""
import numpy as np
import pytest

from scoring.measures.significance import letter_groups, tukey_two_way

SCORES = np.array([
    [.60, .70, .65, .75],  # run A, series s0..s3: mean .675
    [.58, .66, .63, .73],  # run B: mean .65
    [.50, .55, .52, .63],  # run C: mean .55
    [.20, .35, .25, .30],  # run D: mean .275
])


def _rows():
    return [(run, f"s{j}", float(SCORES[i, j])) for i, run in enumerate("ABCD") for j in range(4)]


def test_error_term_is_the_two_way_models():
    result = tukey_two_way(_rows())
    # Additive model residual r_ij = y_ij - row mean - column mean + grand mean; df = (4-1)(4-1) = 9
    y = SCORES
    r = y - y.mean(1, keepdims=True) - y.mean(0, keepdims=True) + y.mean()
    mse = float((r ** 2).sum() / 9)
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
    means = [("r1", .48), ("r2", .36), ("r3", .231), ("r4", .2296), ("r5", .2216), ("r6", .2023),
             ("r7", .1804), ("r8", .1735), ("r9", .1592), ("r10", .1415)]
    letters = letter_groups(means, hsd=0.052)
    # .231-.1804=.0506 < .052 so r3..r7 share C; r5..r8 (.2216-.1735=.0481) D; r6..r9 (.0431) E; r7..r10 (.0389) F
    assert letters == {"r1": "A", "r2": "B", "r3": "C", "r4": "C", "r5": "C D", "r6": "C D E",
                       "r7": "C D E F", "r8": "D E F", "r9": "E F", "r10": "F"}


def test_too_few_runs():
    assert tukey_two_way([("A", "s1", .5), ("A", "s2", .4)]) is None
