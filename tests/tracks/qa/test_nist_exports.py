"""QA judgments in NIST's formats: nugget lists with pyramid weights and per-run nugget matches."""

import pytest

from tracks.qa.nist_exports import nist_nugget_matches, nist_nuggets
from tracks.qa.synthetic import tiny_trec2007

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


def test_answer_strings_are_written_as_submitted_and_empty_responses_have_no_line():
    from pooling.models import RunEntry
    from tracks.qa.nist_exports import nist_list_judgments

    t = tiny_trec2007()
    q, run_a, run_b = t["q"], t["runA"], t["runB"]
    RunEntry.objects.create(run=run_b, topic=q["216.2"], line_no=500, docid="D20", text="Oprah  Winfrey")
    RunEntry.objects.create(run=run_b, topic=q["216.3"], line_no=501, docid="D21", text="a\tcolumnist  at the Times")
    # runA's explicit empty response to the Other question 217.2 (a NIL line: docs/formats.md)
    RunEntry.objects.create(run=run_a, topic=q["217.2"], line_no=502, docid="NIL", text="")
    lists = "".join(nist_list_judgments(t["evaluation"])).splitlines()
    assert "216.2 runB D20 0 0 Oprah  Winfrey" in lists  # unjudged, the string as submitted
    assert "216.1 runB NIL -1 0 " in lists  # a factoid's NIL is a judged response
    matches = "".join(nist_nugget_matches(t["evaluation"])).splitlines()
    assert "216.3 runB 2 D21 a\tcolumnist  at the Times" in matches
    assert not [line for line in matches if line.startswith("217.2 runA")]
