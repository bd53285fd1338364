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
