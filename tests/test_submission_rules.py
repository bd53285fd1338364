"""Submission rules (issue 17, item 1): each rule refuses one case and accepts another, in the pure checker and on
every loading path (function, check_run, load_runs, the organizer's upload page), and an organizer's override is
recorded with its reason."""

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection  # noqa: F401  (the skipif condition reads it)
from django.urls import reverse

from accounts.models import Team
from config import patience
from core import submission_rules as sr
from core.models import AuditEntry
from pooling.evaluations import update_settings
from pooling.models import Participation, Run, Submission
from pooling.runs import check_run_file, load_run_files
from tests.conftest import PASSWORD
from tests.test_pooling_loading import FIXTURES, blog, run_file, tac  # noqa: F401 (fixtures)
from tests.test_pooling_views import upload

TAC = sr.SubmissionRules(
    max_runs_per_team=3,
    priorities=(1, 2, 3),
    unique_priorities=True,
    first_automatic=True,
    tag_rule=sr.TAG_TEAM_PRIORITY,
    team_id_from_tag=r"^(?P<team>.+)[1-3]$",
    manual_description=True,
)


def rules_broken(rules, candidate, team_runs=(), replaced=None):
    return [b.rule for b in sr.breaches(rules, candidate, list(team_runs), replaced)]


# ---------------------------------------------------------------- the pure rules, one refused and one accepted each


def test_runs_per_team():
    few = sr.SubmissionRules(max_runs_per_team=2)
    two = [sr.TeamRun("A1", 1), sr.TeamRun("A2", 2)]
    assert rules_broken(few, sr.Candidate("A3", 3), two) == [sr.RUNS_PER_TEAM]
    assert rules_broken(few, sr.Candidate("A2", 2), two[:1]) == []
    # a replacement is not one more run
    assert rules_broken(few, sr.Candidate("A2", 2), two[:1], replaced=sr.TeamRun("A2", 2)) == []


def test_priorities_and_one_run_per_priority():
    assert rules_broken(TAC, sr.Candidate("A4", 4, team_id="A")) == [sr.PRIORITIES]
    assert rules_broken(TAC, sr.Candidate("A1", 1, team_id="A"), [sr.TeamRun("X1", 1)]) == [sr.ONE_PER_PRIORITY]
    assert rules_broken(TAC, sr.Candidate("A2", 2, team_id="A"), [sr.TeamRun("A1", 1)]) == []


def test_first_run_automatic_and_automatic_only():
    assert rules_broken(TAC, sr.Candidate("A1", 1, manual=True, description="x", team_id="A")) == [sr.FIRST_AUTOMATIC]
    assert rules_broken(TAC, sr.Candidate("A2", 2, manual=True, description="x", team_id="A")) == []
    only = sr.SubmissionRules(automatic_only=True)
    assert rules_broken(only, sr.Candidate("B2", 2, manual=True)) == [sr.AUTOMATIC_ONLY]
    assert rules_broken(only, sr.Candidate("B2", 2)) == []


def test_manual_runs_are_described():
    assert rules_broken(TAC, sr.Candidate("A2", 2, manual=True, description=" ", team_id="A")) == [
        sr.MANUAL_DESCRIPTION
    ]


def test_run_tags():
    assert rules_broken(TAC, sr.Candidate("Other1", 1, team_id="A")) == [sr.RUN_TAG]
    assert rules_broken(TAC, sr.Candidate("A2", 1, team_id="A")) == [sr.RUN_TAG]  # the tag ends in its priority
    prefix = sr.SubmissionRules(tag_rule=sr.TAG_TEAM_PREFIX)
    assert rules_broken(prefix, sr.Candidate("UWfinal", 1, team_id="UMass")) == [sr.RUN_TAG]
    assert rules_broken(prefix, sr.Candidate("UMassIntA", 1, team_id="UMass")) == []
    assert sr.learn_team_id(TAC, "NISTAssessor1") == "NISTAssessor"


def test_a_replaced_run_keeps_its_priority_slot():
    assert rules_broken(TAC, sr.Candidate("A1", 2, team_id=""), replaced=sr.TeamRun("A1", 1)) == [sr.REPLACEMENT_SLOT]
    assert rules_broken(TAC, sr.Candidate("A1", 1, team_id=""), replaced=sr.TeamRun("A1", 1)) == []


def test_initial_final_pairs():
    # the generic rule asks the question; the pairing itself is the track's (tests/tracks/qa/ciqa/test_rules.py)
    ciqa = sr.SubmissionRules(initial_final_pairs=True)
    initial = [sr.TeamRun("UMassBaseAut", 1, kind="initial")]
    assert rules_broken(ciqa, sr.Candidate("UMassIntA", 2, kind="final", initial_tag="UMassBaseAut"), initial) == []
    assert rules_broken(ciqa, sr.Candidate("X", 1)) == [sr.PAIRS]  # initial or final must be said


def test_window_and_deadline_after_first_download():
    closes = datetime(2012, 6, 15, 21, 59, tzinfo=UTC)
    first = datetime(2012, 6, 6, 8, 0, tzinfo=UTC)
    due = sr.deadline(closes, first, 5)
    assert due == datetime(2012, 6, 11, 8, 0, tzinfo=UTC)
    assert sr.deadline(closes, datetime(2012, 6, 14, tzinfo=UTC), 5) == closes  # never later than the close
    assert sr.window_breach(due + timedelta(seconds=1), None, due).rule == sr.WINDOW
    assert sr.window_breach(first, due, None).rule == sr.WINDOW  # not open yet
    assert sr.window_breach(due, first, due) is None


# ---------------------------------------------------------------- the loading paths (TAC 2008's rules)


def tac_run(tag, answer_suffix=b""):
    return (FIXTURES / "tac_valid_run.txt").read_bytes().replace(b"AlphaQA1", tag.encode()) + answer_suffix


def test_six_runs_two_priority_ones_and_a_manual_first_are_refused(tac):
    """The issue's report: six runs of one team, two of priority 1, a manual priority-1 run, a stray tag."""
    [ok] = load_run_files(tac, [run_file("tac_valid_run.txt")])
    assert ok.problems == [] and ok.submission.sha256 and ok.submission.tag == "AlphaQA1"
    assert Participation.objects.get(evaluation=tac, team__name="Team Alpha").ident == "AlphaQA"  # learned
    results = load_run_files(
        tac,
        [
            run_file("dup.txt", data=tac_run("AlphaQB1"), priority=1),
            run_file("stray.txt", data=tac_run("Zeta2"), priority=2),
            run_file("a2.txt", data=tac_run("AlphaQA2")),
            run_file("a3.txt", data=tac_run("AlphaQA3")),
            run_file("a4.txt", data=tac_run("AlphaQA4")),
        ],
    )
    problems = {r.filename: r.problems for r in results}
    assert problems["dup.txt"] == [
        "dup.txt:0: rule 'one run per priority': run 'AlphaQA1' of the team already has priority 1",
        "dup.txt:0: rule 'run tag': run tag 'AlphaQB1' must be the team ID and the priority: 'AlphaQA1'",
    ]
    assert problems["stray.txt"] == [
        "stray.txt:0: rule 'run tag': run tag 'Zeta2' must be the team ID and the priority: 'AlphaQA2'"
    ]
    assert problems["a2.txt"] == problems["a3.txt"] == []
    assert "rule 'runs per team'" in problems["a4.txt"][0] and "rule 'priorities'" in problems["a4.txt"][1]
    assert sorted(Run.objects.values_list("tag", flat=True)) == ["AlphaQA1", "AlphaQA2", "AlphaQA3"]
    manual = run_file("m.txt", data=tac_run("BetaQA1"), team="Team Beta", priority=1)
    manual.manual, manual.description = True, "answers picked by hand"
    [refused] = load_run_files(tac, [manual])
    assert refused.problems == [
        "m.txt:0: rule 'first-priority run automatic': the first-priority run must be fully automatic"
    ]
    assert not Team.objects.filter(name="Team Beta").exists()


def test_replacement_keeps_the_priority_slot_and_is_logged(tac, organizer):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    [moved] = load_run_files(tac, [run_file("again.txt", priority=2, data=tac_run("AlphaQA1"))])
    assert "rule 'a replaced run keeps its priority'" in moved.problems[0]
    [again] = load_run_files(tac, [run_file("again.txt", priority=1, data=tac_run("AlphaQA1"))], by=organizer)
    assert again.replaced and again.problems == []
    entry = AuditEntry.objects.get(action="run replaced")
    assert (entry.username, entry.target, entry.after["file"]) == ("org", "tac-test:AlphaQA1", "again.txt")
    assert Submission.objects.filter(tag="AlphaQA1").count() == 2


def test_override_with_reason_is_kept_on_the_run_and_in_the_log(tac, organizer):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    dup = run_file("dup.txt", data=tac_run("AlphaQB1"), priority=1)
    [result] = load_run_files(tac, [dup], by=organizer, override_reason="NIST agreed: the first run was a test")
    assert result.problems == [] and result.overridden == [sr.ONE_PER_PRIORITY, sr.RUN_TAG]
    run = Run.objects.get(tag="AlphaQB1")
    assert [o["rule"] for o in run.data["overrides"]] == [sr.ONE_PER_PRIORITY, sr.RUN_TAG]
    entry = AuditEntry.objects.get(action="rule overridden")
    assert entry.reason == "NIST agreed: the first run was a test" and entry.username == "org"
    # a format problem is never overridden
    [bad] = load_run_files(tac, [run_file("tac_bad_run.txt")], override_reason="please")
    assert bad.problems and bad.run is None


def test_submission_window(tac):
    now = datetime.now(UTC)
    update_settings(tac, {"submission_closes": (now - timedelta(hours=1)).isoformat()})
    [late] = load_run_files(tac, [run_file("tac_valid_run.txt")])
    assert late.problems and "rule 'submission window': submissions closed at" in late.problems[0]
    update_settings(tac, {"submission_closes": (now + timedelta(hours=1)).isoformat()})
    assert load_run_files(tac, [run_file("tac_valid_run.txt")])[0].problems == []


def test_check_run_command_checks_the_rules_for_a_team(tac, tmp_path):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    dup = tmp_path / "AlphaQB1.txt"
    dup.write_bytes(tac_run("AlphaQB1"))
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("check_run", "tac-test", str(dup), "--team", "Team Alpha", "--priority", "1", stdout=out)
    assert "rule 'one run per priority'" in out.getvalue()
    call_command("check_run", "tac-test", str(dup), stdout=StringIO())  # the format alone: no problem
    ok = tmp_path / "AlphaQA2.txt"
    ok.write_bytes(tac_run("AlphaQA2"))
    call_command("check_run", "tac-test", str(ok), "--team", "Team Alpha", stdout=StringIO(), stderr=StringIO())
    problems, _ = check_run_file(tac, dup.read_bytes(), "d.txt", submission=run_file("d.txt", priority=1, data=b""))
    assert problems[0].startswith("d.txt:0: rule 'one run per priority'")


def test_load_runs_command_refuses_then_overrides(tac, tmp_path):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    dup = tmp_path / "dup.txt"
    dup.write_bytes(tac_run("AlphaQB1"))
    args = ["load_runs", "tac-test", str(dup), "--team", "Team Alpha", "--priority", "1"]
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command(*args, stdout=out, stderr=StringIO())
    assert "rule 'one run per priority'" in out.getvalue()
    out = StringIO()
    call_command(*args, "--override", "baseline run", stdout=out)
    assert "rules overridden: one run per priority, run tag" in out.getvalue()
    assert AuditEntry.objects.get(action="rule overridden").username == "(server)"


def test_upload_page_refuses_names_the_rule_and_overrides(client, organizer, tac):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    client.login(username="org", password=PASSWORD)
    url = reverse("pooling:runs_upload", args=["tac-test"])
    form = {"new_team": "Team Alpha", "priority": "1"}
    refused = client.post(url, form | {"files": [upload("dup.txt", tac_run("AlphaQB1"))]})
    assert refused.status_code == 400 and "rule &#x27;one run per priority&#x27;" in refused.content.decode()
    accepted = client.post(
        url, form | {"files": [upload("dup.txt", tac_run("AlphaQB1"))], "override_reason": "organizer's baseline"}
    )
    assert accepted.status_code == 200 and "rules overridden: one run per priority" in accepted.content.decode()
    assert AuditEntry.objects.get(action="rule overridden").user == organizer


def test_team_id_set_by_the_organizer_is_checked(tac, client, organizer):
    client.login(username="org", password=PASSWORD)
    url = reverse("pooling:teams", args=["tac-test"])
    assert client.post(url, {"team": "Team Alpha", "ident": "Alf"}).status_code == 302
    assert AuditEntry.objects.get(action="team ID set").after == {"ident": "Alf"}
    [refused] = load_run_files(tac, [run_file("tac_valid_run.txt")])
    assert refused.problems == [
        "tac_valid_run.txt:0: rule 'run tag': run tag 'AlphaQA1' must be the team ID and the priority: 'Alf1'"
    ]
    call_command("set_team_id", "tac-test", "Team Alpha", "AlphaQA", stdout=StringIO())
    assert load_run_files(tac, [run_file("tac_valid_run.txt")])[0].problems == []
    page = client.get(url).content.decode()
    assert "AlphaQA1" in page and "<code>AlphaQA</code>" in page


def test_settings_state_and_release_are_logged(tac, organizer):
    from pooling.evaluations import set_state
    from scoring.release import release, withdraw

    update_settings(tac, {"judged_priorities": [1]}, by=organizer)
    entry = AuditEntry.objects.get(action="settings changed")
    assert entry.before == {"judged_priorities": [1, 2]} and entry.after == {"judged_priorities": [1]}
    set_state(tac, "judging", by=organizer)
    assert AuditEntry.objects.get(action="state changed").after == {"state": "judging"}
    release(tac, by="org")
    withdraw(tac, by="org")
    released, withdrawn = (AuditEntry.objects.get(action=a) for a in ("results released", "results withdrawn"))
    assert released.after["state"] == "released" and withdrawn.before == {"state": "released"}
    assert released.target == "tac-test:every team"


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="row locks are PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_two_submissions_of_one_team_at_once_are_checked_one_after_the_other():
    """Both would pass as the team's priority-1 run if each checked before the other stored: the team's
    Participation row is locked for the check and the store."""
    import threading

    from django.db import connections, transaction

    from corpus.models import Collection, Document
    from pooling.evaluations import create_evaluation
    from pooling.topics import load_topics
    from tests.test_pooling_loading import DOCNOS

    collection = Collection.objects.create(name="test-blog06", format="blog06")
    Document.objects.bulk_create([Document(collection=collection, docno=d, raw=b"<DOC></DOC>") for d in DOCNOS])
    evaluation = create_evaluation("tac-race", "tac2008-qa", ["test-blog06"])
    load_topics(evaluation, (FIXTURES / "tac2008_questions.xml").read_bytes(), "q.xml")
    team = Team.objects.create(name="Team Alpha")
    Participation.objects.create(evaluation=evaluation, team=team, ident="AlphaQA")
    holding, go, first = threading.Event(), threading.Event(), []

    def first_submission():
        try:
            with transaction.atomic():  # holds the team's lock from the check to the commit
                Participation.objects.select_for_update(of=("self",)).get(evaluation=evaluation, team=team)
                holding.set()
                patience.wait_until(go.is_set, 20, 0.01)
                first.extend(load_run_files(evaluation, [run_file("a.txt", data=tac_run("AlphaQA1"))]))
        finally:
            connections.close_all()

    thread = threading.Thread(target=first_submission)
    thread.start()
    assert patience.wait_until(holding.is_set, 20, 0.01)
    second = []
    waiter = threading.Thread(
        target=lambda: (
            second.extend(load_run_files(evaluation, [run_file("b.txt", data=tac_run("AlphaQB1"), priority=1)])),
            connections.close_all(),
        )
    )
    waiter.start()

    # the second submission waits on the lock (seen in pg_stat_activity, not guessed with a sleep)
    def waiting():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            return cursor.fetchone()[0] > 0

    assert patience.wait_until(waiting, 20, 0.01), "the second submission never waited for the first"
    go.set()
    thread.join(patience.scaled(30))
    waiter.join(patience.scaled(30))
    assert first[0].problems == []
    assert "rule 'one run per priority': run 'AlphaQA1' of the team already has priority 1" in second[0].problems[0]
    assert list(Run.objects.values_list("tag", flat=True)) == ["AlphaQA1"]
