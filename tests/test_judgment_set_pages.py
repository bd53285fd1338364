"""Judgment sets through the pages, the API and the `judgment_sets` command (issue 29) on BOLT's test evaluation:
who may see what, the agreement with its disagreeing items one click away, a released set for teams, a team's
judge runs within the campaign's rules, and a promotion the released report states."""

import contextlib
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Team
from api.tokens import create_token
from assess.models import Assignment, Judgment
from scoring import agreement_store, judgment_sets
from scoring.models import JudgmentSet, SetJudgment
from scoring.release import release
from tests.test_judgment_sets import QRELS
from tests.test_qrels_export import judged
from tests.tracks.bolt.test_pipeline import evaluation, loaded  # noqa: F401 (fixtures)


def qrels_upload(name="umbrela.qrels", data=QRELS):
    f = io.BytesIO(data)
    f.name = name
    return f


def api(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(user)}")
    return client


@pytest.fixture
def world(loaded, make_user):
    topic = judged(loaded, make_user)
    return {
        "topic": topic,
        "org": make_user("p-org", "organizer"),
        "assessor": Assignment.objects.get(topic=topic, role=Assignment.PRIMARY).assessor,
        "member": make_user("p-alpha", "participant", Team.objects.get(name="Team Alpha")),
    }


def test_the_organizer_loads_a_set_and_follows_a_cell_to_its_items(loaded, world, client):
    client.force_login(world["org"])
    board = client.get(reverse("scoring:scoreboard", args=[loaded.slug])).content.decode()
    assert reverse("scoring:judgment_sets", args=[loaded.slug]) in board
    page = reverse("scoring:judgment_sets", args=[loaded.slug])
    sent = {"name": "umbrela", "format": "qrels", "model": "gpt-4o", "file": qrels_upload()}
    assert client.post(page, sent).status_code == 302
    made = JudgmentSet.objects.get(name="umbrela")
    assert made.created_by == world["org"] and made.provenance == {"model": "gpt-4o"}
    shown = client.get(page).content.decode()
    assert "umbrela" in shown and "model: gpt-4o" in shown
    assert "50.0 %" in shown and "0.200" in shown  # the agreement computed in-process after the load
    refused = client.post(page, {"name": "umbrela", "format": "qrels", "file": qrels_upload()}).content.decode()
    assert "already has a judgment set named" in refused
    detail = client.get(reverse("scoring:judgment_set", args=[loaded.slug, made.pk])).content.decode()
    cell = "?kind=citation&amp;first=no&amp;second=maybe"
    assert f'href="{cell}"' in detail
    listed = client.get(
        reverse("scoring:judgment_set", args=[loaded.slug, made.pk]),
        {"kind": "citation", "first": "no", "second": "maybe"},
    )
    text = listed.content.decode()
    assert "The metro is cheaper than a taxi" in text and "Taxi drivers lost" not in text.split('id="items"')[1]
    human = client.get(reverse("scoring:assessor_agreement", args=[loaded.slug]), {"kind": "citation"}).content.decode()
    assert "The fare is too high" in human  # primary yes, second no


def test_who_sees_what(loaded, world, client):
    made = judgment_sets.load_set(loaded, QRELS, "m.qrels", "qrels", "machine", by=world["org"])
    for user in (world["assessor"], world["member"]):
        client.force_login(user)
        assert client.get(reverse("scoring:judgment_sets", args=[loaded.slug])).status_code == 403
        assert client.get(reverse("scoring:judgment_set", args=[loaded.slug, made.pk])).status_code == 403
        assert api(user).get(f"/api/evaluations/{loaded.slug}/judgment-sets/").status_code == 403
    # the assessor's judging page says nothing of it
    client.force_login(world["assessor"])
    mine = Assignment.objects.get(topic=world["topic"], assessor=world["assessor"])
    judging_page = client.get(reverse(loaded.track_spec.assignment_page, args=[mine.pk])).content.decode()
    assert "machine" not in judging_page and "judgment set" not in judging_page.lower()
    # a team downloads a set only once the organizer releases it
    client.force_login(world["member"])
    download = reverse("scoring:judgment_set_download", args=[loaded.slug, made.pk])
    assert client.get(download).status_code == 404
    judgment_sets.set_release(made, True, by=world["org"])
    lines = client.get(download).content
    records = [json.loads(line) for line in lines.decode().splitlines()]
    assert len(records) == SetJudgment.objects.filter(judgment_set=made).count() == 6
    # ... and the file loads back as the same set
    again = judgment_sets.load_set(loaded, lines, "back.jsonl", "jsonl", "back", by=world["org"])
    assert sorted(again.judgments.values_list("item_id", "value")) == sorted(
        made.judgments.values_list("item_id", "value")
    )


def test_the_api(loaded, world):
    client = api(world["org"])
    base = f"/api/evaluations/{loaded.slug}"
    made = client.post(
        f"{base}/judgment-sets/", {"file": qrels_upload(), "name": "api set", "format": "qrels", "prompt": "v2"}
    )
    assert made.status_code == 201 and made.json()["loaded"] == 6 and made.json()["provenance"] == {"prompt": "v2"}
    pk = made.json()["id"]
    bad = client.post(f"{base}/judgment-sets/", {"file": qrels_upload(data=b"1.001 0 x 9\n"), "name": "bad"})
    assert bad.status_code == 400 and bad.json()["problems"] == [
        "umbrela.qrels:1: grade 9 has no citation label in track bolt-ir-p2 (grades: 0, 1, 2)"
    ]
    assert [s["name"] for s in client.get(f"{base}/judgment-sets/").json()] == ["api set"]
    rows = client.get(f"{base}/agreement/").json()
    mine = next(r for r in rows if r["set"] == "api set")
    assert mine["items"] == 4 and mine["kappa"] == pytest.approx(0.2) and mine["computed_at"]
    assert next(r for r in rows if r["set"] == agreement_store.ASSESSORS)["items"] == 1
    cell = client.get(
        f"{base}/agreement/disagreements/", {"set": pk, "kind": "citation", "first": "no", "second": "maybe"}
    )
    assert len(cell.json()) == 1
    detail = client.get(f"{base}/judgment-sets/{pk}/").json()
    assert {r["topic"] for r in detail["agreement"]} == {"all", "1.001"}
    assert client.post(f"{base}/judgment-sets/{pk}/release/", {"released": True}, format="json").json()["released"]
    refused = client.post(f"{base}/judgment-sets/{pk}/promote/", {"reason": ""}, format="json")
    assert refused.status_code == 400
    promoted = client.post(
        f"{base}/judgment-sets/{pk}/promote/", {"reason": "machine fill", "only_unjudged": True}, format="json"
    )
    assert promoted.status_code == 200 and promoted.json()["promoted"] == 2
    assert client.delete(f"{base}/judgment-sets/{pk}/").status_code == 204
    assert not JudgmentSet.objects.exists() and Judgment.objects.filter(role=Judgment.ADJUDICATED).count() == 2


def run_command(*args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        call_command("judgment_sets", *args, stdout=out)
    return out.getvalue()


def test_the_command(loaded, world, tmp_path):
    path = tmp_path / "umbrela.qrels"
    path.write_bytes(QRELS)
    org = world["org"].username
    said = run_command(loaded.slug, "load", "umbrela", str(path), "--by", org, "--model", "gpt-4o")
    assert said.strip() == f"{loaded.slug}: set umbrela: 6 judgments (2 lines skipped)"
    assert "umbrela\tfile\t6 judgments\tnot released\tmodel: gpt-4o" in run_command(loaded.slug, "list")
    table = run_command(loaded.slug, "agreement", "--refresh")
    assert "umbrela\tcitation\tall\t4\t0.500\t0.200\t0.333\t0.562" in table
    assert "released to the teams" in run_command(loaded.slug, "release", "umbrela", "--by", org)
    with pytest.raises(CommandError, match="give a reason"):
        run_command(loaded.slug, "promote", "umbrela", "--by", org)
    with pytest.raises(CommandError, match="no judgment set 'nope'"):
        run_command(loaded.slug, "release", "nope", "--by", org)
    bad = tmp_path / "bad.qrels"
    bad.write_bytes(b"1.001 0 x\n")
    with pytest.raises(CommandError, match="bad.qrels:1: 3 fields"):
        run_command(loaded.slug, "load", "bad", str(bad), "--by", org)


def test_a_promotion_after_release_is_stated_on_the_report(loaded, world, client):
    from pooling.models import Run
    from scoring.rescore import rescore_evaluation

    rescore_evaluation(loaded.id)
    release(loaded)
    made = judgment_sets.load_set(loaded, QRELS, "m.qrels", "qrels", "machine", by=world["org"])
    judgment_sets.promote(made, by=world["org"], reason="the machine judged what nobody had", only_unjudged=True)
    client.force_login(world["member"])
    run = Run.objects.filter(evaluation=loaded, team__name="Team Alpha").order_by("tag").first()
    report = client.get(reverse("scoring:run_report", args=[loaded.slug, run.tag])).content.decode()
    assert "because the machine judged what nobody had (judgment set machine made official judgments" in report


def test_judge_runs_within_the_campaigns_rules(loaded, world, client):
    from scoring.rescore import rescore_evaluation

    rescore_evaluation(loaded.id)  # the official scores, which the rankings under the judge run are compared with
    member = world["member"]
    client.force_login(member)
    page = reverse("scoring:judge_runs", args=[loaded.slug]) + "?team=Team%20Alpha"
    sent = {"team": "Team Alpha", "name": "alpha-umbrela", "format": "qrels", "model": "ours", "file": qrels_upload()}
    assert client.post(page, sent).status_code == 302
    made = JudgmentSet.objects.get(origin=JudgmentSet.TEAM)
    assert made.name == "Team Alpha: alpha-umbrela" and made.team.name == "Team Alpha" and made.created_by == member
    shown = client.get(page).content.decode()
    assert "alpha-umbrela" in shown and "Shown once the results are released" in shown
    # another team's member sees nothing of it
    other = world["member"].__class__.objects.create_user("p-beta")
    other.teams.add(Team.objects.get(name="Team Beta"))
    from django.contrib.auth.models import Group

    other.groups.add(Group.objects.get(name="participant"))
    client.force_login(other)
    assert "alpha-umbrela" not in client.get(reverse("scoring:judge_runs", args=[loaded.slug])).content.decode()
    assert client.get(reverse("scoring:judge_runs", args=[loaded.slug]) + "?team=Team%20Alpha").status_code == 404
    # at most max_judge_runs
    loaded.settings = (loaded.settings or {}) | {"max_judge_runs": 1}
    loaded.save()
    client.force_login(member)
    refused = client.post(page, sent | {"name": "second", "file": qrels_upload()}).content.decode()
    assert "your team has submitted 1 judge runs" in refused
    # once released: agreement shown (the tau slot named), and no more judge runs
    release(loaded, Team.objects.get(name="Team Alpha"))
    shown = client.get(page).content.decode()
    assert 'id="judge-run-agreement"' in shown and "0.200" in shown
    ranked = shown.split('id="judge-run-rankings"')[1].split("</table>")[0]
    assert "the official judgments are released to your team" in shown
    api_view = api(member).get(f"/api/evaluations/{loaded.slug}/judge-runs/", {"team": "Team Alpha"}).json()
    assert api_view["agreement"][0]["kappa"] == pytest.approx(0.2) and api_view["closed"]
    # the ranking of the three runs under the judge run against the official one (scoring.rankings stores it)
    (tau_row,) = api_view["rankings"]["judge_runs"].values()
    assert tau_row["runs"] == 3 and -1 <= tau_row["tau"] <= 1 and api_view["rankings"]["as_of"]
    assert "Team Alpha: alpha-umbrela" in ranked and f"{tau_row['tau']:.3f}" in ranked
    posted = api(member).post(
        f"/api/evaluations/{loaded.slug}/judge-runs/", {"file": qrels_upload(), "name": "late", "team": "Team Alpha"}
    )
    assert posted.status_code == 400 and "released to your team" in posted.json()["problems"][0]
