"""Participants submit their own runs (checker report first, receipt, window) and download what the seeds give
them; a participant never sees another team's files or receipts, nor any judgment before release (issue 17)."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.urls import reverse

from accounts.models import Team
from assess.models import Judgment
from pooling.evaluations import create_evaluation, update_settings
from pooling.models import Download, Participation, Run, Submission
from pooling.runs import load_run_files
from pooling.topics import load_topics
from scoring.release import release
from tests.conftest import PASSWORD
from tests.test_pooling_loading import FIXTURES, blog, run_file, tac  # noqa: F401 (fixtures)
from tests.test_pooling_views import upload
from tracks.qa.sample import build_sample

QA4MRE = Path(__file__).parent / "fixtures" / "qa4mre"
BOLT = Path(__file__).parent / "fixtures" / "bolt"


@pytest.fixture
def alpha(client, participant):
    client.login(username="par", password=PASSWORD)
    return client


def test_check_only_stores_nothing_then_submit_gives_a_receipt(alpha, tac):
    url = reverse("pooling:participate", args=["tac-test"])
    page = alpha.get(url)
    assert page.status_code == 200 and "at most 3 runs per team" in page.content.decode()
    checked = alpha.post(url, {"file": upload("tac_valid_run.txt"), "action": "check"})
    assert checked.status_code == 200 and 'id="ok"' in checked.content.decode()
    assert not Run.objects.exists()
    sent = alpha.post(url, {"file": upload("tac_valid_run.txt"), "action": "submit"})
    receipt = Submission.objects.get()
    assert sent.status_code == 302 and sent.url == reverse("pooling:receipt", args=[receipt.pk])
    shown = alpha.get(sent.url).content.decode()
    assert "run tag: AlphaQA1" in shown and receipt.sha256 in shown and len(receipt.sha256) == 64
    text = alpha.get(sent.url + "?download=1")
    assert text["Content-Disposition"] == 'attachment; filename="receipt-AlphaQA1.txt"'
    assert b"sha256: " + receipt.sha256.encode() in text.content
    assert receipt.user.username == "par" and Run.objects.get().team.name == "Team Alpha"


def test_participant_submission_refused_names_the_rule_and_stores_nothing(alpha, tac):
    url = reverse("pooling:participate", args=["tac-test"])
    manual = alpha.post(url, {"file": upload("tac_valid_run.txt"), "action": "submit", "manual": "on"})
    body = manual.content.decode()
    assert manual.status_code == 400
    assert "rule &#x27;first-priority run automatic&#x27;" in body and "rule &#x27;manual runs described" in body
    assert not Run.objects.exists() and not Submission.objects.exists()
    # a participant cannot override: the field is not read on this path
    again = alpha.post(
        url, {"file": upload("tac_valid_run.txt"), "action": "submit", "manual": "on", "override_reason": "please"}
    )
    assert again.status_code == 400 and not Run.objects.exists()


def test_window_closed_refuses_participant(alpha, tac):
    update_settings(tac, {"submission_closes": (datetime.now(UTC) - timedelta(minutes=1)).isoformat()})
    url = reverse("pooling:participate", args=["tac-test"])
    assert "Closed for runs: submissions closed at" in alpha.get(url).content.decode()
    refused = alpha.post(url, {"file": upload("tac_valid_run.txt"), "action": "submit"})
    assert refused.status_code == 400 and "rule &#x27;submission window&#x27;" in refused.content.decode()


def test_other_teams_receipts_and_teams_are_out_of_reach(client, make_user, tac, participant):
    [result] = load_run_files(tac, [run_file("tac_valid_run.txt")])
    make_user("beta", "participant", team="Team Beta")
    client.login(username="beta", password=PASSWORD)
    assert client.get(reverse("pooling:receipt", args=[result.submission.pk])).status_code == 404
    other_team = reverse("pooling:participate", args=["tac-test"]) + "?team=Team%20Alpha"
    assert client.get(other_team).status_code == 404
    page = client.get(reverse("pooling:participate", args=["tac-test"])).content.decode()
    assert "AlphaQA1" not in page  # Beta's page lists Beta's receipts only


def test_test_questions_and_top_docs_download_records_the_first(alpha, tac):
    from pooling.topics import load_top_docs

    load_top_docs(tac, (FIXTURES / "tac2008_topdocs.txt").read_bytes(), "tac2008_topdocs.txt")
    page = alpha.get(reverse("pooling:participate", args=["tac-test"])).content.decode()
    assert "tac2008_questions.xml" in page and "tac2008_topdocs.txt" in page
    got = alpha.get(reverse("pooling:team_file", args=["tac-test", "topics"]))
    assert got.status_code == 200 and got.content == (FIXTURES / "tac2008_questions.xml").read_bytes()
    assert Download.objects.get().what == "topics"
    assert Participation.objects.get(team__name="Team Alpha").first_download_at is not None
    assert alpha.get(reverse("pooling:team_file", args=["tac-test", "nope"])).status_code == 404


def test_tac_deadline_is_not_counted_from_the_first_download(alpha, tac):
    """The deadline counted from a team's first test-data download is QA4MRE's rule, not TAC's."""
    from pooling.evaluations import update_settings

    update_settings(tac, {"submission_closes": "2030-07-02T03:59:00+00:00"})
    assert alpha.get(reverse("pooling:team_file", args=["tac-test", "topics"])).status_code == 200
    page = alpha.get(reverse("pooling:participate", args=["tac-test"])).content.decode()
    assert "2030-07-02 03:59" in page
    assert "first test-data download" not in page


def test_qa4mre_runs_due_within_five_days_of_the_first_download(alpha, participant, db):
    evaluation = create_evaluation("qa4mre-t", "qa4mre-2012")
    load_topics(evaluation, (QA4MRE / "test_set.xml").read_bytes(), "test_set.xml")
    got = alpha.post(reverse("pooling:team_file", args=["qa4mre-t", "topics"]))  # "Download and start my clock"
    assert got.status_code == 200 and got["Content-Disposition"].startswith("attachment")
    taking_part = Participation.objects.get(evaluation=evaluation, team__name="Team Alpha")
    first = taking_part.first_download_at
    alpha.get(reverse("pooling:team_file", args=["qa4mre-t", "topics"]))  # a second download moves nothing
    taking_part.refresh_from_db()
    assert taking_part.first_download_at == first
    page = alpha.get(reverse("pooling:participate", args=["qa4mre-t"])).content.decode()
    assert "counted from your first test-data download" in page
    taking_part.first_download_at = datetime.now(UTC) - timedelta(days=5, minutes=1)
    taking_part.save()
    url = reverse("pooling:participate", args=["qa4mre-t"])
    late = alpha.post(
        url, {"file": upload("alph12011enen.xml", (QA4MRE / "alph12011enen.xml").read_bytes()), "action": "submit"}
    )
    assert late.status_code == 400 and "rule &#x27;submission window&#x27;" in late.content.decode()
    taking_part.first_download_at = datetime.now(UTC) - timedelta(days=4)
    taking_part.save()
    sent = alpha.post(
        url, {"file": upload("alph12011enen.xml", (QA4MRE / "alph12011enen.xml").read_bytes()), "action": "submit"}
    )
    assert sent.status_code == 302


def test_bolt_teams_get_query_and_language_only_until_release_then_assessed_runs(alpha, participant, make_user):
    from corpus.loading import load_collection
    from pooling.pools import build_pools
    from pooling.runs import RunFile

    load_collection("bolt-camp-forum", "bolt-forum", [str(BOLT / "forum.xml")])
    evaluation = create_evaluation("bolt-t", "bolt-ir-p2", ["bolt-camp-forum"])
    load_topics(evaluation, (BOLT / "topics.xml").read_bytes(), "topics.xml")
    runs = [("alpha1.xml", "Team Alpha"), ("alpha1-groups.xml", "Team Alpha"), ("beta1.xml", "Team Beta")]
    loaded = load_run_files(
        evaluation, [RunFile(filename=n, data=(BOLT / n).read_bytes(), team=t, priority=1) for n, t in runs]
    )
    assert not any(r.problems for r in loaded)
    build_pools(evaluation)
    reduced = alpha.get(reverse("pooling:team_file", args=["bolt-t", "topics"])).content.decode()
    assert "<query>What do people in Cairo think of the new metro line?</query>" in reduced
    assert "<description>" not in reduced and "LDC-1.001-1" not in reduced
    alpha_tag, groups_tag, beta_tag = (r.run.tag for r in loaded)
    assessed = reverse("scoring:team_run_judgments", args=["bolt-t", alpha_tag])
    assert alpha.get(assessed).status_code == 404  # not released yet
    release(evaluation, Team.objects.get(name="Team Alpha"))
    full = alpha.get(reverse("pooling:team_file", args=["bolt-t", "topics"])).content
    assert full == (BOLT / "topics.xml").read_bytes()
    page = alpha.get(reverse("pooling:participate", args=["bolt-t"])).content.decode()
    assert f"Judgments of {alpha_tag} (official format)" in page
    assert f"Judgments of {groups_tag} (official format)" not in page  # a grouping run has no such file
    got = alpha.get(assessed)
    assert got.status_code == 200 and got.content.startswith(b"<?xml") and b"bolt-ir-submission" in got.content
    assert alpha.get(reverse("scoring:team_run_judgments", args=["bolt-t", beta_tag])).status_code == 404


@pytest.fixture
def judged(make_user, participant):
    """A TAC sample whose run 1 is Team Alpha's and run 2 Team Beta's, every item judged."""
    sample = build_sample(slug="camp", track="tac2008-qa")
    alpha, beta = Team.objects.get(name="Team Alpha"), Team.objects.create(name="Team Beta")
    Run.objects.filter(tag="camprun1").update(team=alpha)
    Run.objects.filter(tag="camprun2").update(team=beta)
    judge = make_user("ass", "assessor")
    for items in sample.items.values():
        for item in items:
            Judgment.objects.create(
                evaluation=sample.evaluation,
                topic=item.topic,
                kind="instance",
                item=item,
                assessor=judge,
                value={"label": "correct" if item.position % 2 == 0 else "incorrect", "answer_class": None},
            )
    return sample


def test_judgments_only_after_release_only_own_runs(client, judged, make_user):
    client.login(username="par", password=PASSWORD)
    own = reverse("scoring:team_judgments", args=["camp", "own"]) + "?team=Team%20Alpha"
    nist = reverse("scoring:team_judgments", args=["camp", "list"]) + "?team=Team%20Alpha"
    page = reverse("pooling:participate", args=["camp"])
    assert client.get(own).status_code == 404 and client.get(nist).status_code == 404
    assert "Judgments of your runs" not in client.get(page).content.decode()
    release(judged.evaluation, Team.objects.get(name="Team Alpha"))
    assert "Judgments of your runs" in client.get(page).content.decode()
    body = client.get(own).content.decode()
    assert "camprun1\t" in body and "camprun2" not in body and "\tinstance\tcorrect" in body
    lines = client.get(nist).content.decode().splitlines()
    assert lines and all(" camprun1 " in line for line in lines)
    # Beta's results are not released: Beta's member sees nothing, and cannot ask for Alpha's
    make_user("beta", "participant", team="Team Beta")
    client.login(username="beta", password=PASSWORD)
    assert client.get(reverse("scoring:team_judgments", args=["camp", "own"])).status_code == 404
    assert client.get(own).status_code == 404


@pytest.mark.parametrize(
    "name,args",
    [
        ("pooling:participate", ["tac-test"]),
        ("pooling:team_file", ["tac-test", "topics"]),
        ("scoring:team_judgments", ["tac-test", "own"]),
    ],
)
def test_participant_pages_refuse_other_roles(client, make_user, tac, name, args):
    make_user("ass", "assessor")
    client.login(username="ass", password=PASSWORD)
    assert client.get(reverse(name, args=args)).status_code == 403


def test_teams_page_is_for_organizers_only(client, participant, tac):
    client.login(username="par", password=PASSWORD)
    assert client.get(reverse("pooling:teams", args=["tac-test"])).status_code == 403
    assert client.post(reverse("pooling:teams", args=["tac-test"]), {"team": "X", "ident": "X"}).status_code == 403


def test_a_participant_without_a_team_gets_nothing(client, make_user, tac):
    make_user("loner", "participant")
    client.login(username="loner", password=PASSWORD)
    assert client.get(reverse("pooling:participate", args=["tac-test"])).status_code == 404
    assert client.get(reverse("pooling:team_file", args=["tac-test", "topics"])).status_code == 404


def test_a_file_name_with_quotes_and_newlines_downloads_safely(alpha, tac):
    from pooling.models import EvaluationFile

    EvaluationFile.objects.filter(evaluation=tac, kind="topics").update(filename='q"uest\r\nions ü.xml')
    got = alpha.get(reverse("pooling:team_file", args=["tac-test", "topics"]))
    assert got.status_code == 200 and "\n" not in got["Content-Disposition"]
    assert got["Content-Disposition"].startswith("attachment; filename")
