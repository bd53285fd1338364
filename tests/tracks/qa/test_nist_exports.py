"""QA judgments in NIST's formats: nugget lists with pyramid weights and per-run nugget matches."""

import pytest

from scoring.synthetic import tiny_trec2007
from tracks.qa.nist_exports import nist_nugget_matches, nist_nuggets

pytestmark = pytest.mark.django_db


def test_nist_nugget_lists_and_matches():
    t = tiny_trec2007()
    lines = "".join(nist_nuggets(t["evaluation"])).splitlines()
    # 216.3: n1 vital (3 vital votes -> weight 1), n2 okay (1 of 3 -> .3333), n3 okay (0)
    assert lines[:3] == [
        "216.3 1 vital 1.0000 columnist at the New York Times",
        "216.3 2 okay 0.3333 professor at Princeton",
        "216.3 3 okay 0.0000 writes a blog",
    ]
    matches = "".join(nist_nugget_matches(t["evaluation"])).splitlines()
    assert "216.3 runA 1 D10 " + "x" * 125 + " " + "y" * 125 in matches
    assert "216.3 runA 1 1" in matches and "216.3 runA 1 3" in matches
    assert "217.2 runB 1 1" in matches
