"""Issue 12: releases that work for real teams and reports that say what they are (provisional or final, judged
share, scores as of, which runs best/median/worst are over), unjudged questions told from empty answer sets, and
a significance test that says over which runs it runs and warns while judging goes on."""

import csv
import io
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from accounts.models import Team
from assess.models import Judgment
from pooling.models import Evaluation, PoolItem, Run, RunEntry
from pooling.staleness import mark_stale
from scoring.models import ScoringState
from scoring.release import ReleaseRefused, release, withdraw
from scoring.rescore import rescore_evaluation, rescore_stale_topics
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db

A_SCORE = ((1 + 4 / 7 + 6 / 7.95) / 3 + 0) / 2  # runA fully judged (tests/test_scoring_rescore.py)
A_SCORE_F1_RIGHT = ((1 + 4 / 7 + 6 / 7.95) / 3 + 0.5) / 2  # ... once its 217.1 answer is judged correct


@pytest.fixture
def tiny(make_user):
    t = tiny_trec2007()
    t["organizer"] = make_user("org", "organizer")
    t["alpha"] = make_user("alice", "participant", team="Team Alpha")
    t["beta"] = make_user("bob", "participant", team="Team Beta")
    return t


def _add_run(t, tag, team_name, entries=()):
    """A run loaded later: its answers are not pooled (so unjudged and wrong), as right after loading."""
    team, _ = Team.objects.get_or_create(name=team_name)
    run = Run.objects.create(evaluation=t["evaluation"], team=team, tag=tag, priority=1)
    for i, (ident, docid, text) in enumerate(entries, start=500):
        RunEntry.objects.create(run=run, topic=t["q"][ident], line_no=i, docid=docid, text=text)
    return run


def _get(client, user, t, tag, name="scoring:run_report"):
    client.force_login(user)
    return client.get(reverse(name, args=[t["evaluation"].slug, tag]))


def _json(client, user, t, tag):
    return json.loads(_get(client, user, t, tag, "scoring:run_report_json").content)


# --- release and withdraw for teams with several runs ---------------------------------------------------------


def test_release_and_withdraw_a_team_with_several_runs(client, tiny):
    _add_run(tiny, "runA2", "Team Alpha")
    _add_run(tiny, "runA3", "Team Alpha")
    rescore_evaluation(tiny["evaluation"].id)
    alpha = Team.objects.get(name="Team Alpha")
    url = reverse("scoring:release", args=[tiny["evaluation"].slug])
    client.force_login(tiny["organizer"])
    response = client.post(url, {"action": "release", "team": alpha.id})
    assert response.status_code == 302
    assert _get(client, tiny["alpha"], tiny, "runA2").status_code == 200
    assert _get(client, tiny["beta"], tiny, "runB").status_code == 404

    client.force_login(tiny["organizer"])
    board = client.get(reverse("scoring:scoreboard", args=[tiny["evaluation"].slug])).content.decode()
    assert "Withdraw Team Alpha's reports" in board
    assert client.post(url, {"action": "withdraw", "team": alpha.id}).status_code == 302
    assert _get(client, tiny["alpha"], tiny, "runA").status_code == 404


# --- the scoreboard says who has reports --------------------------------------------------------------------


def test_board_says_which_teams_have_their_reports(client, tiny):
    rescore_evaluation(tiny["evaluation"].id)
    board_url = reverse("scoring:scoreboard", args=[tiny["evaluation"].slug])
    client.force_login(tiny["organizer"])

    def state():
        html = client.get(board_url).content.decode()
        return html[html.index('id="release-state"') : html.index("</p>", html.index('id="release-state"'))]

    assert "Reports not released" in state()
    release(tiny["evaluation"], tiny["runA"].team)
    text = state()
    assert "Reports not released" not in text  # it used to say so beside "Withdraw Team Alpha's reports"
    assert "Team Alpha" in text and "provisional" in text
    assert "Not released to Team Beta" in text
    release(tiny["evaluation"], freeze=True)
    text = state()
    assert "released to every team" in text and "frozen" in text


# --- unjudged questions are not "empty final answer sets" ----------------------------------------------------


def test_unjudged_question_is_marked_unjudged_not_empty_answer_set(client, make_user):
    t = tiny_trec2007(judge=False)
    rescore_evaluation(t["evaluation"].id)
    organizer = make_user("org", "organizer")
    data = _json(client, organizer, t, "runA")
    questions = {r["key"]: r for r in data["sections"][1]["rows"]}
    assert questions["216.2"]["value"] is None
    assert questions["216.2"]["note"] == "left out: not judged yet, no correct answer known yet"
    assert questions["216.1"]["note"] == "not judged yet"
    assert not any("empty final answer set" in n for n in data["notes"])
    assert any(n.startswith("Not fully judged yet: 216.1, 216.2, 216.3, 217.1, 217.2") for n in data["notes"])
    assert data["status"]["judging"]["share"] == 0.0 and data["status"]["status"] == "provisional"

    # Once every item of 216.2 is judged and none is right, its final answer set is empty: that is what it says.
    primary = t["primary"]
    for key in ("l1", "l2", "l3", "l4", "l5"):
        Judgment.objects.create(
            evaluation=t["evaluation"],
            topic=t["q"]["216.2"],
            kind="instance",
            item=t["items"][key],
            assessor=primary,
            value={"label": "incorrect"},
        )
    rescore_evaluation(t["evaluation"].id)
    data = _json(client, organizer, t, "runA")
    questions = {r["key"]: r for r in data["sections"][1]["rows"]}
    assert questions["216.2"]["note"] == "left out: empty final answer set"
    assert "Left out of the averages (empty final answer set): 216.2" in data["notes"]
    assert data["status"]["judging"]["judged"] == 5 and data["status"]["judging"]["items"] == 11


def test_incremental_rescoring_keeps_the_judging_counts():
    """The stale-question pass sums the other questions' stored counts in the database: same answer as a full."""
    t = tiny_trec2007(judge=False)
    ev = t["evaluation"]
    rescore_evaluation(ev.id)
    Judgment.objects.create(
        evaluation=ev,
        topic=t["q"]["217.1"],
        kind="instance",
        item=t["items"]["f1"],
        assessor=t["primary"],
        value={"label": "incorrect"},
    )
    mark_stale(t["q"]["217.1"])
    rescore_stale_topics(ev.id)
    from scoring.models import Score
    from scoring.pool_counts import Shown

    def run_detail():  # as readers see it (the pool counts are stored once per question: scoring.pool_counts)
        detail = Score.objects.get(run=t["runA"], scope=Score.RUN, measure="score").detail
        return Shown(ev).detail(Score.RUN, None, "score", detail)

    incremental = run_detail()
    assert (incremental["pool_judged"], incremental["pool_items"]) == (1, 11)
    assert incremental["questions"] == 5 and incremental["questions_judged"] == 0  # f2 still unjudged
    rescore_evaluation(ev.id)
    full = run_detail()
    keys = ("pool_items", "pool_judged", "questions", "questions_judged", "unjudged_questions", "left_out_questions")
    assert {k: incremental[k] for k in keys} == {k: full[k] for k in keys}


# --- reports say what they are ---------------------------------------------------------------------------------


def test_report_states_provisional_judged_share_and_as_of_everywhere(client, tiny):
    Judgment.objects.filter(item=tiny["items"]["f2"]).delete()  # 217.1 not fully judged: 10 of 11 items
    rescore_evaluation(tiny["evaluation"].id)
    release(tiny["evaluation"], tiny["runA"].team)
    as_of = ScoringState.objects.get(evaluation=tiny["evaluation"]).fresh_as_of

    page = _get(client, tiny["alpha"], tiny, "runA").content.decode()
    status = page[page.index('id="report-status"') : page.index("</section>", page.index('id="report-status"'))]
    assert 'data-status="provisional"' in status and "Provisional" in status
    assert "90.9 %" in status and "10 of 11 pool items" in status and "4 of 5 questions fully judged" in status
    assert f"Scores as of <strong>{as_of.strftime('%Y-%m-%d %H:%M:%S')} UTC" in status
    assert "noprint" not in page[page.rindex("<section", 0, page.index('id="report-status"')) :][:80]  # on paper too
    assert "217.1" in page and "Not fully judged yet: 217.1" in page

    data = _json(client, tiny["alpha"], tiny, "runA")
    assert data["status"]["status"] == "provisional"
    assert data["status"]["judging"]["share"] == pytest.approx(10 / 11)
    assert data["status"]["scores_as_of"] == as_of.isoformat()
    assert data["status"]["released"] and data["status"]["released_as"] == "provisional"

    text = _get(client, tiny["alpha"], tiny, "runA", "scoring:run_report_csv").content.decode()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["section", "id", "label", "value", "best", "median", "worst", "note"]
    report = {r[1]: r for r in rows if r[0] == "Report"}
    assert report["status"][2] == "Provisional"
    assert report["judged"][3] == "0.9091" and report["judged"][7].startswith("10 of 11 pool items")
    assert report["as_of"][7] == as_of.isoformat()


def test_final_release_only_when_judging_is_complete_and_says_when_scores_moved(client, tiny):
    ev = tiny["evaluation"]
    Judgment.objects.filter(item=tiny["items"]["f1"]).delete()
    rescore_evaluation(ev.id)
    with pytest.raises(ReleaseRefused, match="judging is incomplete"):
        release(ev, final=True)
    client.force_login(tiny["organizer"])
    client.post(reverse("scoring:release", args=[ev.slug]), {"action": "release", "final": "1"})
    ev.refresh_from_db()
    assert ev.state != Evaluation.RELEASED  # refused from the board too
    with pytest.raises(CommandError, match="not released as final"):
        call_command("release_scores", ev.slug, "--final")

    release(ev, tiny["runA"].team)  # provisional, at runA = A_SCORE
    Judgment.objects.create(
        evaluation=ev,
        topic=tiny["q"]["217.1"],
        kind="instance",
        item=tiny["items"]["f1"],
        assessor=tiny["primary"],
        value={"label": "globally-correct", "answer_class": None},
    )
    mark_stale(tiny["q"]["217.1"])
    rescore_stale_topics(ev.id)
    data = _json(client, tiny["alpha"], tiny, "runA")
    assert data["summary"][0]["value"] == pytest.approx(A_SCORE_F1_RIGHT)
    assert data["status"]["score_changed"] and data["status"]["score_at_release"] == pytest.approx(A_SCORE)
    assert data["status"]["status"] == "provisional"  # complete now, but nobody declared it final
    page = _get(client, tiny["alpha"], tiny, "runA").content.decode()
    assert f'Score at release: <strong id="score-at-release">{A_SCORE:.4f}</strong>' in page

    call_command("release_scores", ev.slug, "--team", "Team Alpha", "--final")
    data = _json(client, tiny["alpha"], tiny, "runA")
    assert data["status"]["status"] == "final" and not data["status"]["score_changed"]
    # judging moves again (a question waits for rescoring): the report no longer claims to be final
    mark_stale(tiny["q"]["216.1"])
    data = _json(client, tiny["alpha"], tiny, "runA")
    assert data["status"]["status"] == "provisional"
    assert data["status"]["summary"].startswith("Provisional: released as final, but judging has changed")


# --- the comparison: frozen at release, or live -----------------------------------------------------------------


def test_new_unjudged_run_joins_a_live_comparison_but_not_a_frozen_one(client, tiny):
    ev = tiny["evaluation"]
    rescore_evaluation(ev.id)
    call_command("release_scores", ev.slug, "--team", "Team Alpha", "--freeze-comparison")
    call_command("release_scores", ev.slug, "--team", "Team Beta")
    frozen_before = _json(client, tiny["alpha"], tiny, "runA")
    live_before = _json(client, tiny["beta"], tiny, "runB")
    assert frozen_before["summary"][0]["worst"] == pytest.approx(A_SCORE)

    # A new run is loaded: nothing of it is judged yet, so it scores 0.
    _add_run(tiny, "runC", "Team Gamma", [("216.1", "D99", "somebody"), ("217.1", "D98", "nobody")])
    rescore_evaluation(ev.id)

    frozen = _json(client, tiny["alpha"], tiny, "runA")
    assert frozen_before["status"]["judging"]["complete"]
    # its answers are in no pool yet: judging is not complete any more, whatever the pool items say
    assert frozen["status"]["judging"]["unpooled_answers"] == 2 and not frozen["status"]["judging"]["complete"]
    assert frozen["compared_with"] == 2
    assert [r["worst"] for r in frozen["summary"]] == [r["worst"] for r in frozen_before["summary"]]
    assert frozen["status"]["comparison"]["mode"] == "frozen"
    assert frozen["status"]["comparison"]["not_included"] == 1
    page = _get(client, tiny["alpha"], tiny, "runA").content.decode()
    assert "frozen at the release" in page and "1 loaded since not included" in page

    live = _json(client, tiny["beta"], tiny, "runB")
    assert live["compared_with"] == 3
    assert live["summary"][0]["worst"] == 0.0 != live_before["summary"][0]["worst"]
    assert live["status"]["comparison"]["mode"] == "live" and live["status"]["comparison"]["joined"] == 1
    page = _get(client, tiny["beta"], tiny, "runB").content.decode()
    assert "1 joined since the release" in page and "2 answers of judged runs not pooled yet" in page
    questions = {r["key"]: r for r in live["sections"][1]["rows"]}
    assert questions["217.1"]["note"] == "judging incomplete (1 answer not pooled yet)"
    with pytest.raises(ReleaseRefused):
        release(ev, final=True)


def test_withdraw_forgets_the_terms_and_the_board_form_chooses_them(client, tiny):
    ev = tiny["evaluation"]
    rescore_evaluation(ev.id)
    client.force_login(tiny["organizer"])
    client.post(reverse("scoring:release", args=[ev.slug]), {"action": "release", "team": "", "comparison": "frozen"})
    ev.refresh_from_db()
    assert ev.state == Evaluation.RELEASED
    assert ev.settings["releases"]["all"]["comparison"] == "frozen"
    assert ev.settings["releases"]["all"]["by"] == "org"
    withdraw(ev)
    ev.refresh_from_db()
    assert "all" not in ev.settings["releases"] and ev.state == Evaluation.JUDGING
    assert [e["action"] for e in ev.settings["releases"]["log"]] == ["release", "withdraw"]


# --- significance --------------------------------------------------------------------------------------------


def test_significance_warns_names_its_runs_and_offers_best_run_per_team(client, tiny, capsys):
    ev = tiny["evaluation"]
    _add_run(tiny, "runA2", "Team Alpha", [("216.1", "D1", "Princeton")])  # shares a1: lower than runA
    PoolItem.objects.get(pk=tiny["items"]["a1"].pk).sources.add(RunEntry.objects.get(run__tag="runA2"))
    Judgment.objects.filter(item=tiny["items"]["o3"]).delete()  # 217.2 not judged yet
    rescore_evaluation(ev.id)
    url = reverse("scoring:significance", args=[ev.slug])
    client.force_login(tiny["organizer"])

    html = client.get(url).content.decode()
    assert 'id="incomplete-warning"' in html and "Judging is incomplete" in html and "10 of 11 pool items" in html
    run_set = html[html.index('id="run-set"') : html.index("</p>", html.index('id="run-set"'))]
    assert "all 3 runs of the judged priorities (1, 2)" in run_set and "runA, runA2, runB" in run_set
    assert html.count("<tr><td>runA2</td>") == 1

    best = client.get(url, {"runs": "best"}).content.decode()
    run_set = best[best.index('id="run-set"') : best.index("</p>", best.index('id="run-set"'))]
    assert "the best run of each of 2 teams" in run_set and "runA, runB" in run_set
    assert "<tr><td>runA2</td>" not in best and 'id="letters"' in best

    call_command("significance", ev.slug, "--json", "--best-per-team")
    data = json.loads(capsys.readouterr().out)
    assert data["runs_analysed"] == ["runA", "runB"] and data["best_per_team"]
    assert data["warning"].startswith("Judging is incomplete") and not data["judging"]["complete"]
    assert data["df_error"] == 1
    call_command("significance", ev.slug)
    out = capsys.readouterr()
    assert "WARNING: Judging is incomplete" in out.err and "runA, runA2, runB" in out.out

    Judgment.objects.create(
        evaluation=ev,
        topic=tiny["q"]["217.2"],
        kind="nugget_match",
        item=tiny["items"]["o3"],
        assessor=tiny["primary"],
        value={"nuggets": []},
    )
    rescore_evaluation(ev.id)
    assert 'id="incomplete-warning"' not in client.get(url).content.decode()


# --- the demo ----------------------------------------------------------------------------------------------


def test_rerunning_the_demo_does_not_release_again(make_user):
    from tracks.qa.demo_scores import score_demo

    t = tiny_trec2007(slug="demo-tac2008")
    ev = t["evaluation"]
    lines = []
    score_demo(lines.append)
    ev.refresh_from_db()
    assert ev.settings["released_teams"] == [t["runA"].team_id]
    withdraw(ev, t["runA"].team)  # the organizer takes Team Alpha's reports back
    score_demo(lines.append)
    ev.refresh_from_db()
    assert ev.settings["released_teams"] == []
    assert "released before" in lines[-1]


# --- other tracks' reports say it too --------------------------------------------------------------------------


def test_qa4mre_report_counts_questions_with_a_gold_answer(client, organizer):
    from pooling.evaluations import create_evaluation
    from tests.tracks.qa4mre.test_views import FIXTURES, SLUG, load

    evaluation = create_evaluation(SLUG, "qa4mre-2012", title="QA4MRE status")
    load(evaluation, gold=False)
    client.force_login(organizer)
    url = reverse("scoring:run_report_json", args=[SLUG, "alph12022enen"])
    status = json.loads(client.get(url).content)["status"]
    assert status["status"] == "provisional" and status["judging"]["share"] == 0.0
    assert status["judging"]["unit"] == "questions with a gold answer"
    call_command("load_gold", SLUG, str(FIXTURES / "gold.xml"), stdout=StringIO())
    status = json.loads(client.get(url).content)["status"]
    assert status["judging"]["share"] == 1.0 and status["judging"]["items"] == 10
    assert status["comparison"]["runs"] == 3


def test_bolt_report_counts_judged_citations(client, organizer):
    from corpus.loading import load_collection
    from pooling.evaluations import create_evaluation
    from pooling.pools import build_pools
    from pooling.topics import load_topics
    from tests.tracks.bolt.test_pipeline import FIXTURES, load

    load_collection("bolt-test-forum", "bolt-forum", [str(FIXTURES / "forum.xml")])
    ev = create_evaluation("bolt-test", "bolt-ir-p2", ["bolt-test-forum"])
    load_topics(ev, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    load(ev, "alpha1.xml")
    load(ev, "beta1.xml", team="Team Beta")
    build_pools(ev)
    rescore_evaluation(ev.id)
    client.force_login(organizer)
    status = json.loads(client.get(reverse("scoring:run_report_json", args=["bolt-test", "alpha1"])).content)["status"]
    items = [i for i in PoolItem.objects.filter(topic__evaluation=ev) if i.data.get("bolt") != "view"]
    judged = sum(1 for i in items if "rel" in i.data)  # only the topic file's own citations are judged yet
    assert status["judging"]["items"] == len(items) and status["judging"]["judged"] == judged < len(items)
    assert status["status"] == "provisional"
