"""Files whose values the database columns cannot hold are refused with `FILE:LINE: message` before anything is
stored, never with a raw DataError (issue 19: over-long ids in TREC question XML, QA4MRE test sets and BOLT
topics each gave a traceback)."""

from pathlib import Path

import pytest

from corpus.loading import load_collection
from corpus.models import Collection
from pooling import column_limits
from pooling.evaluations import LoadError, create_evaluation
from pooling.formats.base import ParsedEntry, ParsedRun, ParsedTopic
from pooling.models import Run, Topic
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tests.tracks.bolt.test_citations import context as bolt_context
from tracks.bolt.formats import citations

FIXTURES = Path(__file__).parent / "fixtures"
LONG = "9" * 60  # Topic.ident holds 50

pytestmark = pytest.mark.django_db


def _refused(evaluation, data, filename):
    with pytest.raises(LoadError) as exc:
        load_topics(evaluation, data, filename)
    assert not Topic.objects.filter(evaluation=evaluation).exists()  # nothing half-stored
    return exc.value.problems


def test_over_long_trec_question_id():
    ev = create_evaluation("long-trec", "trec2007-qa", [])
    data = f'<trecqa>\n<target id="{LONG}" text="x">\n<qa><q id="{LONG}.1" type="FACTOID">Who?</q></qa>\n</target>\n</trecqa>'
    problems = _refused(ev, data.encode(), "q.xml")
    assert problems[0] == f"q.xml:2: id '{'9' * 20}'… is 60 characters long; at most 50 are allowed"
    assert problems[1].startswith("q.xml:3: id ")


def test_over_long_qa4mre_topic_id():
    ev = create_evaluation("long-qa4mre", "qa4mre-2012", [])
    data = (FIXTURES / "qa4mre" / "test_set_clef2012.xml").read_bytes().replace(b't_id="1"', f't_id="{LONG}"'.encode())
    problems = _refused(ev, data, "test.xml")
    assert problems and all(": id " in p and "at most 50 are allowed" in p for p in problems)
    assert problems[0].startswith("test.xml:4: ")  # the <topic> line


def test_over_long_bolt_topic_number():
    load_collection("long-forum", "bolt-forum", [str(FIXTURES / "bolt" / "forum.xml")])
    ev = create_evaluation("long-bolt", "bolt-ir-p2", ["long-forum"])
    data = (FIXTURES / "bolt" / "topics.xml").read_bytes().replace(b'number="1.002"', f'number="{LONG}"'.encode())
    problems = _refused(ev, data, "topics.xml")
    assert any(p.startswith("topics.xml:16: id ") for p in problems), problems


def test_over_long_run_tag_refused_by_line():
    """End to end through the QA run format, which names an over-long tag itself; the column check behind every
    format is tested on its own below."""
    Collection.objects.create(name="long-blog", format="blog06")
    ev = create_evaluation("long-run", "tac2008-qa", ["long-blog"])
    load_topics(ev, (FIXTURES / "qa" / "tac2008_questions.xml").read_bytes(), "q.xml")
    data = f"1001.1 {'A' * 101}1 D1 an answer\n".encode()
    [result] = load_run_files(ev, [RunFile(filename="run.txt", data=data, team="Team Alpha", priority=1)])
    assert "run.txt:1: run tag longer than 100 characters" in result.problems
    assert not Run.objects.filter(evaluation=ev).exists()


def test_run_columns_checked_whatever_the_format_let_through():
    """The safety net behind every run format: what a format accepted but a column cannot hold."""
    parsed = ParsedRun(
        tag="T" * 101,
        entries=[
            ParsedEntry(topic="1.1", line=3, docid="D" * 201),
            ParsedEntry(topic="1.1", line=4, docid="D1", text="a\x00b"),
            ParsedEntry(topic="1.1", line=5, docid="D2", data={"note": ["x\x00"]}),
        ],
    )
    messages = [p.format("run.xml") for p in column_limits.run_problems(parsed)]
    assert messages == [
        "run.xml:0: run tag 'TTTTTTTTTTTTTTTTTTTT'… is 101 characters long; at most 100 are allowed",
        "run.xml:3: document id 'DDDDDDDDDDDDDDDDDDDD'… is 201 characters long; at most 200 are allowed",
        "run.xml:4: the line holds a NUL character",
        "run.xml:5: the line holds a NUL character",
    ]


def test_a_data_value_written_like_a_nul_is_no_nul():
    """The walk of a line's data starts from its repr: the text backslash-x-0-0 alone must not count."""
    parsed = ParsedRun(tag="T", entries=[ParsedEntry(topic="1.1", line=3, docid="D1", data={"note": "\\x00"})])
    assert column_limits.run_problems(parsed) == []


def test_a_nul_free_format_is_not_searched_for_nul_but_still_for_lengths():
    """BOLT's entries come from the XML parser, which refuses a NUL even as a character reference."""
    parsed = ParsedRun(tag="T", entries=[ParsedEntry(topic="1.1", line=3, docid="D" * 201, text="a\x00b")])
    assert [p.format("run.xml") for p in column_limits.run_problems(parsed, citations)] == [
        "run.xml:3: document id 'DDDDDDDDDDDDDDDDDDDD'… is 201 characters long; at most 200 are allowed"
    ]
    xml = (FIXTURES / "bolt" / "alpha1.xml").read_bytes().replace(b"The fare", b"The &#0;fare", 1)
    problems, run = citations.check_run(xml, "alpha1.xml", bolt_context())
    assert run is None and problems[0].message.startswith("malformed XML")


def test_topic_columns_checked_whatever_the_format_let_through():
    topics = [
        ParsedTopic(ident="1", kind="K" * 31, text="t", line=2),
        ParsedTopic(ident="2", kind="series", text="t", line=3, data={"a": "\x00"}),
    ]
    assert [p.format("t.xml") for p in column_limits.topic_problems(topics)] == [
        "t.xml:2: type 'KKKKKKKKKKKKKKKKKKKK'… is 31 characters long; at most 30 are allowed",
        "t.xml:3: topic '2' holds a NUL character",
    ]
