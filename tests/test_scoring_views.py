"""Who sees which scores: the organizer's board, reports before and after release, downloads, exports."""

import json

import pytest
from django.urls import reverse

from pooling.models import Evaluation
from scoring.rescore import rescore_evaluation
from tests.conftest import PASSWORD
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored(make_user):
    t = tiny_trec2007()
    rescore_evaluation(t["evaluation"].id)
    t["organizer"] = make_user("org", "organizer")
    t["alpha"] = make_user("alice", "participant", team="Team Alpha")
    t["beta"] = make_user("bob", "participant", team="Team Beta")
    t["assessor"] = make_user("ann", "assessor")
    return t


def _client(client, user):
    client.login(username=user.username, password=PASSWORD)
    return client


def _report_url(t, tag, name="scoring:run_report"):
    return reverse(name, args=[t["evaluation"].slug, tag])


def test_board_ranks_runs_with_components_and_completeness(client, scored):
    c = _client(client, scored["organizer"])
    html = c.get(reverse("scoring:scoreboard", args=[scored["evaluation"].slug])).content.decode()
    # runB (.5100) ranks above runA (.3877)
    assert html.index('data-run="runB"') < html.index('data-run="runA"')
    assert "Factoid accuracy" in html and "List F" in html and "Other F(β=3)" in html
    assert "0.5100" in html and "0.3877" in html
    assert "100 %" in html  # fully judged
    assert 'hx-trigger="every 3s"' in html
    partial = c.get(reverse("scoring:board", args=[scored["evaluation"].slug])).content.decode()
    assert "<html" not in partial and 'id="freshness"' in partial


@pytest.mark.parametrize("who", ["alpha", "beta", "assessor"])
def test_board_is_for_organizers_only(client, scored, who):
    c = _client(client, scored[who])
    assert c.get(reverse("scoring:scoreboard", args=[scored["evaluation"].slug])).status_code == 403


def test_nobody_but_organizers_sees_scores_before_release(client, scored):
    assert scored["evaluation"].state != Evaluation.RELEASED
    for who in ("alpha", "beta"):
        c = _client(client, scored[who])
        for tag in ("runA", "runB"):
            for name in ("scoring:run_report", "scoring:run_report_csv", "scoring:run_report_json"):
                assert c.get(_report_url(scored, tag, name)).status_code == 404
        c.logout()
    c = _client(client, scored["assessor"])
    assert c.get(_report_url(scored, "runA")).status_code == 403
    c.logout()
    c = _client(client, scored["organizer"])
    assert c.get(_report_url(scored, "runA")).status_code == 200


def test_after_release_participants_see_only_their_own_runs(client, scored):
    c = _client(client, scored["organizer"])
    c.post(reverse("scoring:release", args=[scored["evaluation"].slug]), {"action": "release"})
    c.logout()
    scored["evaluation"].refresh_from_db()
    assert scored["evaluation"].state == Evaluation.RELEASED
    c = _client(client, scored["alpha"])
    mine = c.get(_report_url(scored, "runA"))
    assert mine.status_code == 200
    assert c.get(_report_url(scored, "runB")).status_code == 404
    assert c.get(_report_url(scored, "runB", "scoring:run_report_json")).status_code == 404
    home = c.get(reverse("pooling:my_runs")).content.decode()
    assert _report_url(scored, "runA") in home and _report_url(scored, "runB") not in home


def test_report_numbers_plot_and_downloads(client, scored):
    c = _client(client, scored["organizer"])
    html = c.get(_report_url(scored, "runA")).content.decode()
    assert "<svg" in html and "<script" not in html.split('id="report"')[1]
    assert "Left out" not in html  # every list question has a final answer set
    assert "no list" in html  # series 217 is flagged
    data = json.loads(c.get(_report_url(scored, "runA", "scoring:run_report_json")).content)
    summary = {r["key"]: r for r in data["summary"]}
    assert summary["score"]["value"] == pytest.approx(((1 + 4 / 7 + 6 / 7.95) / 3 + 0) / 2)
    # best/median/worst over runA and runB
    b = ((0 + 0.5 + 2.5 / 9.25) / 3 + (1 + 5 / 9.5) / 2) / 2
    assert summary["score"]["best"] == pytest.approx(b)
    assert summary["score"]["worst"] == pytest.approx(summary["score"]["value"])
    questions = {r["key"]: r for r in data["sections"][1]["rows"]}
    assert questions["216.2"]["value"] == pytest.approx(4 / 7)
    assert questions["216.2"]["median"] == pytest.approx((4 / 7 + 0.5) / 2)
    csv_text = c.get(_report_url(scored, "runA", "scoring:run_report_csv")).content.decode()
    assert csv_text.splitlines()[0] == "section,id,label,value,best,median,worst,note"
    assert "Per question,216.2,list,0.5714" in csv_text


def test_significance_page(client, scored):
    c = _client(client, scored["organizer"])
    html = c.get(reverse("scoring:significance", args=[scored["evaluation"].slug])).content.decode()
    assert 'id="letters"' in html and "runA" in html  # 2 runs x 2 series: df_error = 1
    # the randomization test beside it: one pair over 2 series, all 4 sign patterns enumerated
    assert 'id="randomization"' in html and "not corrected for multiple comparisons" in html
    assert '<strong id="permutations">10000</strong>' in html and '<strong id="seed">0</strong>' in html
    assert html.count("(exact)") == 1
    url = reverse("scoring:significance", args=[scored["evaluation"].slug])
    chosen = c.get(url, {"permutations": "3", "seed": "42"}).content.decode()
    assert '<strong id="permutations">3</strong>' in chosen and '<strong id="seed">42</strong>' in chosen
    assert "(exact)" not in chosen  # 3 < 2^2 patterns: sampled
    for bad in ({"permutations": "0"}, {"permutations": "100001"}, {"permutations": "x"}, {"seed": "-1"}):
        response = c.get(url, bad)
        assert response.status_code == 400 and next(iter(bad)) in response.content.decode(), bad


def test_exports_for_organizers_only(client, scored):
    c = _client(client, scored["alpha"])
    assert c.get(reverse("scoring:export", args=[scored["evaluation"].slug, "list"])).status_code == 403
    c.logout()
    c = _client(client, scored["organizer"])
    body = c.get(reverse("scoring:export", args=[scored["evaluation"].slug, "list"])).content.decode()
    assert "216.2 runA D2 1 1 Nobel Prize" in body
    assert "216.2 runA D3 1 0 Nobel" in body  # same class as D2: not distinct
    assert "216.2 runA D5 -1 0 Pulitzer" in body


def test_release_to_one_team_only(client, scored):
    c = _client(client, scored["organizer"])
    alpha_team = scored["runA"].team
    c.post(reverse("scoring:release", args=[scored["evaluation"].slug]), {"action": "release", "team": alpha_team.id})
    c.logout()
    scored["evaluation"].refresh_from_db()
    assert scored["evaluation"].state != Evaluation.RELEASED  # judging goes on
    assert _client(client, scored["alpha"]).get(_report_url(scored, "runA")).status_code == 200
    client.logout()
    assert _client(client, scored["beta"]).get(_report_url(scored, "runB")).status_code == 404


def test_board_lists_runs_with_nothing_judged_apart_unranked(client, scored):
    """A run none of whose answers is judged yet scores 0 for want of judgments: it is not ranked among the
    judged runs but listed after them, without a rank."""
    from accounts.models import Team
    from pooling.models import Run, RunEntry, Topic

    ev = scored["evaluation"]
    gamma = Run.objects.create(evaluation=ev, team=Team.objects.create(name="Team Gamma"), tag="runC", priority=1)
    RunEntry.objects.create(
        run=gamma, topic=Topic.objects.get(evaluation=ev, ident="216.1"), line_no=1, docid="XIE1", text="never judged"
    )
    rescore_evaluation(ev.id)
    html = _client(client, scored["organizer"]).get(reverse("scoring:board", args=[ev.slug])).content.decode()
    rows = {tag: html[html.index(f'data-run="{tag}"') :] for tag in ("runA", "runB", "runC")}
    rank = {tag: row.split('<td class="rank">')[1].split("<")[0] for tag, row in rows.items()}
    assert rank == {"runB": "1", "runA": "2", "runC": "–"}
    assert html.index('data-run="runA"') < html.index('id="unranked"') < html.index('data-run="runC"')
    assert "0 %" in rows["runC"] and 'class="unranked"' in html


def test_report_says_which_judged_figure_is_which(client, scored):
    html = _client(client, scored["organizer"]).get(_report_url(scored, "runA")).content.decode()
    status = html[html.index('id="judged-share"') :]
    status = status[: status.index("</li>")]
    assert status.startswith('id="judged-share">Pools judged (the answers of every judged run')
    assert "This run&#x27;s answers judged" in status  # names the other figure
    summary = html[html.index('id="summary"') :]
    assert '<tr data-measure="judged"><td>This run&#x27;s answers judged</td>' in summary
