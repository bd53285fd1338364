"""Evaluations, questions, top documents, runs and assignments: functions and management commands."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Team
from assess.assignments import assign
from corpus.models import Collection, Document
from pooling.evaluations import LoadError, create_evaluation
from pooling.models import Evaluation, Run, RunEntry, Topic
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_top_docs, load_topics

FIXTURES = Path(__file__).parent / "fixtures" / "qa"
DOCNOS = [f"BLOG06-20051206-000-000000000{i}" for i in (1, 2, 3)]


@pytest.fixture
def blog(db):
    collection = Collection.objects.create(name="test-blog06", format="blog06")
    Document.objects.bulk_create([Document(collection=collection, docno=d, raw=b"<DOC></DOC>") for d in DOCNOS])
    return collection


@pytest.fixture
def tac(blog):
    evaluation = create_evaluation("tac-test", "tac2008-qa", ["test-blog06"])
    load_topics(evaluation, (FIXTURES / "tac2008_questions.xml").read_bytes(), "tac2008_questions.xml")
    return evaluation


def run_file(name, team="Team Alpha", priority=None, data=None):
    return RunFile(
        filename=name, data=data if data is not None else (FIXTURES / name).read_bytes(), team=team, priority=priority
    )


def test_create_evaluation_seeds_settings_from_track(blog):
    evaluation = create_evaluation("e1", "tac2008-qa", ["test-blog06"], settings={"judged_priorities": [1, 2, 3]})
    assert evaluation.settings["max_answer_chars"] == 7000
    assert evaluation.settings["allow_nil"] is False
    assert evaluation.settings["judged_priorities"] == [1, 2, 3]
    assert list(evaluation.collections.values_list("name", flat=True)) == ["test-blog06"]
    with pytest.raises(LoadError) as exc:
        create_evaluation("e1", "nope", ["missing"])
    assert exc.value.problems == [
        "unknown track 'nope'; known tracks: "
        + ", ".join(sorted(__import__("core.tracks", fromlist=["TRACKS"]).TRACKS)),
        "an evaluation with slug 'e1' already exists",
        "no collection named 'missing'",
    ]


def test_commands_create_update_state(blog):
    out = StringIO()
    call_command(
        "create_evaluation",
        "t07",
        "--track",
        "trec2007-qa",
        "--collection",
        "test-blog06",
        "--title",
        "TREC 2007",
        stdout=out,
    )
    evaluation = Evaluation.objects.get(slug="t07")
    assert evaluation.title == "TREC 2007" and evaluation.settings["allow_nil"] is True
    call_command(
        "update_evaluation",
        "t07",
        "--state",
        "judging",
        "--judged-priorities",
        "1",
        "--max-answer-chars",
        "7000",
        "--no-nil",
        stdout=out,
    )
    evaluation.refresh_from_db()
    assert evaluation.state == "judging"
    assert evaluation.settings["judged_priorities"] == [1]
    assert evaluation.settings["max_answer_chars"] == 7000 and evaluation.settings["allow_nil"] is False
    with pytest.raises(CommandError):
        call_command("update_evaluation", "t07", "--state", "closed")


def test_questions_stored_as_series_with_children_in_order(tac):
    series = list(Topic.objects.filter(evaluation=tac, parent__isnull=True).order_by("position"))
    assert [(s.ident, s.kind, s.text) for s in series] == [
        ("1001", "series", "Trader Joe's"),
        ("1002", "series", "Sean Hannity"),
    ]
    assert list(series[1].children.order_by("position").values_list("ident", "kind")) == [
        ("1002.1", "RIGIDLIST"),
        ("1002.2", "SQUISHYLIST"),
        ("1002.3", "SQUISHYLIST"),
    ]


def test_bad_question_file_loads_nothing_and_names_the_place(blog):
    evaluation = create_evaluation("t", "tac2008-qa", ["test-blog06"])
    with pytest.raises(LoadError) as exc:
        load_topics(
            evaluation,
            b'<trecqa><target id="1" text="x"><q id="1.1" type="RigidList">a?</q>'
            b'<q id="1.1" type="SquishyList">b?</q></target></trecqa>',
            "q.xml",
        )
    assert exc.value.problems == ["q.xml:1: duplicate id '1.1' (question); first used on line 1"]
    assert not Topic.objects.filter(evaluation=evaluation).exists()


def test_question_type_must_belong_to_the_track(blog):
    evaluation = create_evaluation("t", "tac2008-qa", ["test-blog06"])
    with pytest.raises(LoadError) as exc:
        load_topics(evaluation, (FIXTURES / "trec2007_questions.xml").read_bytes(), "trec.xml")
    assert exc.value.problems[0] == (
        "trec.xml:3: question 219.1 has type FACTOID, not one of this track's types (RIGIDLIST, SQUISHYLIST)"
    )
    assert not Topic.objects.exists()


def test_reloading_questions_updates_in_place(tac):
    run_ids = load_run_files(tac, [run_file("tac_valid_run.txt")])
    question = Topic.objects.get(evaluation=tac, ident="1001.1")
    changed = (FIXTURES / "tac2008_questions.xml").read_bytes().replace(b"Who likes", b"Who really likes")
    load_topics(tac, changed, "v2.xml")
    question.refresh_from_db()
    assert question.text == "Who really likes Trader Joe's?"
    assert RunEntry.objects.filter(topic=question).count() == 2 and run_ids[0].run is not None
    # a question in use cannot silently disappear
    smaller = changed.replace(b'<q id = "1001.1" type="RigidList">', b'<q id = "1001.9" type="RigidList">')
    with pytest.raises(LoadError) as exc:
        load_topics(tac, smaller, "v3.xml")
    assert exc.value.problems == ["v3.xml:0: topic 1001.1 is not in the file but runs, pools or assignments use it"]


def test_top_docs_stored_on_series(tac):
    assert load_top_docs(tac, (FIXTURES / "tac2008_topdocs.txt").read_bytes(), "top.txt") == 3
    series = Topic.objects.get(evaluation=tac, ident="1001")
    assert series.data["top_docs"][0] == [1, DOCNOS[0], 12.5]
    with pytest.raises(LoadError) as exc:
        load_top_docs(tac, b"999 1 D 1.0\n", "top.txt")
    assert exc.value.problems == ["top.txt:0: target 999 is not a series of tac-test"]


def test_valid_run_loads_with_team_priority_from_tag(tac):
    [result] = load_run_files(tac, [run_file("tac_valid_run.txt")])
    assert result.problems == []
    run = Run.objects.get(evaluation=tac, tag="AlphaQA1")
    assert (run.team.name, run.priority, run.is_manual, run.whole_collection) == ("Team Alpha", 1, False, True)
    assert run.entries.count() == 6
    entry = run.entries.get(line_no=3)
    assert (entry.topic.ident, entry.docid, entry.text) == ("1001.2", DOCNOS[0], "cheap   wine and friendly staff")


def test_bad_run_loads_nothing_and_keeps_earlier_run(tac):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    bad = (FIXTURES / "tac_valid_run.txt").read_bytes().replace(b"1002.3 AlphaQA1", b"1002.9 AlphaQA1")
    [result] = load_run_files(tac, [run_file("again.txt", data=bad)])
    assert result.problems == [
        "again.txt:6: unknown question id '1002.9'",
        "again.txt:0: question 1002.3 has no line: every question needs at least one",
    ]
    run = Run.objects.get(tag="AlphaQA1")
    assert run.entries.count() == 6 and run.source_name == "tac_valid_run.txt"


def test_uploading_a_tag_again_replaces_the_run(tac):
    load_run_files(tac, [run_file("tac_valid_run.txt")])
    fewer = b"".join(
        line + b"\n"
        for line in (FIXTURES / "tac_valid_run.txt").read_bytes().splitlines()
        if not line.startswith(b"1001.1") or b"college" in line
    )
    [result] = load_run_files(tac, [run_file("v2.txt", data=fewer, priority=1)])
    assert result.replaced and result.problems == []
    run = Run.objects.get(tag="AlphaQA1")
    assert run.entries.count() == 5 and run.priority == 1 and Run.objects.count() == 1
    # another team cannot take the tag over
    [result] = load_run_files(tac, [run_file("v3.txt", team="Team Beta", data=fewer)])
    assert result.problems == ["v3.txt:0: run tag 'AlphaQA1' already belongs to team 'Team Alpha'"]


def test_check_run_command_reports_and_exits_1(tac, capsys):
    with pytest.raises(SystemExit) as exc:
        call_command("check_run", "tac-test", str(FIXTURES / "tac_bad_run.txt"))
    assert exc.value.code == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7
    assert lines[0] == (
        f"{FIXTURES / 'tac_bad_run.txt'}:2: missing columns: expected 'qid run-tag docid "
        f"answer-string', found 2 columns"
    )
    call_command("check_run", "tac-test", str(FIXTURES / "tac_valid_run.txt"))  # no exit: no problems
    assert not Run.objects.exists()


def test_load_runs_command_with_options_and_manifest(tac, tmp_path, capsys):
    call_command(
        "load_runs",
        "tac-test",
        str(FIXTURES / "tac_valid_run.txt"),
        "--team",
        "Team Alpha",
        "--priority",
        "2",
        "--manual",
        "--description",
        "answers checked by hand",
        "--partial-collection",
    )
    run = Run.objects.get(tag="AlphaQA1")
    assert (run.priority, run.is_manual, run.whole_collection) == (2, True, False)
    beta = tmp_path / "beta.txt"
    beta.write_bytes((FIXTURES / "tac_valid_run.txt").read_bytes().replace(b"AlphaQA1", b"BetaQA3"))
    manifest = tmp_path / "manifest.tsv"
    manifest.write_text("# file team priority\nbeta.txt\tTeam Beta\t3\tmanual\n")
    call_command("load_runs", "tac-test", str(beta), "--manifest", str(manifest), "--description", "by hand")
    run = Run.objects.get(tag="BetaQA3")
    assert (run.team.name, run.priority, run.is_manual) == ("Team Beta", 3, True)
    with pytest.raises(SystemExit):
        call_command("load_runs", "tac-test", str(FIXTURES / "tac_bad_run.txt"), "--team", "X")
    assert not Team.objects.filter(name="X").exists()


def test_load_topics_command_and_errors(blog, tmp_path):
    create_evaluation("t07", "trec2007-qa", ["test-blog06"])
    call_command("load_topics", "t07", str(FIXTURES / "trec2007_questions.xml"))
    assert Topic.objects.filter(evaluation__slug="t07").count() == 8
    bad = tmp_path / "bad.xml"
    bad.write_bytes(b"<trecqa><target id='1'>")
    with pytest.raises(CommandError) as exc:
        call_command("load_topics", "t07", str(bad))
    assert str(exc.value).startswith(f"{bad}:1: malformed XML")


def test_assign_primary_and_second(tac, make_user):
    make_user("a1", "assessor")
    make_user("a2", "assessor")
    make_user("p1", "participant")
    call_command("assign", "tac-test", "1001", "a1")
    call_command("assign", "tac-test", "1001", "a2", "--second")
    from assess.models import Assignment

    assert sorted(Assignment.objects.values_list("topic__ident", "assessor__username", "role")) == [
        ("1001", "a1", "primary"),
        ("1001", "a2", "secondary"),
    ]
    with pytest.raises(LoadError, match="'p1' is not an assessor"):
        assign(tac, "1002", "p1")
    with pytest.raises(LoadError, match="already the primary assessor"):
        assign(tac, "1001", "a1", second=True)
    with pytest.raises(LoadError, match="no series '1001.1'"):
        assign(tac, "1001.1", "a1")


def test_trec2007_nil_entry_is_stored_with_its_data_and_not_pooled(blog):
    from pooling.models import PoolItem
    from pooling.pools import build_pools

    evaluation = create_evaluation("t07", "trec2007-qa", ["test-blog06"])
    load_topics(evaluation, (FIXTURES / "trec2007_questions.xml").read_bytes(), "q.xml")
    d1, d2 = DOCNOS[:2]
    data = (
        f"219.1 R1 NIL\n219.2 R1 {d1} chemical engineer\n219.5 R1 {d1} Colin Powell\n"
        f"219.5 R1 {d2} Colin  Powell\n219.7 R1 {d2} Curveball's claims were never verified\n"
        f"254.1 R1 {d1} Coco Chanel\n254.8 R1 {d2} Karl Lagerfeld designs for Chanel\n"
    ).encode()
    [result] = load_run_files(evaluation, [RunFile(filename="r1.txt", data=data, team="T", priority=1)])
    assert result.problems == []
    nil = RunEntry.objects.get(run=result.run, line_no=1)
    assert (nil.docid, nil.text, nil.data) == ("NIL", "", {"nil": True})
    build_pools(evaluation)
    assert not PoolItem.objects.filter(topic__ident="219.1").exists()
    assert sorted(PoolItem.objects.filter(topic__ident="219.5").values_list("docid", "text")) == [
        (d1, "Colin Powell"),
        (d2, "Colin Powell"),
    ]


def test_a_submission_window_that_is_no_time_is_refused(tac):
    """Read on every upload and team page: a value that is no ISO time would break them all (the API takes any)."""
    from pooling.evaluations import update_settings

    for bad in ("tomorrow", 5):
        with pytest.raises(LoadError, match="submission_opens must be an ISO time"):
            update_settings(tac, {"submission_opens": bad})
    assert "submission_opens" not in tac.settings
    update_settings(tac, {"submission_opens": "2026-06-01T12:00:00+00:00", "submission_closes": None})
    assert tac.settings["submission_opens"] == "2026-06-01T12:00:00+00:00"
