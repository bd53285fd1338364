"""BOLT character measures and grouping measures against worked examples computed by hand (SPEC-NOTES, BOLT)."""

import math

import pytest

from tracks.bolt import measures


def brute_force_ap(citations, total):
    """Character by character, as SPEC-NOTES words it (an independent check on the closed form)."""
    seen = rel = 0
    acc = 0.0
    for length, spans in citations:
        relevant = {i for s, e in spans for i in range(s, e)}
        for i in range(length):
            seen += 1
            if i in relevant:
                rel += 1
                acc += rel / seen
    return acc / total


def test_relevant_spans_by_judgment():
    assert measures.relevant_spans(10, {"rel": "yes"}) == [(0, 10)]
    assert measures.relevant_spans(10, {"rel": "maybe", "relspans": []}) == [(0, 10)]
    assert measures.relevant_spans(10, {"rel": "no", "relspans": [[0, 4]]}) == []
    assert measures.relevant_spans(10, None) == []
    assert measures.relevant_spans(10, {"rel": "yes"}, false_alarm=True) == []
    # Overlapping and touching relspans merge; a relspan past the end is clipped.
    overlapping = {"rel": "yes", "relspans": [[6, 10], [0, 2], [1, 2], [3, 1]]}
    assert measures.relevant_spans(10, overlapping) == [(0, 4), (6, 10)]
    assert measures.relevant_chars(10, overlapping) == 8


def test_worked_example_precision_recall_f_ap():
    # R(topic) = 30. The run returns, by rank:
    #   c1: 10 characters, yes                 -> relevant 0..9
    #   c2: 20 characters, maybe, relspan [5,5] -> relevant 5..9 (characters 16..20 of the walk)
    #   c3: 10 characters, no
    #   c4: 10 characters, a near-duplicate of c1 (false alarm)
    # returned 50, relevant returned 15: P = 15/50 = 0.3, recall = 15/30 = 0.5, F = 2(.3)(.5)/(.8) = 0.375.
    # AP = (1/30) [ 1+1+...+1 (ten times) + 11/16 + 12/17 + 13/18 + 14/19 + 15/20 ]
    #    = (1/30) [ 10 + 0.6875 + 0.70588235 + 0.72222222 + 0.73684211 + 0.75 ] = 13.60244668 / 30 = 0.45341489
    citations = [
        (10, measures.relevant_spans(10, {"rel": "yes"})),
        (20, measures.relevant_spans(20, {"rel": "maybe", "relspans": [[5, 5]]})),
        (10, measures.relevant_spans(10, {"rel": "no"})),
        (10, measures.relevant_spans(10, {"rel": "yes"}, false_alarm=True)),
    ]
    s = measures.topic_scores(citations, 30)
    assert s["chars_returned"] == 50 and s["chars_relevant_returned"] == 15
    assert s["char_precision"] == pytest.approx(0.3)
    assert s["char_recall"] == pytest.approx(0.5)
    assert s["char_f"] == pytest.approx(0.375)
    assert s["char_ap"] == pytest.approx(0.45341489, abs=1e-8)
    assert s["char_ap"] == pytest.approx(brute_force_ap(citations, 30))


def test_small_ap_exact_fraction():
    # R = 4; a 2-character non-relevant citation, then a 2-character relevant one:
    # AP = (1/4)(1/3 + 2/4) = 5/24.
    s = measures.topic_scores([(2, []), (2, [(0, 2)])], 4)
    assert s["char_ap"] == pytest.approx(5 / 24)
    assert s["char_precision"] == pytest.approx(0.5) and s["char_recall"] == pytest.approx(0.5)


def test_ap_closed_form_matches_brute_force_on_scattered_spans():
    citations = [(37, [(3, 9), (20, 21), (30, 37)]), (5, []), (120, [(0, 1), (50, 119)]), (8, [(0, 8)])]
    total = 200
    assert measures.topic_scores(citations, total)["char_ap"] == pytest.approx(brute_force_ap(citations, total))


def test_empty_response_and_unknown_relevance():
    s = measures.topic_scores([], 12)
    assert (s["char_precision"], s["char_recall"], s["char_f"], s["char_ap"]) == (0.0, 0.0, 0.0, 0.0)
    s = measures.topic_scores([(10, [])], 0)  # nothing relevant known: recall, F and AP undefined
    assert s["char_precision"] == 0.0 and s["char_recall"] is None and s["char_f"] is None and s["char_ap"] is None


def test_run_means_leave_out_topics_without_relevant_characters():
    per_topic = {
        "1.001": measures.topic_scores([(10, [(0, 10)])], 20),  # P 1, R .5, F 2/3, AP .5
        "1.002": measures.topic_scores([(10, [])], 10),  # P 0, R 0, F 0, AP 0
        "1.003": measures.topic_scores([(10, [])], 0),  # left out
    }
    means, left_out = measures.run_means(per_topic)
    assert left_out == ["1.003"]
    assert means["char_precision"] == pytest.approx(0.5)
    assert means["char_recall"] == pytest.approx(0.25)
    assert means["char_f"] == pytest.approx(1 / 3)
    assert means["char_map"] == pytest.approx(0.25)
    assert measures.run_means({})[0]["char_map"] is None


def test_view_measures_worked_example():
    # G0 relevant+scoped, 2 of 3 citations belong, all 3 citations relevant -> cohesion 2/3, precisions 1, 1, 1
    # G1 relevant, wrong scope, 2 of 2 belong, 1 of 2 relevant             -> cohesion 1,   precisions 1, 0
    # G2 not relevant, scoped, 0 of 1 belong, 0 of 2 relevant               -> cohesion 0,   precisions 0, 0
    # misc: never counted.
    # view precision = 1/3; group precision = (2/3 + 1 + 0)/3 = 5/9;
    # skew (SPEC-NOTES: each group's standard deviation, averaged): (std(1,1,1) + std(1,0) + std(0,0)) / 3
    #   = (0 + .5 + 0) / 3 = 1/6. (One deviation across the groups' precisions 1, .5, 0 would be .408.)
    groups = [
        {"relevant": True, "scope": True, "members": [True, True, False], "cites_precision": [1.0, 1.0, 1.0]},
        {"relevant": True, "scope": False, "members": [True, True], "cites_precision": [1.0, 0.0]},
        {"relevant": False, "scope": True, "members": [False], "cites_precision": [0.0, 0.0]},
        {"misc": True, "relevant": True, "scope": True, "members": [True], "cites_precision": [1.0]},
    ]
    s = measures.view_scores(groups)
    assert s["view_precision"] == pytest.approx(1 / 3)
    assert s["group_precision"] == pytest.approx(5 / 9)
    assert s["group_skew"] == pytest.approx(1 / 6)


def test_group_skew_uses_each_citations_character_precision():
    # A citation of 40 characters judged yes with 10 marked relevant has precision .25; beside a whole yes (1)
    # and an unjudged one (left out): mean .625, deviations .375 each -> std .375. A second group of one
    # judged citation: std 0. Skew = (.375 + 0) / 2 = .1875.
    p = measures.citation_precision(40, {"rel": "yes", "relspans": [[5, 10]]})
    assert p == 0.25
    assert measures.citation_precision(40, {"rel": "no"}) == 0.0
    assert measures.citation_precision(40, None) is None
    groups = [
        {"relevant": True, "scope": True, "members": [], "cites_precision": [p, 1.0, None]},
        {"relevant": True, "scope": True, "members": [], "cites_precision": [None, 0.0]},
        {"relevant": True, "scope": True, "members": [], "cites_precision": [None]},  # nothing judged: left out
    ]
    assert measures.view_scores(groups)["group_skew"] == pytest.approx(0.1875)


def test_view_measures_skip_unjudged_parts():
    groups = [
        {"relevant": None, "scope": True, "members": [None, True], "cites_precision": [None]},
        {"relevant": True, "scope": True, "members": [], "cites_precision": [1.0, 1.0]},
    ]
    s = measures.view_scores(groups)
    assert s["view_precision"] == 1.0  # only the second group is judged for relevance and scope
    assert s["group_precision"] == 1.0  # the first group's one judged membership
    assert s["group_skew"] == 0.0  # one group with a judged citation
    assert measures.view_scores([]) == {"view_precision": None, "group_precision": None, "group_skew": None}


def test_harmonic_numbers():
    assert measures.harmonic(0) == 0.0
    assert measures.harmonic(4) == pytest.approx(1 + 1 / 2 + 1 / 3 + 1 / 4)
    assert math.isclose(measures.harmonic(25000) - measures.harmonic(24999), 1 / 25000)
