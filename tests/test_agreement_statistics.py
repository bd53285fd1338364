"""Weighted kappa and Krippendorff's alpha (assess.agreement, issue 29) against values worked by hand and
Krippendorff's own published example."""

import pytest

from assess import agreement

# Ten pairs over the ordered labels yes > maybe > no (rows: the first judge, columns: the second):
#        yes maybe no
# yes     3    1    0
# maybe   1    2    1
# no      0    0    2
PAIRS = (
    [("yes", "yes")] * 3
    + [("yes", "maybe"), ("maybe", "yes")]
    + [("maybe", "maybe")] * 2
    + [("maybe", "no")]
    + [("no", "no")] * 2
)
LABELS = ("yes", "maybe", "no")


def test_the_confusion_matrix_keeps_the_given_order_and_appends_unknown_labels():
    labels, matrix = agreement.confusion(PAIRS, LABELS)
    assert labels == ["yes", "maybe", "no"]
    assert matrix == [[3, 1, 0], [1, 2, 1], [0, 0, 2]]
    labels, matrix = agreement.confusion([("a", "b")], ["a"])
    assert labels == ["a", "b"] and matrix == [[0, 1], [0, 0]]


def test_weighted_kappa_by_hand():
    _, matrix = agreement.confusion(PAIRS, LABELS)
    # margins: rows 4, 4, 2; columns 4, 3, 3; n = 10.
    # linear weights |i-j|/2: observed disagreement (.5 + .5 + .5)/10 = .15;
    # expected (.5*4*3 + 1*4*3 + .5*4*4 + .5*4*3 + 1*2*4 + .5*2*3)/100 = 43/100; kappa_w = 1 - 15/43 = 28/43
    assert agreement.weighted_kappa(matrix, "linear") == pytest.approx(28 / 43)
    # quadratic weights (|i-j|/2)^2: observed 3*.25/10 = .075; expected (3 + 12 + 4 + 3 + 8 + 1.5)/100 = .315;
    # kappa_w = 1 - .075/.315 = 16/21
    assert agreement.weighted_kappa(matrix, "quadratic") == pytest.approx(16 / 21)
    # nominal weights give Cohen's kappa: p_o = .7, p_e = (16 + 12 + 6)/100 = .34, (.7 - .34)/.66 = 6/11
    assert agreement.weighted_kappa(matrix, "nominal") == pytest.approx(6 / 11)
    assert agreement.cohens_kappa(PAIRS) == pytest.approx(6 / 11)


def test_weighted_kappa_edges():
    assert agreement.weighted_kappa([]) is None
    assert agreement.weighted_kappa([[0, 0], [0, 0]]) is None
    assert agreement.weighted_kappa([[5, 0], [0, 0]]) == 1.0  # one label throughout: nothing to beat
    assert agreement.weighted_kappa([[0, 5], [5, 0]]) == pytest.approx(-1.0)  # always the other label


# Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), section C: four observers, twelve units,
# values 1-5, missing values; he reports alpha 0.743 (nominal), 0.815 (ordinal), 0.849 (interval).
N = None
OBSERVERS = (
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
)
UNITS = list(zip(*OBSERVERS, strict=True))


@pytest.mark.parametrize("metric, published", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorffs_own_example(metric, published):
    assert agreement.krippendorff_alpha(UNITS, [1, 2, 3, 4, 5], metric) == pytest.approx(published, abs=5e-4)


def test_alpha_nominal_by_hand_for_two_judges():
    # Units (a,a), (a,b), (b,b), (b,b): coincidences o_aa = 2, o_ab = o_ba = 1, o_bb = 4; n_a = 3, n_b = 5, n = 8.
    # alpha = 1 - (n-1) * (o_ab + o_ba) / (n_a n_b + n_b n_a) = 1 - 7 * 2 / 30 = 8/15
    units = [("a", "a"), ("a", "b"), ("b", "b"), ("b", "b")]
    assert agreement.krippendorff_alpha(units) == pytest.approx(8 / 15)


def test_coincidences_add_up_over_disjoint_units():
    labels, whole = agreement.coincidences(UNITS, [1, 2, 3, 4, 5])
    _, first = agreement.coincidences(UNITS[:6], labels)
    _, rest = agreement.coincidences(UNITS[6:], labels)
    summed = [[a + b for a, b in zip(r1, r2, strict=True)] for r1, r2 in zip(first, rest, strict=True)]
    for got, want in zip(summed, whole, strict=True):
        assert got == pytest.approx(want)
    # a unit with a single value is not pairable and adds nothing
    assert agreement.coincidences([(1, N, N)], [1])[1] == [[0.0]]


def test_alpha_edges():
    assert agreement.krippendorff_alpha([]) is None
    assert agreement.krippendorff_alpha([("a", None)]) is None
    assert agreement.krippendorff_alpha([("a", "a"), ("a", "a")]) == 1.0
    with pytest.raises(ValueError, match="no metric 'ratio'"):
        agreement.krippendorff_alpha([(1, 2)], metric="ratio")
