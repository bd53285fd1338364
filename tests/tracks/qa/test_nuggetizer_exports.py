"""QA's nuggets and nugget matches in nuggetizer's JSON Lines (issue 28): the tiny TREC 2007 evaluation's files
line by line, through the command, the board's export, the API and a released team's download."""

import contextlib
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import Team
from scoring.formats.nuggetizer import Nugget, Nuggets, read_nuggets
from scoring.release import release
from scoring.team_downloads import downloads, official_export
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db

NUGGETS = [
    {
        "query": "Paul Krugman",  # an Other question has no text: its series' target
        "qid": "216.3",
        "nuggets": [  # the primary's first votes: vital, okay, okay
            {"text": "columnist at the New York Times", "importance": "vital"},
            {"text": "professor at Princeton", "importance": "okay"},
            {"text": "writes a blog", "importance": "okay"},
        ],
    },
    {
        "query": "Jay-Z",
        "qid": "217.2",
        "nuggets": [
            {"text": "married Beyonce", "importance": "vital"},
            {"text": "CEO of Def Jam", "importance": "vital"},
        ],
    },
]


def _assigned(qid, run, answer, length, assignments):
    lists = {n["qid"]: n for n in NUGGETS}
    query = lists[qid]["query"]
    nuggets = [n | {"assignment": a} for n, a in zip(lists[qid]["nuggets"], assignments, strict=True)]
    return {
        "query": query,
        "qid": qid,
        "answer_text": answer,
        "response_length": length,
        "run_id": run,
        "nuggets": nuggets,
    }


ASSIGNMENTS = [
    # runA's string holds n1 and n3; it gave 217.2 no response: nothing supported
    _assigned("216.3", "runA", "x" * 125 + " " + "y" * 125, 2, ["support", "not_support", "support"]),
    _assigned("217.2", "runA", "", 0, ["not_support", "not_support"]),
    _assigned("216.3", "runB", "z" * 50, 1, ["not_support", "support", "not_support"]),
    _assigned("217.2", "runB", "w" * 80, 1, ["support", "not_support"]),
]


def _command(slug, kind):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        call_command("export_judgments", slug, "--format", kind)
    return out.getvalue()


def test_nuggets_and_assignments_line_by_line_everywhere(make_user, client):
    ev = tiny_trec2007()["evaluation"]
    nuggets = _command(ev.slug, "nuggetizer-nuggets")
    assert [json.loads(line) for line in nuggets.splitlines()] == NUGGETS
    assignments = _command(ev.slug, "nuggetizer-assignments")
    assert [json.loads(line) for line in assignments.splitlines()] == ASSIGNMENTS
    assert "partial_support" not in assignments  # QA's matches are binary
    # the nuggets file reads back as what the evaluation holds
    problems, found = read_nuggets(nuggets.encode(), "nuggets.jsonl")
    assert problems == [] and found[1] == Nuggets(
        "217.2", "Jay-Z", (Nugget("married Beyonce", "vital"), Nugget("CEO of Def Jam", "vital"))
    )

    client.force_login(make_user("nz-org", "organizer"))
    board = client.get(reverse("scoring:scoreboard", args=[ev.slug])).content.decode()
    assert reverse("scoring:export", args=[ev.slug, "nuggetizer-assignments"]) in board
    page = client.get(reverse("scoring:export", args=[ev.slug, "nuggetizer-nuggets"]))
    assert page.content.decode() == nuggets
    assert page["Content-Disposition"] == f'attachment; filename="{ev.slug}-nuggetizer-nuggets.jsonl"'
    api = client.get(f"/api/evaluations/{ev.slug}/judgments/export/nuggetizer-assignments/")
    assert api.status_code == 200 and b"".join(api.streaming_content).decode() == assignments
    assert api["Content-Disposition"].endswith('-nuggetizer-assignments.jsonl"')
    assert client.get(reverse("scoring:export", args=[ev.slug, "nuggets"]))["Content-Disposition"].endswith('.txt"')

    # Released to Team Alpha: its own run's assignment lines, and the nugget lists (as NIST's are)
    alpha = Team.objects.get(name="Team Alpha")
    release(ev, alpha)
    labels = [d.label for d in downloads(ev, alpha)]
    assert "nugget assignments (nuggetizer) (official format, your runs)" in labels
    own = [json.loads(line) for line in official_export(ev, alpha, "nuggetizer-assignments")]
    assert own == ASSIGNMENTS[:2]
    assert "".join(official_export(ev, alpha, "nuggetizer-nuggets")) == nuggets
    # and the team's download of it is named for what it is, as the board's is
    member = make_user("nz-alpha", "participant", "Team Alpha")
    client.force_login(member)
    url = reverse("scoring:team_judgments", args=[ev.slug, "nuggetizer-assignments"]) + "?team=Team+Alpha"
    answer = client.get(url)
    assert answer.status_code == 200 and answer["Content-Disposition"].endswith('-nuggetizer-assignments.jsonl"')
    assert [json.loads(line) for line in answer.content.decode().splitlines()] == ASSIGNMENTS[:2]
