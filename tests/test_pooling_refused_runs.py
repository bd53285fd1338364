"""A run refused while it is stored leaves nothing behind: no team, no run, no entries (issue 20, item 6b).

The checker's problems never reached the store; these refusals come from store_run itself (a run tag that is
another team's) and from a track's after_run_stored hook (QA4MRE's team IDs), on every path: function, command, page."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import Team
from pooling.evaluations import create_evaluation
from pooling.models import Run, RunEntry
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tests.conftest import PASSWORD
from tests.test_pooling_loading import FIXTURES, blog, run_file, tac  # noqa: F401 (fixtures)
from tests.test_pooling_views import upload

QA4MRE = Path(__file__).parent / "fixtures" / "qa4mre"
BOLT = Path(__file__).parent / "fixtures" / "bolt"


def _nothing_of(team_name):
    assert not Team.objects.filter(name=team_name).exists()
    assert not Run.objects.filter(team__name=team_name).exists()


def test_qa_run_whose_tag_is_another_teams_creates_no_team(tac):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    entries = RunEntry.objects.count()
    [result] = load_run_files(
        tac, [run_file("taken.txt", team="Team Gamma", data=(FIXTURES / "tac_valid_run.txt").read_bytes())]
    )
    assert result.problems == ["taken.txt:0: run tag 'AlphaQA1' already belongs to team 'Team Alpha'"]
    assert result.run is None
    _nothing_of("Team Gamma")
    assert RunEntry.objects.count() == entries


def test_load_runs_command_refusal_creates_no_team(tac):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    out = StringIO()
    with pytest.raises(SystemExit) as exc:
        call_command(
            "load_runs",
            "tac-test",
            str(FIXTURES / "tac_valid_run.txt"),
            "--team",
            "Team Gamma",
            stdout=out,
            stderr=StringIO(),
        )
    assert exc.value.code == 1
    assert "run tag 'AlphaQA1' already belongs to team 'Team Alpha'" in out.getvalue()
    _nothing_of("Team Gamma")


def test_a_team_refused_once_can_load_a_good_run_in_the_same_batch(tac):
    """The refused file's team was rolled back, so a later file of the same batch must create it afresh."""
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    data = (FIXTURES / "tac_valid_run.txt").read_bytes()
    refused, loaded = load_run_files(
        tac,
        [
            run_file("taken.txt", team="Team Gamma", data=data),
            run_file("own.txt", team="Team Gamma", data=data.replace(b"AlphaQA1", b"GammaQA1")),
        ],
    )
    assert refused.problems and not loaded.problems
    assert Run.objects.get(tag="GammaQA1").team == Team.objects.get(name="Team Gamma")


def test_upload_page_refusal_creates_no_team(client, organizer, tac):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    client.login(username="org", password=PASSWORD)
    response = client.post(
        reverse("pooling:runs_upload", args=["tac-test"]),
        {"files": [upload("tac_valid_run.txt")], "new_team": "Team Gamma", "priority": ""},
    )
    assert response.status_code == 400
    assert "already belongs to team" in response.content.decode()
    _nothing_of("Team Gamma")


def test_qa4mre_run_refused_after_storing_creates_no_team(db):
    """QA4MRE's after_run_stored hook refuses a team ID another team uses, after the run's rows were written."""
    evaluation = create_evaluation("qa4mre-refuse", "qa4mre-2012")
    call_command("load_topics", "qa4mre-refuse", str(QA4MRE / "test_set.xml"), stdout=StringIO())
    alpha = RunFile(filename="alph12011enen.xml", data=(QA4MRE / "alph12011enen.xml").read_bytes(), team="Team Alpha")
    assert not load_run_files(evaluation, [alpha])[0].problems
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command(
            "load_runs",
            "qa4mre-refuse",
            str(QA4MRE / "alph12022enen.xml"),
            "--team",
            "Team Delta",
            stdout=out,
            stderr=StringIO(),
        )
    assert "team ID 'alph' is already used by team Team Alpha" in out.getvalue()
    _nothing_of("Team Delta")
    assert not Run.objects.filter(tag="alph12022enen").exists()


def test_bolt_run_whose_tag_is_another_teams_creates_no_team(db):
    from corpus.loading import load_collection

    load_collection("bolt-refuse-forum", "bolt-forum", [str(BOLT / "forum.xml")])
    evaluation = create_evaluation("bolt-refuse", "bolt-ir-p2", ["bolt-refuse-forum"])
    load_topics(evaluation, (BOLT / "topics.xml").read_bytes(), "topics.xml")

    def load(team):
        return load_run_files(
            evaluation, [RunFile(filename="alpha1.xml", data=(BOLT / "alpha1.xml").read_bytes(), team=team, priority=1)]
        )[0]

    assert not load("Team Alpha").problems
    refused = load("Team Epsilon")
    assert refused.problems and "already belongs to team 'Team Alpha'" in refused.problems[0]
    _nothing_of("Team Epsilon")
