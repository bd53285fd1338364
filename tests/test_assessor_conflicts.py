"""An assessor who belongs to a team whose runs are in a series' pool: warned of on the page, by `assign` and by
the API, or refused when the evaluation's setting assessor_conflicts says "refuse"."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from assess.assignments import assign
from assess.models import Assignment
from pooling.evaluations import LoadError, update_settings
from pooling.runs import load_run_files
from tests.conftest import PASSWORD
from tests.test_pooling_loading import blog, run_file, tac  # noqa: F401 (fixtures)


@pytest.fixture
def pooled(tac, make_user):
    """Team Alpha's run (priority 1, judged) answers both series; pat is an assessor and in Team Alpha; ann is an
    assessor of Team Beta, which has no run."""
    assert not load_run_files(tac, [run_file("tac_valid_run.txt")])[0].problems
    make_user("pat", "participant", team="Team Alpha")
    make_user("pat", "assessor")
    make_user("ann", "assessor", team="Team Beta")
    return tac


def test_assign_warns_of_an_assessor_judging_her_own_teams_runs(pooled):
    a = assign(pooled, "1001", "pat")
    assert a.warnings == [
        "pat belongs to Team Alpha, whose runs are in the pool of series 1001: that assessor would judge their own "
        "team's answers"
    ]
    assert assign(pooled, "1002", "ann").warnings == []


def test_runs_outside_the_pool_are_no_conflict(tac, make_user):
    assert not load_run_files(tac, [run_file("tac_valid_run.txt", priority=3)])[0].problems  # not judged
    make_user("pat", "assessor", team="Team Alpha")
    assert assign(tac, "1001", "pat").warnings == []


def test_setting_refuse_refuses_and_stores_nothing(pooled):
    update_settings(pooled, {"assessor_conflicts": "refuse"})
    with pytest.raises(LoadError, match="pat belongs to Team Alpha.*assessor_conflicts is 'refuse'"):
        assign(pooled, "1001", "pat")
    assert not Assignment.objects.exists()
    assign(pooled, "1001", "ann")
    with pytest.raises(LoadError, match="assessor_conflicts must be 'warn' or 'refuse'"):
        update_settings(pooled, {"assessor_conflicts": "maybe"})


def test_assign_command_prints_the_warning_or_refuses(pooled):
    out = StringIO()
    call_command("assign", "tac-test", "1001", "pat", stdout=out)
    assert "tac-test series 1001: pat is the primary assessor" in out.getvalue()
    assert "Warning: pat belongs to Team Alpha, whose runs are in the pool of series 1001" in out.getvalue()
    call_command("update_evaluation", "tac-test", "--assessor-conflicts", "refuse", stdout=StringIO())
    with pytest.raises(CommandError, match="pat belongs to Team Alpha"):
        call_command("assign", "tac-test", "1002", "pat", "--second", stdout=StringIO())


def test_assignment_page_marks_and_warns(client, pooled, organizer):
    client.login(username="org", password=PASSWORD)
    url = reverse("assess:assignments", args=["tac-test"])
    page = client.get(url).content.decode()
    assert '<option value="pat" class="conflict">pat ⚠ Team Alpha has runs here</option>' in page
    assert '<option value="ann">ann</option>' in page
    saved = client.post(url, {"series": "1001", "assessor": "pat"}, follow=True).content.decode()
    assert "Warning: pat belongs to Team Alpha, whose runs are in the pool of series 1001" in saved
    assert 'class="error conflict-warning"' in saved  # and it stays said beside the assignment
    assert Assignment.objects.get().assessor.username == "pat"
    # refused: a 400 naming why, nothing stored
    client.post(
        reverse("pooling:evaluation_settings", args=["tac-test"]),
        {"judged_priorities": "1,2", "assessor_conflicts": "refuse"},
    )
    refused = client.post(url, {"series": "1002", "assessor": "pat"})
    assert refused.status_code == 400 and "pat belongs to Team Alpha" in refused.content.decode()
    assert Assignment.objects.count() == 1


def test_api_answers_the_warning(client, pooled, organizer):
    client.login(username="org", password=PASSWORD)
    r = client.post(
        reverse("api:assignments", args=["tac-test"]),
        {"series": "1001", "username": "pat"},
        content_type="application/json",
    )
    assert r.status_code == 201 and r.json()["warnings"][0].startswith("pat belongs to Team Alpha")
