"""ciQA's numbers and plots over plain data: the recall-by-length curve of SPEC-NOTES' worked example as the plots
draw it, the questionnaire means (Figure 4) and the initial-versus-final rows (Table 7), computed by hand."""

import re

import pytest

from tracks.qa.ciqa.plots import recall_plot, scatter_plot
from tracks.qa.ciqa.stats import mean_ratings, pair_rows
from tracks.qa.measures import recall_by_length, recall_points


def test_the_spec_notes_worked_example_drawn_as_a_step_curve():
    # strings of 105 and 130 non-white-space characters reaching recall 0.5 then 1.0: (150, 0.5) and (250, 1.0)
    points = recall_points([("a" * 105, [1]), ("b" * 130, [2])], {1: 1.0, 2: 1.0})
    assert points == [(150, 0.5), (250, 1.0)]
    curve = recall_by_length([points])
    assert curve == [(50, 0.0), (100, 0.0), (150, 0.5), (200, 0.5), (250, 1.0)]
    svg = recall_plot([("UMD07a", points)], width=300, height=160)
    # left 44, right 150: plot width 106 over 250 characters; top 24, bottom 34: plot height 102
    path = re.search(r'<path d="([^"]+)"[^>]*data-run="UMD07a"', svg).group(1)
    assert path == "M44.0,126.0 L107.6,126.0 L107.6,75.0 L150.0,75.0 L150.0,24.0"
    # a second topic never reaching a nugget halves the average
    assert recall_by_length([points, [(100, 0.0)]])[-1] == (250, 0.5)


def test_the_scatter_plot_puts_improvements_above_y_equals_x():
    svg = scatter_plot([("a → b", 0.2, 0.3), ("c → d", 0.3, 0.2), ("e → f", None, 0.1)], size=240)
    assert 'class="identity"' in svg
    circles = re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="4" fill="(#\w+)" data-pair="([^"]+)"', svg)
    assert [(c[2], c[3]) for c in circles] == [("#2a7d2a", "a → b"), ("#b03030", "c → d")]  # the None pair left out
    # axes 0..0.4 (0.3 * 1.1 + 0.05 rounded), span 160 from 40: (0.2, 0.3) at x 120, y 200 - 120 = 80
    assert (float(circles[0][0]), float(circles[0][1])) == (120.0, 80.0)


def test_mean_ratings_per_interaction_leave_out_unanswered_and_text():
    answers = [
        ("umd", "understand", "2"),
        ("umd", "understand", "5"),
        ("umd", "understand", ""),
        ("umd", "comments", "nice"),
        ("mit", "quality", "4"),
    ]
    assert mean_ratings(answers, {"understand", "quality"}) == {
        "umd": {"understand": (3.5, 2)},
        "mit": {"quality": (4.0, 1)},
    }


def test_pair_rows_as_table_7():
    rows = pair_rows(
        [("MSUi", "MSUfCol"), ("MSUi", "MSUfInt"), ("gone", "x")],
        {"MSUi": ("MSU", False), "MSUfCol": ("MSU", False), "MSUfInt": ("MSU", True)},
        {"MSUi": 0.359, "MSUfCol": 0.361, "MSUfInt": 0.370},
    )
    assert [(r.initial, r.final, r.manual) for r in rows] == [("MSUi", "MSUfCol", False), ("MSUi", "MSUfInt", True)]
    assert rows[1].change == pytest.approx(0.011)
