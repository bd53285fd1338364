"""ciQA end to end on the database: topics, initial and final runs with their pairing checked at upload, URL files,
planned and timed sessions, the questionnaire with its CSV and summary, the baseline interaction, scores on the
board and the report's recall-by-length plot; and the pages per role."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone

from assess.assignments import assign
from pooling.evaluations import LoadError, create_evaluation
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tests.conftest import PASSWORD
from tracks.qa.ciqa import baseline, questionnaire, sessions, submissions
from tracks.qa.ciqa.models import InteractionSession, QuestionnaireAnswer, Screenshot, SentenceJudgment
from tracks.qa.ciqa.results import board

TOPICS = b"""Topic Number: ciQA2007throwaway
Template: What is the position of [Hank Aaron] with respect to [Barry Bonds' use of steroids]?
Narrative: A training topic.

Topic Number: 56
Template: What evidence is there for transport of [drugs] from [Mexico] to [the U.S.]?
Narrative: Efforts to curtail the transport.

Topic Number: 57
Template: What [financial relationships] exist between [drug companies] and [universities]?
Narrative: Money.
"""


def run_bytes(tag, *answers):
    return "".join(f"{qid} {tag} {docid} {text}\n" for qid, docid, text in answers).encode()


def url_bytes(tag, host="sys.example.org"):
    return (
        f"tag {tag}\nscreenshot https://{host}/shot.png\n"
        f"ciQA2007throwaway https://{host}/t\n56 https://{host}/56\n57 https://{host}/57\n"
    ).encode()


@pytest.fixture
def ciqa(db, make_user):
    evaluation = create_evaluation("ciqa-test", "trec2007-ciqa")
    load_topics(evaluation, TOPICS, "topics.txt")
    return evaluation


@pytest.fixture
def no_docid_check(monkeypatch):
    # the evaluation has no collection: every docid is taken as known
    monkeypatch.setattr("pooling.runs.known_docids_for", lambda evaluation: lambda docids: set(docids))


def test_topics_are_stored_with_template_and_narrative(ciqa):
    topics = {t.ident: t for t in ciqa.topics.all()}
    assert topics["56"].kind == "CIQA" and topics["56"].data["slots"] == ["drugs", "Mexico", "the U.S."]
    assert topics["ciQA2007throwaway"].kind == "CIQA-TRAINING"
    with pytest.raises(LoadError) as refused:
        load_topics(ciqa, b"Topic Number: 58\nTemplate: Who?\nNarrative: x\n", "bad.txt")
    assert refused.value.problems[0].startswith("bad.txt:2: topic 58: the template matches none")


def test_initial_and_final_runs_pairing_and_limits_at_upload(ciqa, no_docid_check):
    r1 = run_bytes("UMDi1", ("56", "D1", "drugs cross the border"), ("57", "D2", "grants"))
    run, _ = submissions.load_run(ciqa, r1, "UMDi1.txt", "UMD", "initial")
    assert run.data["kind"] == "initial"
    final = run_bytes("UMDf1", ("56", "D1", "drugs cross the border"), ("57", "D3", "stock"))
    with pytest.raises(LoadError) as refused:
        submissions.load_run(ciqa, final, "UMDf1.txt", "UMD", "final", "UMDi9")
    assert refused.value.problems == ["UMDf1.txt:0: initial run 'UMDi9' has not been submitted"]
    assert not ciqa.runs.filter(tag="UMDf1").exists()  # nothing stored half-way
    with pytest.raises(LoadError) as refused:
        submissions.load_run(ciqa, final, "UMDf1.txt", "MIT", "final", "UMDi1")
    assert refused.value.problems == ["UMDf1.txt:0: initial run 'UMDi1' is team UMD's, not MIT's"]
    run, _ = submissions.load_run(ciqa, final, "UMDf1.txt", "UMD", "final", "UMDi1", manual=True)
    assert (run.data["initial_tag"], run.is_manual) == ("UMDi1", True)
    submissions.load_run(ciqa, run_bytes("UMDi2", ("56", "D1", "a"), ("57", "D1", "b")), "i2.txt", "UMD", "initial")
    with pytest.raises(LoadError) as refused:
        submissions.load_run(ciqa, run_bytes("UMDi3", ("56", "D1", "a"), ("57", "D1", "b")), "i3.txt", "UMD", "initial")
    assert refused.value.problems == [
        "i3.txt:0: team UMD already has 2 initial runs (UMDi1, UMDi2); at most 2 per team"
    ]
    # the generic upload must say initial or final, and is then held to the same ciQA rules
    x = run_bytes("UMDx", ("56", "D1", "a"), ("57", "D1", "b"))
    [result] = load_run_files(ciqa, [RunFile("x.txt", x, "UMD", 1)])
    assert result.problems == ["x.txt:0: rule 'initial/final pairs': say whether the run is an initial or a final run"]
    [result] = load_run_files(ciqa, [RunFile("x.txt", x, "UMD", 1, kind="initial")])
    assert result.problems == ["x.txt:0: team UMD already has 2 initial runs (UMDi1, UMDi2); at most 2 per team"]
    # a run for the training topic is refused by the format, by line
    with pytest.raises(LoadError) as refused:
        submissions.load_run(
            ciqa, run_bytes("MITi1", ("56", "D1", "a"), ("ciQA2007throwaway", "D1", "b")), "m.txt", "MIT", "initial"
        )
    assert "m.txt:2: topic ciQA2007throwaway is the training topic: runs do not answer it" in refused.value.problems


def test_url_files_checked_and_limited(ciqa):
    url_file, replaced = submissions.load_url_file(ciqa, url_bytes("UMDurl1"), "u.txt", "UMD")
    assert not replaced and list(url_file.urls) == ["ciQA2007throwaway", "56", "57"]
    assert url_file.screenshot_links == ["https://sys.example.org/shot.png"]
    submissions.load_url_file(ciqa, url_bytes("UMDurl2"), "u2.txt", "UMD")
    with pytest.raises(LoadError) as refused:
        submissions.load_url_file(ciqa, url_bytes("UMDurl3"), "u3.txt", "UMD")
    assert refused.value.problems == [
        "u3.txt:0: team UMD already has 2 URL files (UMDurl1, UMDurl2); at most 2 per team"
    ]
    with pytest.raises(LoadError) as refused:
        submissions.load_url_file(ciqa, b"tag X\n56 javascript:alert(1)\n", "bad.txt", "MIT")
    assert refused.value.problems[0] == "bad.txt:2: URL 'javascript:alert(1)' is not http(s)"
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 20
    assert submissions.add_screenshot(url_file, png, "shot.png").content_type == "image/png"
    with pytest.raises(LoadError):
        submissions.add_screenshot(url_file, b"<svg onload=alert(1)>", "shot.svg")


@pytest.fixture
def planned(ciqa, make_user, no_docid_check):
    judge = make_user("judge", "assessor")
    make_user("other", "assessor")
    umd = submissions.load_url_file(ciqa, url_bytes("UMDurl1"), "u.txt", "UMD")[0]
    mit = submissions.load_url_file(ciqa, url_bytes("MITurl1", "mit.example.org"), "m.txt", "MIT")[0]
    assign(ciqa, "57", "judge")
    created, removed = sessions.plan_sessions(ciqa)
    return ciqa, judge, (umd, mit), created


def test_sessions_are_planned_training_first_and_timed(planned):
    ciqa, judge, files, created = planned
    mine = sessions.sessions_of(ciqa, judge)
    assert created == 4 and [s.topic.ident for s in mine] == ["ciQA2007throwaway"] * 2 + ["57"] * 2
    assert {s.url_file for s in mine[:2]} == set(files)
    assert sessions.plan_sessions(ciqa) == (0, 0)  # idempotent
    first = mine[0]
    now = timezone.now()
    first = sessions.start(first, now=now)
    assert sessions.remaining_seconds(first, now + timedelta(seconds=60)) == 240
    assert sessions.start(first, now=now + timedelta(seconds=30)).started_at == now  # the deadline does not move
    ended = sessions.end(first, early=True, now=now + timedelta(seconds=100))
    assert (ended.stopped_early, ended.ended_at) == (True, now + timedelta(seconds=100))
    # a session left running past its deadline ends at the deadline, not early
    second = sessions.start(mine[1], now=now)
    second = sessions.expire(second, now=now + timedelta(seconds=999))
    assert second.ended_at == now + timedelta(seconds=300) and not second.stopped_early
    with pytest.raises(LoadError):
        sessions.skip(mine[2], "  ")
    skipped = sessions.skip(mine[2], "the page never loads")
    assert skipped.status == "skipped" and skipped.skip_reason == "the page never loads"
    with pytest.raises(LoadError):
        sessions.start(skipped)
    assert sessions.progress_by_assessor(ciqa) == [("judge", 3, 4)]
    assert not questionnaire.is_open_to(ciqa, judge)


def test_the_questionnaire_after_the_sessions_csv_and_summary(planned, make_user):
    ciqa, judge, (umd, mit), _ = planned
    for s in sessions.sessions_of(ciqa, judge):
        sessions.skip(s, "offline")
    assert questionnaire.is_open_to(ciqa, judge)
    assert {u.tag for u in questionnaire.interactions_for(ciqa, judge)} == {"UMDurl1", "MITurl1"}
    saved = questionnaire.save_answers(
        ciqa, judge, {(umd.pk, "understand"): "2", (umd.pk, "comments"): "slow", (None, "favourite"): "MIT's"}
    )
    assert saved == 3
    assert questionnaire.save_answers(ciqa, judge, {(umd.pk, "understand"): "4", (umd.pk, "comments"): "slow"}) == 1
    assert QuestionnaireAnswer.objects.filter(question="understand").count() == 2  # the first answer kept
    with pytest.raises(LoadError) as refused:
        questionnaire.save_answers(ciqa, judge, {(umd.pk, "understand"): "9"})
    assert refused.value.problems == ["questionnaire:0: understand: a rating from 1 to 5, not '9'"]
    text = questionnaire.csv_text(ciqa).splitlines()
    assert text[0] == "assessor,team,interaction,question_id,question,answer,saved_at"
    assert [line.split(",")[:4] + [line.split(",")[-2]] for line in text[1:]] == [
        ["judge", "UMD", "UMDurl1", "comments", "slow"],
        ["judge", "UMD", "UMDurl1", "understand", "4"],
        ["judge", "", "", "favourite", "MIT's"],  # the overall questions: no team, no interaction
    ]
    scales, rows = questionnaire.summary(ciqa)
    assert dict((u.tag, means) for u, means in rows)["UMDurl1"] == {"understand": (4.0, 1)}


def test_the_baseline_interaction_and_its_final_run(planned):
    ciqa, judge, files, _ = planned
    base, _ = submissions.load_run(
        ciqa,
        run_bytes("BASEi", ("56", "D1", "s one"), ("57", "D1", "s two"), ("57", "D2", "s three")),
        "b.txt",
        "NIST",
        "initial",
        override_reason="the NIST baseline, prepared after the assignments",  # judging has started (assignments): runs are frozen
    )
    interaction = baseline.baseline_interaction(ciqa, base)
    sessions.plan_sessions(ciqa)
    session = InteractionSession.objects.get(assessor=judge, url_file=interaction, topic__ident="57")
    entries = list(base.entries.filter(topic__ident="57").order_by("line_no"))
    with pytest.raises(LoadError):  # not started
        baseline.save_labels(session, judge, {entries[0].pk: "relevant"})
    session = sessions.start(session)
    assert baseline.save_labels(session, judge, {entries[0].pk: "not-relevant", entries[1].pk: "relevant"}) == 2
    assert baseline.save_labels(session, judge, {entries[0].pk: "not-relevant", entries[1].pk: "no-opinion"}) == 1
    assert SentenceJudgment.objects.count() == 3
    final, removed = baseline.make_final_run(ciqa, base, "BASEf")
    assert removed == 1 and [e.text for e in final.entries.order_by("line_no")] == ["s one", "s three"]
    assert final.data["initial_tag"] == "BASEi"


def test_commands_do_what_the_pages_do(ciqa, make_user, tmp_path, no_docid_check, capsys):
    path = tmp_path / "UMDi1.txt"
    path.write_bytes(run_bytes("UMDi1", ("56", "D1", "a"), ("57", "D1", "b")))
    call_command("load_ciqa_run", "ciqa-test", str(path), "--team", "UMD", "--stage", "initial")
    with pytest.raises(CommandError, match="a final run must name the run tag of its initial run"):
        call_command("load_ciqa_run", "ciqa-test", str(path), "--team", "UMD", "--stage", "final")
    urls = tmp_path / "u.txt"
    urls.write_bytes(url_bytes("UMDurl1"))
    call_command("load_ciqa_urls", "ciqa-test", str(urls), "--team", "UMD")
    make_user("judge", "assessor")
    assign(ciqa, "56", "judge")
    call_command("plan_ciqa_sessions", "ciqa-test", "--seconds", "120")
    assert InteractionSession.objects.filter(assessor__username="judge").count() == 2
    assert ciqa.__class__.objects.get(pk=ciqa.pk).settings["interaction_seconds"] == 120
    definition = tmp_path / "q.txt"
    definition.write_text("[interaction]\nscale ease | Easy? | yes | no\n")
    call_command("ciqa_questionnaire", "ciqa-test", "--define", str(definition))
    assert questionnaire.definition(ciqa.__class__.objects.get(pk=ciqa.pk))["interaction"][0]["id"] == "ease"


def test_the_demo_board_and_report(db, make_user):
    from django.test import Client

    from corpus.demo import load_demo_collections
    from pooling.demo import create_users
    from scoring.reports import build_report

    quiet = lambda *a: None  # noqa: E731
    create_users(quiet)
    load_demo_collections(quiet)
    from tracks.qa.ciqa.demo import load_ciqa_demo

    load_ciqa_demo(quiet)
    load_ciqa_demo(quiet)  # idempotent
    from pooling.models import Evaluation

    ev = Evaluation.objects.get(slug="demo-ciqa")
    shown = board(ev)
    assert [(p.initial, p.final) for p in shown["pairs"]] == [("AlphaCI1", "AlphaCF1"), ("BetaCI1", "BetaCF1")]
    scored = {r.tag: r.pyramid_f for r in shown["runs"]}
    assert scored["AlphaCI1"] is not None and scored["AlphaCI1"] > 0  # topic 901 is judged
    assert shown["recall_svg"].count("<path") == len(shown["curves"]) >= 4
    assert InteractionSession.objects.filter(evaluation=ev, assessor__username="assessor2").count() == 9
    shots = Screenshot.objects.filter(url_file__evaluation=ev)  # one per team's system, not one per load
    assert [s.image[:8] for s in shots] == [b"\x89PNG\r\n\x1a\n"] * 2
    report = build_report(ev.runs.get(tag="AlphaCI1"))
    section = next(s for s in report.sections if s.title == "Recall by length")
    assert section.plot_svg.startswith("<svg") and 'data-run="AlphaCI1"' in section.plot_svg
    client = Client()
    client.login(username="organizer", password="organizer-demo-pw")
    page = client.get(reverse("qa:ciqa_board", args=["demo-ciqa"])).content.decode()
    assert 'id="scatter-plot"' in page and 'data-pair="AlphaCI1-AlphaCF1"' in page


def test_pages_per_role(planned, make_user, client):
    ciqa, judge, (umd, mit), _ = planned
    make_user("org", "organizer")
    make_user("pat", "participant", team="UMD")
    session = sessions.sessions_of(ciqa, judge)[0]
    organizer_pages = [
        reverse("qa:ciqa_overview", args=[ciqa.slug]),
        reverse("qa:ciqa_board", args=[ciqa.slug]),
        reverse("qa:ciqa_questionnaire_summary", args=[ciqa.slug]),
        reverse("qa:ciqa_questionnaire_csv", args=[ciqa.slug]),
    ]
    assessor_pages = [reverse("qa:ciqa_sessions", args=[ciqa.slug]), reverse("qa:ciqa_session", args=[session.pk])]
    client.login(username="pat", password=PASSWORD)
    for url in organizer_pages + assessor_pages:
        assert client.get(url).status_code == 403, url
    client.login(username="other", password=PASSWORD)  # another assessor: not their session
    assert client.get(assessor_pages[1]).status_code == 404
    assert client.post(reverse("qa:ciqa_session_start", args=[session.pk])).status_code == 404
    assert client.get(organizer_pages[0]).status_code == 403
    client.login(username="org", password=PASSWORD)
    for url in organizer_pages:
        assert client.get(url).status_code == 200, url
    client.login(username="judge", password=PASSWORD)
    page = client.get(assessor_pages[1]).content.decode()
    assert 'href="https://sys.example.org/t"' in page or 'href="https://mit.example.org/t"' in page
    assert 'target="_blank"' in page and 'data-remaining="300"' in page
    started = client.post(reverse("qa:ciqa_session_start", args=[session.pk])).json()
    assert started["status"] == "running" and 299 <= started["remaining"] <= 300
    assert client.get(reverse("qa:ciqa_questionnaire", args=[ciqa.slug])).status_code == 403  # sessions left


def test_the_organizers_setting_changes_are_stored_and_logged(planned, make_user, client):
    from core.models import AuditEntry

    ciqa, *_ = planned
    org = make_user("org", "organizer")
    client.login(username="org", password=PASSWORD)
    client.post(reverse("qa:ciqa_plan", args=[ciqa.slug]), {"seconds": "240"})
    ciqa.refresh_from_db()
    assert ciqa.settings["interaction_seconds"] == 240
    entry = AuditEntry.objects.get(action="settings changed", target=ciqa.slug)
    assert entry.user == org and entry.after == {"interaction_seconds": 240}
    client.post(reverse("qa:ciqa_plan", args=[ciqa.slug]), {"seconds": "5"})  # refused: nothing changes
    ciqa.refresh_from_db()
    assert ciqa.settings["interaction_seconds"] == 240 and AuditEntry.objects.count() == 1
    definition = "[interaction]\nscale easy | How easy was it? | very hard | very easy\ntext other | Anything else?\n"
    client.post(reverse("qa:ciqa_define_questionnaire", args=[ciqa.slug]), {"definition": definition})
    ciqa.refresh_from_db()
    logged = AuditEntry.objects.filter(action="settings changed").latest("pk")
    assert logged.user == org and list(logged.after) == ["ciqa_questionnaire"]
    assert logged.after["ciqa_questionnaire"] == ciqa.settings["ciqa_questionnaire"]


def test_the_topics_page_loads_a_ciqa_topic_file_and_names_its_problems(db, make_user, client):
    """The issue's symptom: a ciQA topic upload answered 500 (its format module did not exist)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    evaluation = create_evaluation("ciqa-upload", "trec2007-ciqa")
    make_user("org", "organizer")
    client.login(username="org", password=PASSWORD)
    url = reverse("pooling:topics", args=[evaluation.slug])
    bad = SimpleUploadedFile("t.txt", b"Topic Number: 56\nTemplate: Who is [X]?\nNarrative: n\n")
    response = client.post(url, {"kind": "questions", "file": bad})
    assert response.status_code == 400
    assert "t.txt:2: topic 56: the template matches none of the five ciQA templates" in response.content.decode()
    response = client.post(url, {"kind": "questions", "file": SimpleUploadedFile("topics.txt", TOPICS)})
    assert response.status_code == 302
    assert list(evaluation.topics.values_list("ident", "kind")) == [
        ("ciQA2007throwaway", "CIQA-TRAINING"),
        ("56", "CIQA"),
        ("57", "CIQA"),
    ]
