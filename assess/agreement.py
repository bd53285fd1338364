"""Inter-assessor agreement over paired labels: percent agreement and Cohen's kappa. Plain Python, no Django."""

from collections import Counter


def percent_agreement(pairs):
    """Share of (label_a, label_b) pairs that agree; None for no pairs."""
    pairs = list(pairs)
    if not pairs:
        return None
    return sum(a == b for a, b in pairs) / len(pairs)


def cohens_kappa(pairs):
    """Cohen's kappa = (p_o - p_e) / (1 - p_e), p_e from each assessor's own label distribution.

    None for no pairs; 1.0 when both assessors used one and the same label throughout (p_e = 1, full agreement),
    and None when p_e = 1 is impossible to beat otherwise (cannot happen: p_e = 1 implies p_o = 1).
    """
    pairs = list(pairs)
    n = len(pairs)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / (n * n)
    if expected == 1:
        return 1.0
    return (observed - expected) / (1 - expected)


# --- issue 29: confusion matrices, weighted kappa, Krippendorff's alpha (docs/reference.md, "Agreement") --------


def confusion(pairs, labels):
    """The square matrix of counts, rows the first judge's label and columns the second's, in `labels`' order
    (a label outside `labels` is appended, so nothing is dropped); returns (labels, matrix)."""
    labels = list(labels)
    for a, b in pairs:
        for label in (a, b):
            if label not in labels:
                labels.append(label)
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for a, b in pairs:
        matrix[index[a]][index[b]] += 1
    return labels, matrix


def _disagreement_weights(k, weighting):
    """Cohen (1968): weight of disagreement between ordered categories i and j, |i-j| (linear) or (i-j)^2
    (quadratic), scaled to [0, 1]; "nominal" is 1 for any disagreement (weighted kappa is then Cohen's kappa)."""
    if k < 2:
        return [[0.0] * k for _ in range(k)]
    if weighting == "nominal":
        return [[0.0 if i == j else 1.0 for j in range(k)] for i in range(k)]
    power = {"linear": 1, "quadratic": 2}[weighting]
    return [[(abs(i - j) / (k - 1)) ** power for j in range(k)] for i in range(k)]


def weighted_kappa(matrix, weighting="linear"):
    """Cohen's weighted kappa from a confusion matrix over ordered labels: 1 - sum(w*o) / sum(w*e), o the observed
    proportions, e the products of the margins. None for an empty matrix; 1.0 when no disagreement is possible
    by chance (sum(w*e) = 0: one label used by both judges throughout)."""
    k = len(matrix)
    n = sum(map(sum, matrix))
    if not n:
        return None
    rows = [sum(row) for row in matrix]
    cols = [sum(matrix[i][j] for i in range(k)) for j in range(k)]
    w = _disagreement_weights(k, weighting)
    observed = sum(w[i][j] * matrix[i][j] for i in range(k) for j in range(k)) / n
    expected = sum(w[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k)) / (n * n)
    if expected == 0:
        return 1.0
    return 1 - observed / expected


def coincidences(units, labels):
    """Krippendorff's coincidence matrix: each unit with m_u >= 2 values adds 1/(m_u - 1) for every ordered pair
    of its values from different judges. `units` are lists of labels (None: that judge gave none). Coincidence
    matrices of disjoint sets of units add up, so per-topic matrices sum to the whole evaluation's."""
    labels = list(labels)
    for unit in units:
        for value in unit:
            if value is not None and value not in labels:
                labels.append(value)
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0.0] * len(labels) for _ in labels]
    for unit in units:
        values = [index[v] for v in unit if v is not None]
        m = len(values)
        if m < 2:
            continue
        for i, a in enumerate(values):
            for j, b in enumerate(values):
                if i != j:
                    matrix[a][b] += 1 / (m - 1)
    return labels, matrix


def _delta(metric, labels, totals):
    """Krippendorff's squared difference delta^2(c, k) for the metric: nominal 0/1; ordinal the squared count of
    values from c to k less half of each end's own; interval the squared difference of the (numeric) labels."""
    k = len(labels)
    if metric == "nominal":
        return [[0.0 if i == j else 1.0 for j in range(k)] for i in range(k)]
    if metric == "ordinal":
        d = [[0.0] * k for _ in range(k)]
        for i in range(k):
            for j in range(k):
                lo, hi = min(i, j), max(i, j)
                d[i][j] = (sum(totals[lo : hi + 1]) - (totals[i] + totals[j]) / 2) ** 2
        return d
    if metric == "interval":
        return [[(float(labels[i]) - float(labels[j])) ** 2 for j in range(k)] for i in range(k)]
    raise ValueError(f"no metric {metric!r}; choose nominal, ordinal or interval")


def alpha_from_coincidences(labels, matrix, metric="nominal"):
    """Krippendorff's alpha = 1 - (n - 1) * sum(o_ck * d_ck) / sum(n_c * n_k * d_ck), n the pairable values.
    None when fewer than two values are pairable; 1.0 when all pairable values are one label (no expected
    disagreement)."""
    totals = [sum(row) for row in matrix]
    n = sum(totals)
    if n < 2:
        return None
    d = _delta(metric, labels, totals)
    k = len(labels)
    observed = sum(matrix[i][j] * d[i][j] for i in range(k) for j in range(k))
    expected = sum(totals[i] * totals[j] * d[i][j] for i in range(k) for j in range(k))
    if expected == 0:
        return 1.0
    return 1 - (n - 1) * observed / expected


def krippendorff_alpha(units, labels=(), metric="nominal"):
    """Krippendorff's alpha over units judged by any number of judges, missing values allowed (None); `labels`
    gives the order of an ordinal scale (values not in it follow, in order of appearance)."""
    found, matrix = coincidences(units, labels)
    return alpha_from_coincidences(found, matrix, metric)
