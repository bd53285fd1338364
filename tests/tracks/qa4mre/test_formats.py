"""QA4MRE 2012 test set, gold standard and run checker (pure modules, no database)."""

from pathlib import Path

import pytest

from pooling.formats.base import CheckContext
from tracks.qa4mre.formats.gold import parse_gold
from tracks.qa4mre.formats.run import check_run, parse_run_id
from tracks.qa4mre.formats.test_set import parse_topics

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "qa4mre"


def fixture(name):
    return (FIXTURES / name).read_bytes()


def parsed_test_set():
    _, topics = parse_topics(fixture("test_set.xml"), "test_set.xml")
    return topics


def context(team_runs=(), settings=None, only_questions=False):
    topics = {t.ident: t.kind for t in parsed_test_set() if not only_questions or t.kind == "question"}
    by_team = {}
    for tag in team_runs:
        by_team.setdefault(tag[:4], []).append(tag)
    return CheckContext(topics=topics, settings=settings or {}, extra={"runs_by_team_id": by_team})


def messages(problems):
    return [(p.line, p.message) for p in problems]


# ---- test set -------------------------------------------------------------------------------------------------


def test_track_names_these_modules():
    from core.tracks import get_track

    track = get_track("qa4mre-2012")
    assert track.topic_format.parse_topics is parse_topics
    assert track.run_format.check_run is check_run
    assert track.human_judging is False


def test_parse_test_set_structure():
    problems, topics = parse_topics(fixture("test_set.xml"), "test_set.xml")
    assert problems == []
    assert [(t.ident, t.kind, t.parent) for t in topics[:3]] == [
        ("1", "topic", None),
        ("1.1", "reading-test", "1"),
        ("1.1.1", "question", "1.1"),
    ]
    assert [t.kind for t in topics].count("question") == 10
    assert [t.ident for t in topics if t.kind == "reading-test"] == ["1.1", "1.2"]
    assert topics[0].text == "Alzheimer"
    test1 = topics[1]
    assert test1.data["d_id"] == "1"
    assert test1.data["doc"].startswith("Memory clinics in the valley town of Ardel")
    assert "walking groups" in test1.data["doc"]
    q = topics[2]
    assert q.text == "Who founded the first memory clinic in Ardel?"
    assert q.line == 13
    assert q.data["answers"][1] == {"a_id": 2, "text": "Dr. Mara Okonjo"}
    assert [a["a_id"] for a in q.data["answers"]] == [1, 2, 3, 4, 5]
    assert "correct" not in q.data  # a test set never carries the gold answer


def test_test_set_problems_reported_with_lines():
    data = b"""<test-set>
<topic t_id="1" t_name="X">
 <reading-test r_id="1">
  <doc d_id="1">Text.</doc>
  <question q_id="1"><q_str>Q?</q_str>
   <answer a_id="1">a</answer><answer a_id="2">b</answer><answer a_id="3">c</answer>
   <answer a_id="4">d</answer><answer a_id="7">e</answer>
  </question>
  <question q_id="1"><q_str>Again?</q_str></question>
  <question><q_str>No id</q_str></question>
 </reading-test>
 <reading-test r_id="2"><question q_id="1"><q_str>Q</q_str>
   <answer a_id="1">a</answer><answer a_id="2">b</answer><answer a_id="3">c</answer>
   <answer a_id="4">d</answer><answer a_id="5">e</answer></question></reading-test>
</topic>
</test-set>
"""
    problems, _ = parse_topics(data, "t.xml")
    assert messages(problems) == [
        (7, "a_id='7' of question 1.1.1 is not within 1-5"),
        (9, "question q_id=1 of reading test 1.1 appears twice (first on line 5)"),
        (10, "<question> without its q_id attribute"),
        (12, "reading test 1.2 must hold exactly one <doc>, found 0"),
    ]
    assert problems[0].format("t.xml") == "t.xml:7: a_id='7' of question 1.1.1 is not within 1-5"


def test_test_set_not_xml():
    problems, topics = parse_topics(b"<test-set>\n<topic t_id='1'>\n</test-set>\n", "bad.xml")
    assert topics == []
    assert len(problems) == 1 and problems[0].line == 3 and "not well-formed XML" in problems[0].message


def test_test_set_entities_are_not_resolved(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    data = f"""<?xml version="1.0"?>
<!DOCTYPE test-set [<!ENTITY x SYSTEM "file://{secret}">]>
<test-set><topic t_id="1" t_name="&x;"><reading-test r_id="1"><doc d_id="1">&x; text</doc>
<question q_id="1"><q_str>Q</q_str><answer a_id="1">a</answer><answer a_id="2">b</answer>
<answer a_id="3">c</answer><answer a_id="4">d</answer><answer a_id="5">e</answer></question>
</reading-test></topic></test-set>""".encode()
    _, topics = parse_topics(data, "t.xml")
    assert all("TOP SECRET" not in (t.text + str(t.data)) for t in topics)


# ---- gold standard --------------------------------------------------------------------------------------------


def test_gold_answers():
    questions = [t.ident for t in parsed_test_set() if t.kind == "question"]
    problems, gold = parse_gold(fixture("gold.xml"), "gold.xml", questions)
    assert problems == []
    assert gold == {
        "1.1.1": 2,
        "1.1.2": 4,
        "1.1.3": 1,
        "1.1.4": 5,
        "1.1.5": 3,
        "1.2.1": 3,
        "1.2.2": 1,
        "1.2.3": None,
        "1.2.4": 2,
        "1.2.5": 4,
    }


def test_gold_problems():
    data = fixture("gold.xml").replace(
        b'<answer a_id="3">a memory test app</answer>', b'<answer a_id="3" correct="Yes">a memory test app</answer>', 1
    )
    data = data.replace(b'<answer a_id="2">on weekends</answer>', b'<answer a_id="2" correct="maybe">x</answer>')
    questions = [t.ident for t in parsed_test_set() if t.kind == "question"] + ["1.3.1"]
    problems, _ = parse_gold(data, "gold.xml", questions)
    lines = data.decode().splitlines()
    maybe_line = next(i for i, line in enumerate(lines, 1) if 'correct="maybe"' in line)
    second_yes = next(i for i, line in enumerate(lines, 1) if "a trial with a weekly book club" in line)
    assert messages(problems) == [
        (maybe_line, 'correct="maybe" on question 1.1.3 answer 2: must be "Yes" or "No"'),
        (second_yes, 'question 1.2.5 has 2 answers marked correct="Yes" (at most one)'),
        (2, "1 question(s) of the test set are missing from the gold standard: 1.3.1"),
    ]


def test_gold_question_not_in_test_set():
    problems, _ = parse_gold(fixture("gold.xml"), "gold.xml", ["1.1.1"])
    assert len([p for p in problems if "is not in the evaluation's test set" in p.message]) == 9


# ---- runs -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["alph12011enen.xml", "alph12022enen.xml", "beta12013enen.xml"])
def test_valid_runs(name):
    problems, run = check_run(fixture(name), name, context())
    assert problems == []
    assert run.tag == name[:-4]
    assert [e.topic for e in run.entries] == [t.ident for t in parsed_test_set() if t.kind == "question"]


def test_run_fields_and_entries():
    _, run = check_run(fixture("alph12022enen.xml"), "alph12022enen.xml", context(only_questions=True))
    assert run.data == {
        "team_id": "alph",
        "year": "12",
        "run_number": 2,
        "resource_type": 2,
        "source_language": "en",
        "target_language": "en",
        "other_resources": [],
        "priority": 2,
    }
    by_q = {e.topic: e.data for e in run.entries}
    assert by_q["1.1.1"] == {"answered": True, "a_id": 2}
    assert by_q["1.1.2"] == {"answered": False, "a_id": None}
    assert by_q["1.1.3"] == {"answered": False, "a_id": 1}
    assert run.entries[0].line == 5
    _, run = check_run(fixture("beta12013enen.xml"), "beta12013enen.xml", context())
    assert run.data["other_resources"] == ["WordNet", "Wikipedia 2011 dump"]


@pytest.mark.parametrize(
    "run_id, error",
    [
        ("clct12014itit", None),
        ("clct12104enen", None),
        ("clct12004enen", "must be team ID"),  # run number 00
        ("clct12114enen", "must be team ID"),  # run number 11
        ("clct12015enen", "must be team ID"),  # resource type 5
        ("Clct12014enen", "must be team ID"),  # upper case team ID
        ("clc12014enen", "must be team ID"),  # three-letter team ID
        ("clct11014enen", "must be team ID"),  # year 11
        ("clct12014en", "must be team ID"),  # half a language pair
        ("clct12014enfr", "language fr is not one of the task's languages"),
    ],
)
def test_run_id_pattern(run_id, error):
    fields, message = parse_run_id(run_id)
    if error is None:
        assert message is None and fields["team_id"] == "clct"
    else:
        assert error in message


def make_run(run_id="alph12011enen", body=None, resources=""):
    """A run over the fixture test set; `body` replaces the topic element."""
    if body is None:
        body = fixture("alph12011enen.xml").decode().split("\n", 2)[2].rsplit("</output>", 1)[0]
    return f'<?xml version="1.0"?>\n<output run_id="{run_id}">\n{body}{resources}</output>\n'.encode()


def test_other_resources_rules():
    problems, _ = check_run(make_run("alph12013enen"), "r.xml", context())
    assert messages(problems) == [
        (
            2,
            "resource type 3 (the test document and other resources, not the "
            "background collection) needs <other-resources> naming at least one "
            "<resource>",
        )
    ]
    run = make_run("alph12014enen", resources="<other-resources>\n</other-resources>\n")
    problems, _ = check_run(run, "r.xml", context())
    assert [p.line for p in problems] == [len(run.decode().splitlines()) - 2]
    run = make_run("alph12011enen", resources="<other-resources><resource>WordNet</resource></other-resources>\n")
    problems, _ = check_run(run, "r.xml", context())
    assert [p.message for p in problems] == [
        "<other-resources> must be left out for resource type 1 (no external resource (only the test document))"
    ]


MALFORMED = """<topic t_id="1">
  <reading-test r_id="1">
    <question q_id="2" answered="YES"><answer a_id="4"/></question>
    <question q_id="1" answered="YES"><answer a_id="2"/></question>
    <question q_id="3" answered="yes"><answer a_id="1"/></question>
    <question q_id="4" answered="YES"/>
    <question q_id="5" answered="NO"><answer a_id="1"/><answer a_id="2"/></question>
    <question q_id="5" answered="NO"/>
    <question q_id="9" answered="NO"/>
  </reading-test>
  <reading-test r_id="2">
    <question q_id="1" answered="YES"><answer a_id="6"/></question>
    <question q_id="2" answered="YES"><answer a_id="1"/><answer a_id="2"/></question>
    <question q_id="3"><note/></question>
  </reading-test>
  <reading-test r_id="2"/>
</topic>
<topic t_id="2"/>
"""


def test_malformed_run_reports_every_problem_by_line():
    problems, run = check_run(make_run(body=MALFORMED), "x.xml", context())
    assert run is None
    assert messages(problems) == [
        (6, "question 1.1.1 comes after question 1.1.2: questions must follow the test set's ascending order"),
        (7, 'question 1.1.3: answered="yes"; it must be "YES" or "NO"'),
        (8, 'question 1.1.4 is answered="YES" and must hold exactly one <answer>, found 0'),
        (9, 'question 1.1.5 is answered="NO" and may hold at most one <answer> (the candidate)'),
        (10, "question 1.1.5 appears twice (first on line 9)"),
        (11, "question q_id=9 is not in reading test 1.1 of the test set"),
        (14, "question 1.2.1: answer a_id='6' is not within 1-5"),
        (15, 'question 1.2.2 is answered="YES" and must hold exactly one <answer>, found 2'),
        (16, 'question 1.2.3: no answered attribute; it must be "YES" or "NO"'),
        (16, "unexpected <note> in question 1.2.3"),
        (13, "question 1.2.4 of the test set is missing"),
        (13, "question 1.2.5 of the test set is missing"),
        (18, "reading test r_id=2 of topic 1 appears twice (first on line 13)"),
        (20, "topic t_id=2 is not in the test set"),
    ]
    assert problems[0].format("x.xml").startswith("x.xml:6: question 1.1.1 comes after")


def test_missing_topic_and_bad_root():
    problems, _ = check_run(make_run(body=""), "x.xml", context())
    assert messages(problems) == [(2, "topic t_id=1 of the test set is missing")]
    problems, _ = check_run(b"<run/>", "x.xml", context())
    assert messages(problems) == [(1, "the root element must be <output>, not <run>")]
    problems, _ = check_run(make_run(), "x.txt", context())
    assert messages(problems) == [(None, "a submission file must have the .xml extension, not 'x.txt'")]
    assert problems[0].format("x.txt") == "x.txt:0: a submission file must have the .xml extension, not 'x.txt'"


def test_missing_run_id():
    problems, _ = check_run(make_run().replace(b' run_id="alph12011enen"', b""), "x.xml", context())
    assert messages(problems) == [(2, "<output> without its run_id attribute")]


def test_at_most_ten_runs_per_team():
    nine = [f"alph120{n}1enen" for n in range(1, 10)]
    assert check_run(make_run("alph12101enen"), "r.xml", context(nine))[0] == []
    ten = nine + ["alph12101enen"]
    # replacing one of the ten is allowed; an eleventh is refused; other teams' runs do not count
    assert check_run(make_run("alph12101enen"), "r.xml", context(ten))[0] == []
    assert check_run(make_run("zulu12011enen"), "r.xml", context(ten))[0] == []
    problems, _ = check_run(make_run("alph12101enen"), "r.xml", context(ten + ["alph12101dede"]))
    assert messages(problems) == [(2, "team alph has already loaded 10 runs; at most 10 runs per team")]


def test_runs_of_a_batch_count_towards_the_limit():
    ctx = context([f"alph120{n}1enen" for n in range(1, 10)], settings={"max_runs_per_team": 10})
    assert check_run(make_run("alph12101enen"), "r.xml", ctx)[0] == []
    assert check_run(make_run("alph12101enen"), "r.xml", ctx)[0] == []  # the same run again replaces it
    problems, _ = check_run(make_run("alph12102enen"), "r.xml", ctx)
    assert [p.message for p in problems] == ["team alph has already loaded 10 runs; at most 10 runs per team"]


def test_priority_is_the_run_number():
    _, run = check_run(make_run("alph12071enen"), "r.xml", context())
    assert run.data["priority"] == 7 and run.data["run_number"] == 7


def test_languages_setting():
    problems, _ = check_run(make_run("alph12011frfr"), "r.xml", context(settings={"languages": ["fr"]}))
    assert problems == []


def test_no_test_set_loaded():
    problems, run = check_run(make_run(), "r.xml", CheckContext(topics={}, settings={}))
    assert run is None
    assert messages(problems) == [
        (None, "the evaluation has no test set loaded yet: there is nothing to check the run against")
    ]


def test_track_defaults_match_the_checker():
    from core.tracks import get_track
    from tracks.qa4mre.formats.run import LANGUAGES, MAX_RUNS

    defaults = get_track("qa4mre-2012").default_settings
    assert defaults["max_runs_per_team"] == MAX_RUNS
    assert tuple(defaults["languages"]) == LANGUAGES


def test_the_files_clef_distributed_read_like_the_guidelines_shape():
    """The 2012 test sets and gold standards CLEF distributed write questions as <q q_id>, the guidelines'
    prose as <question>: both give the same questions, answers and gold (tests/fixtures/qa4mre/*_clef2012.xml)."""

    def shape(topics):
        return [(t.ident, t.kind, t.text, t.parent, t.data) for t in topics]

    problems, clef = parse_topics(fixture("test_set_clef2012.xml"), "test_set_clef2012.xml")
    assert problems == [] and sum(t.kind == "question" for t in clef) == 10
    assert shape(clef) == shape(parsed_test_set())
    assert parse_gold(fixture("gold_clef2012.xml"), "gold_clef2012.xml") == parse_gold(fixture("gold.xml"), "gold.xml")
    assert b"<question q_id" not in fixture("test_set_clef2012.xml") + fixture("gold_clef2012.xml")
