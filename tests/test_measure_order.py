"""The board's and the generic report's run-level columns come in the order the track declares its measures
(Track.measures), the score first and anything undeclared after, sorted (issue 27: no QA list in scoring)."""

import pytest

from core.tracks import TRACKS
from pooling.models import Evaluation
from scoring.results import measure_order

# What scoring.results.RUN_MEASURE_ORDER gave QA's boards before issue 27, with the run-level names each stores.
QA_BEFORE = {
    "tac2008-qa": ["score", "rigidlist", "squishylist"],
    "trec2007-qa": ["score", "factoid", "list", "other", "nil_precision", "nil_recall"],
    "trec2007-ciqa": ["score", "ciqa"],
}


@pytest.mark.parametrize("slug, before", sorted(QA_BEFORE.items()))
def test_qa_boards_keep_their_columns(slug, before):
    present = set(before) | {"judged", "zz_extra"}
    assert measure_order(Evaluation(track=slug), present) == [*before, "judged", "zz_extra"]


@pytest.mark.parametrize("slug", sorted(TRACKS))
def test_every_track_in_declaration_order(slug):
    declared = [m.name for m in TRACKS[slug].measures]
    present = {*declared, "score", "b_undeclared", "a_undeclared"}
    expected = ["score", *dict.fromkeys(declared), "a_undeclared", "b_undeclared"]
    assert measure_order(Evaluation(track=slug), present) == expected
    assert measure_order(Evaluation(track=slug), set(declared[-1:])) == declared[-1:]
