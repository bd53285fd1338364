"""QA4MRE evaluations end to end through the management commands: test set, runs, gold, stored scores."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from pooling.evaluations import create_evaluation
from pooling.models import Run, Topic
from scoring.models import Score

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "qa4mre"
SLUG = "qa4mre-test"


def path(name):
    return str(FIXTURES / name)


def run_score(tag, measure="c_at_1", topic=None):
    scope = Score.RUN if topic is None else (Score.QUESTION if topic.count(".") == 2 else Score.SERIES)
    score = Score.objects.get(run__tag=tag, scope=scope, measure=measure, **({"topic__ident": topic} if topic else {}))
    return score.value


@pytest.fixture
def evaluation(db):
    evaluation = create_evaluation(SLUG, "qa4mre-2012")
    call_command("load_topics", SLUG, path("test_set.xml"), stdout=StringIO())
    return evaluation


def load_runs(*names, team="Team Alpha"):
    out = StringIO()
    call_command("load_runs", SLUG, *[path(n) for n in names], "--team", team, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_test_set_and_documents_loaded(evaluation):
    kinds = list(Topic.objects.filter(evaluation=evaluation).values_list("kind", flat=True))
    assert kinds.count("topic") == 1 and kinds.count("reading-test") == 2 and kinds.count("question") == 10
    test = Topic.objects.get(evaluation=evaluation, ident="1.2")
    assert test.parent.ident == "1" and test.data["d_id"] == "2"
    from corpus.models import Document

    doc = Document.objects.get(collection__name=f"{SLUG}-docs", docno=test.data["docno"])
    assert doc.text == test.data["doc"] and "400 retired teachers" in doc.text
    assert evaluation.collections.filter(name=f"{SLUG}-docs").exists()
    # reloading the test set keeps one document per reading test
    call_command("load_topics", SLUG, path("test_set.xml"), stdout=StringIO())
    assert Document.objects.filter(collection__name=f"{SLUG}-docs").count() == 2


def test_runs_wait_for_gold_then_scored(evaluation):
    load_runs("alph12011enen.xml", "alph12022enen.xml")
    load_runs("beta12013enen.xml", team="Team Beta")
    run = Run.objects.get(tag="alph12022enen")
    assert run.priority == 2 and run.team.name == "Team Alpha" and run.entries.count() == 10
    assert run.data["resource_type"] == 2
    assert not Score.objects.exists()  # nothing to score against yet

    out = StringIO()
    call_command("load_gold", SLUG, path("gold.xml"), stdout=out)
    assert "gold answers of 10 questions" in out.getvalue() and "1 without a correct answer" in out.getvalue()
    assert Topic.objects.get(evaluation=evaluation, ident="1.2.3").data["correct"] is None
    # worked by hand in test_measures: answers all 0.7; mixed 0.6; nothing 0
    assert run_score("alph12011enen") == pytest.approx(0.7)
    assert run_score("alph12022enen") == pytest.approx(0.6)
    assert run_score("beta12013enen") == 0.0
    assert run_score("alph12022enen", "accuracy_answered") == pytest.approx(0.8)
    assert run_score("alph12022enen", "self_validation") == pytest.approx(2 / 3)
    assert run_score("beta12013enen", "accuracy_answered") is None
    # per reading test and per topic
    assert run_score("alph12022enen", topic="1.1") == pytest.approx(0.64)
    assert run_score("alph12022enen", topic="1.2") == pytest.approx(0.56)
    assert run_score("alph12022enen", topic="1") == pytest.approx(0.6)
    assert run_score("alph12011enen", topic="1.1") == pytest.approx(0.8)
    # per question: 1.1.3 was NO with the right candidate: not credited, candidate right
    assert run_score("alph12022enen", topic="1.1.3") == 0.0
    assert run_score("alph12022enen", "self_validation", topic="1.1.3") == 1.0
    detail = Score.objects.get(run__tag="alph12022enen", scope=Score.RUN, measure="c_at_1").detail
    assert detail == {"n": 10, "right": 4, "wrong": 1, "unanswered": 5, "candidates": 3, "candidates_right": 2}


def test_run_loaded_after_gold_is_scored_at_once(evaluation):
    call_command("load_gold", SLUG, path("gold.xml"), stdout=StringIO())
    load_runs("alph12022enen.xml")
    assert run_score("alph12022enen") == pytest.approx(0.6)


def test_gold_reload_rescores(evaluation, tmp_path):
    call_command("load_gold", SLUG, path("gold.xml"), stdout=StringIO())
    load_runs("alph12011enen.xml")
    # second gold: 1.2.3 gets answer 5 as correct, which run alph12011enen chose: 8 right of 10
    gold = (
        (FIXTURES / "gold.xml")
        .read_text()
        .replace('<answer a_id="5">that memory improves with age</answer>', '<answer a_id="5" correct="Yes">x</answer>')
    )
    (tmp_path / "gold2.xml").write_text(gold)
    call_command("load_gold", SLUG, str(tmp_path / "gold2.xml"), stdout=StringIO())
    assert run_score("alph12011enen") == pytest.approx(0.8)
    assert Score.objects.filter(run__tag="alph12011enen", scope=Score.RUN, measure="c_at_1").count() == 1


def test_bad_gold_changes_nothing(evaluation, tmp_path):
    call_command("load_gold", SLUG, path("gold.xml"), stdout=StringIO())
    load_runs("alph12011enen.xml")
    bad = (
        (FIXTURES / "gold.xml")
        .read_text()
        .replace(
            '<answer a_id="1">a fishing cooperative</answer>',
            '<answer a_id="1" correct="Yes">a fishing cooperative</answer>',
        )
    )
    (tmp_path / "bad.xml").write_text(bad)
    with pytest.raises(CommandError) as raised:
        call_command("load_gold", SLUG, str(tmp_path / "bad.xml"), stdout=StringIO())
    assert f"{tmp_path / 'bad.xml'}:16: question 1.1.1 has 2 answers marked" in str(raised.value)
    assert Topic.objects.get(evaluation=evaluation, ident="1.1.1").data["correct"] == 2
    assert run_score("alph12011enen") == pytest.approx(0.7)


def test_gold_needs_test_set_and_qa4mre(db):
    create_evaluation("empty-qa4mre", "qa4mre-2012")
    with pytest.raises(CommandError, match="has no questions yet: load the test set first"):
        call_command("load_gold", "empty-qa4mre", path("gold.xml"))
    create_evaluation("other", "trec2007-qa")
    with pytest.raises(CommandError, match="is a trec2007-qa evaluation, not qa4mre-2012"):
        call_command("load_gold", "other", path("gold.xml"))


def test_malformed_run_is_not_loaded(evaluation, tmp_path):
    call_command("load_gold", SLUG, path("gold.xml"), stdout=StringIO())
    load_runs("alph12011enen.xml")
    text = (FIXTURES / "alph12011enen.xml").read_text()
    broken = text.replace('<question q_id="2" answered="YES">', '<question q_id="2" answered="MAYBE">', 1)
    broken = broken.replace('<answer a_id="3"/>', '<answer a_id="9"/>', 1)
    (tmp_path / "alph12011enen.xml").write_text(broken)
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command(
            "load_runs",
            SLUG,
            str(tmp_path / "alph12011enen.xml"),
            "--team",
            "Team Alpha",
            stdout=out,
            stderr=StringIO(),
        )
    lines = out.getvalue().splitlines()
    assert lines == [
        f'{tmp_path / "alph12011enen.xml"}:8: question 1.1.2: answered="MAYBE"; it must be "YES" or "NO"',
        f"{tmp_path / 'alph12011enen.xml'}:18: question 1.1.5: answer a_id='9' is not within 1-5",
    ]
    # the earlier run of that tag and its scores are untouched
    assert run_score("alph12011enen") == pytest.approx(0.7)


def test_team_ids_and_run_limit(evaluation, tmp_path, settings):
    call_command("load_gold", SLUG, path("gold.xml"), stdout=StringIO())
    load_runs("alph12011enen.xml")
    text = (FIXTURES / "alph12011enen.xml").read_text()
    (tmp_path / "zulu12021enen.xml").write_text(text.replace("alph12011enen", "zulu12021enen"))
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command(
            "load_runs",
            SLUG,
            str(tmp_path / "zulu12021enen.xml"),
            "--team",
            "Team Alpha",
            stdout=out,
            stderr=StringIO(),
        )
    assert "team Team Alpha submits as team ID alph, not 'zulu'" in out.getvalue()
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("load_runs", SLUG, path("alph12022enen.xml"), "--team", "Team Beta", stdout=out, stderr=StringIO())
    assert "team ID 'alph' is already used by team Team Alpha" in out.getvalue()
    assert not Run.objects.filter(tag__in=["zulu12021enen", "alph12022enen"]).exists()

    # ten runs of one team load; an eleventh is refused by the checker
    files = []
    for n in range(2, 11):
        tag = f"alph12{n:02d}1enen"
        (tmp_path / f"{tag}.xml").write_text(text.replace("alph12011enen", tag))
        files.append(str(tmp_path / f"{tag}.xml"))
    call_command("load_runs", SLUG, *files, "--team", "Team Alpha", stdout=StringIO(), stderr=StringIO())
    assert Run.objects.filter(team__name="Team Alpha").count() == 10
    (tmp_path / "alph12011dede.xml").write_text(text.replace("alph12011enen", "alph12011dede"))
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command(
            "load_runs",
            SLUG,
            str(tmp_path / "alph12011dede.xml"),
            "--team",
            "Team Alpha",
            stdout=out,
            stderr=StringIO(),
        )
    assert "team alph has already loaded 10 runs; at most 10 runs per team" in out.getvalue()


def test_headline_score_is_c_at_1(evaluation):
    call_command("load_gold", SLUG, path("gold.xml"), stdout=StringIO())
    load_runs("alph12022enen.xml")
    assert run_score("alph12022enen", "score") == pytest.approx(0.6)
    assert run_score("alph12022enen", "score", topic="1.2") == pytest.approx(0.56)
    assert run_score("alph12022enen", "score", topic="1.1.1") == 1.0
    # topics are not "score" series: a question must not count twice in the shared significance test
    assert not Score.objects.filter(measure="score", topic__kind="topic").exists()


def test_check_run_command(evaluation, tmp_path):
    out = StringIO()
    call_command("check_run", SLUG, path("alph12011enen.xml"), stdout=out, stderr=StringIO())
    assert out.getvalue() == ""
    (tmp_path / "r.xml").write_text(
        (FIXTURES / "alph12011enen.xml").read_text().replace('run_id="alph12011enen"', 'run_id="alph12013enen"')
    )
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("check_run", SLUG, str(tmp_path / "r.xml"), stdout=out, stderr=StringIO())
    assert out.getvalue().startswith(
        f"{tmp_path / 'r.xml'}:2: resource type 3 (the test document and other "
        f"resources, not the background collection) needs <other-resources>"
    )
    assert not Run.objects.exists()


def test_corrected_test_set_drops_a_reading_tests_document(evaluation, tmp_path):
    from corpus.models import Document

    text = (FIXTURES / "test_set.xml").read_text()
    start, end = text.index('  <reading-test r_id="2">'), text.index("</topic>")
    (tmp_path / "t.xml").write_text(text[:start] + text[end:])
    call_command("load_topics", SLUG, str(tmp_path / "t.xml"), stdout=StringIO())
    assert list(Document.objects.filter(collection__name=f"{SLUG}-docs").values_list("docno", flat=True)) == [
        f"{SLUG}-RT1.1"
    ]
    assert not Topic.objects.filter(evaluation=evaluation, ident__startswith="1.2").exists()


def test_an_evaluation_loads_the_files_clef_distributed(db):
    """Test set and gold standard in the <q q_id> shape of the 2012 distribution, through the commands."""
    create_evaluation("qa4mre-clef", "qa4mre-2012")
    call_command("load_topics", "qa4mre-clef", path("test_set_clef2012.xml"), stdout=StringIO())
    assert Topic.objects.filter(evaluation__slug="qa4mre-clef", kind="question").count() == 10
    out = StringIO()
    call_command("load_gold", "qa4mre-clef", path("gold_clef2012.xml"), stdout=out)
    assert "gold answers of 10 questions" in out.getvalue()
    gold = dict(Topic.objects.filter(evaluation__slug="qa4mre-clef", kind="question").values_list("ident", "data"))
    assert gold["1.1.1"]["correct"] == 2 and gold["1.2.3"]["correct"] is None


def test_the_score_command_prints_each_topics_c_at_1(evaluation):
    """A QA4MRE topic stores its measures, not a headline "score": the text output shows them, not "–"."""
    call_command("load_gold", SLUG, path("gold.xml"), stdout=StringIO())
    load_runs("alph12022enen.xml")
    out = StringIO()
    call_command("score", SLUG, stdout=out)
    assert "  series 1: accuracy_answered=0.8000  c_at_1=0.6000  self_validation=0.6667" in out.getvalue()
    assert "  series 1.1: 0.6400" in out.getvalue()
