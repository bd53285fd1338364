"""The run checker (issue 12): opened from an evaluation it checks against that evaluation's track, never a silent
default; a file of the wrong shape for the track (a TAC text run checked as a BOLT XML run) is said to be so."""

import pytest
from django.urls import reverse

from pooling.evaluations import create_evaluation
from pooling.runs import check_run_file
from tests.conftest import PASSWORD
from tests.test_pooling_loading import FIXTURES, blog, tac  # noqa: F401 (fixtures)
from tests.test_pooling_views import upload


@pytest.fixture
def bolt_first(tac):
    """A BOLT evaluation whose title sorts before the TAC one, as in the demo."""
    return create_evaluation("bolt-x", "bolt-ir-p2", [], "A BOLT evaluation")


@pytest.fixture
def org_client(client, organizer):
    client.login(username="org", password=PASSWORD)
    return client


def selected(body):
    return [line.strip() for line in body.splitlines() if "<option" in line and " selected" in line]


def test_opened_from_an_evaluation_the_checker_has_it_chosen(org_client, bolt_first):
    detail = org_client.get(reverse("pooling:evaluation_detail", args=["tac-test"])).content.decode()
    link = f"{reverse('pooling:run_check')}?evaluation=tac-test"
    assert f'href="{link}"' in detail
    body = org_client.get(link).content.decode()
    assert len(selected(body)) == 1 and 'value="tac-test" selected' in selected(body)[0]


def test_without_an_evaluation_nothing_is_chosen_for_the_user(org_client, bolt_first):
    body = org_client.get(reverse("pooling:run_check")).content.decode()
    assert selected(body) == ['<option value="" selected>choose the evaluation the run is for</option>']
    unknown = org_client.get(reverse("pooling:run_check"), {"evaluation": "no-such"}).content.decode()
    assert selected(unknown) == selected(body)


def test_a_text_run_checked_against_an_xml_track_is_named_as_such(org_client, bolt_first):
    body = org_client.post(
        reverse("pooling:run_check"), {"evaluation": "bolt-x", "file": upload("tac_valid_run.txt")}
    ).content.decode()
    assert "Checked as a run of A BOLT evaluation (BOLT IR phase 2" in body
    assert (
        "tac_valid_run.txt:0: this is a plain-text file of lines, but a run of A BOLT evaluation (BOLT IR phase 2 "
        "(forum citations and thematic groupings)) is an XML file: was it meant for another evaluation? Runs like "
        "it go to TAC 2008 QA (opinion question series over Blog06) (tac-test)."
    ) in body
    assert "malformed XML" in body  # the format's own problem comes after


def test_an_xml_file_checked_against_a_text_track_is_named_as_such(tac, bolt_first):
    problems, parsed = check_run_file(tac, b'<?xml version="1.0"?>\n<bolt-ir-submission/>\n', "run.xml")
    assert parsed is None and problems[0].startswith("run.xml:0: this is an XML file, but a run of TAC 2008 QA")
    assert problems[0].endswith("Runs like it go to A BOLT evaluation (bolt-x).")


def test_a_run_of_the_right_shape_gets_only_its_own_problems(tac):
    problems, _ = check_run_file(tac, (FIXTURES / "tac_bad_run.txt").read_bytes(), "tac_bad_run.txt")
    assert len(problems) == 7 and not any("another evaluation" in p for p in problems)
