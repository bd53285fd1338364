"""The QA tracks declare every measure their scorer stores (Track.measures), with its label, seed and function."""

import pytest

from core.tracks import get_track
from scoring.measures.definition import GENERIC_LABELS
from scoring.models import Score
from scoring.registry import measure_label
from scoring.rescore import rescore_evaluation
from tracks.qa.synthetic import tiny_trec2007


@pytest.mark.django_db
def test_every_stored_measure_is_declared_with_its_label():
    t = tiny_trec2007()
    rescore_evaluation(t["evaluation"].id)
    stored = set(Score.objects.filter(run__evaluation=t["evaluation"]).values_list("measure", flat=True))
    declared = {m.name for m in get_track("trec2007-qa").measures}
    assert stored - set(GENERIC_LABELS) <= declared
    assert {"factoid", "list", "other", "nil_precision", "nil_recall"} <= stored
    assert measure_label("other", "trec2007-qa") == "Other F(β=3)"
    assert measure_label("squishylist", "tac2008-qa") == "Squishy list F"


@pytest.mark.parametrize("slug", ["tac2008-qa", "trec2007-qa"])
def test_each_declaration_says_what_it_is_and_where_it_comes_from(slug):
    for m in get_track(slug).measures:
        assert m.label and m.description.endswith(".") and m.function is not None, m.name
        assert m.seed.split()[0] in ("000", "001") and "'" in m.seed, m.name
