"""scoring.formats.nuggetizer: nuggetizer's nuggets and assignments JSON Lines, written and read back."""

import json

import pytest

from scoring.formats.nuggetizer import (
    Assigned,
    Assignments,
    Nugget,
    Nuggets,
    read_nuggets,
    write_assignments,
    write_nuggets,
)


def test_nuggets_lines_in_nuggetizers_key_order():
    lines = list(
        write_nuggets([Nuggets("216.3", "Paul Krugman", (Nugget("columnist", "vital"), Nugget("blog", "okay")))])
    )
    assert lines == [
        '{"query": "Paul Krugman", "qid": "216.3", "nuggets": [{"text": "columnist", "importance": "vital"}, '
        '{"text": "blog", "importance": "okay"}]}\n'
    ]


def test_assignment_lines_in_nuggetizers_key_order():
    record = Assignments(
        "216.3", "Paul Krugman", "runA", "a columnist", 2, (Assigned("columnist", "vital", "support"),)
    )
    (line,) = write_assignments([record])
    assert list(json.loads(line)) == ["query", "qid", "answer_text", "response_length", "run_id", "nuggets"]
    assert json.loads(line)["nuggets"] == [{"text": "columnist", "importance": "vital", "assignment": "support"}]


def test_writers_refuse_values_outside_the_shape():
    with pytest.raises(ValueError, match="importance 'ok'"):
        list(write_nuggets([Nuggets("1", "q", (Nugget("x", "ok"),))]))
    with pytest.raises(ValueError, match="assignment 'yes'"):
        list(write_assignments([Assignments("1", "q", "r", "", 0, (Assigned("x", "vital", "yes"),))]))


def test_reading_back_what_was_written_and_nuggetizers_own_lines():
    written = "".join(write_nuggets([Nuggets("1", "q one", (Nugget("a", "okay"),)), Nuggets("2", "q two", ())]))
    # assign_nuggets.py's output read as nuggets: extra keys ignored, a numeric qid read as its digits, and
    # a nugget without importance is vital (assign_nuggets.py's default)
    theirs = '{"query": "q3", "qid": 3, "answer_text": "x", "run_id": "r", "nuggets": [{"text": "b", "assignment": "support"}]}\n'
    problems, found = read_nuggets((written + "\n" + theirs).encode(), "n.jsonl")
    assert problems == []
    assert found == [
        Nuggets("1", "q one", (Nugget("a", "okay"),)),
        Nuggets("2", "q two", ()),
        Nuggets("3", "q3", (Nugget("b", "vital"),)),
    ]


def test_every_bad_line_named_and_nothing_returned():
    data = "\n".join(
        [
            '{"qid": "1", "query": "q", "nuggets": [{"text": "a", "importance": "vital"}]}',
            '{"qid": "1", "query": "q", "nuggets": []}',
            "not json",
            '{"qid": "2", "nuggets": [{"text": "a", "importance": "ok"}]}',
            '{"qid": "3", "nuggets": [{"text": "  "}]}',
            '{"qid": "4"}',
            '["a list"]',
            '{"qid": "5", "nuggets": [[[[[1]]]]]}',
            '{"qid": "' + "9" * 51 + '", "nuggets": []}',
        ]
    ).encode()
    problems, found = read_nuggets(data, "n.jsonl")
    assert found == []
    formatted = [p.format("n.jsonl") for p in problems]
    assert formatted[0] == "n.jsonl:2: qid 1 again (first on line 1)"
    assert formatted[1].startswith("n.jsonl:3: not JSON")
    assert formatted[2] == "n.jsonl:4: nugget 1's importance 'ok' is not one of vital, okay"
    assert formatted[3] == 'n.jsonl:5: nugget 1\'s "text" is not a non-empty string'
    assert formatted[4] == 'n.jsonl:6: "nuggets" is not a list'
    assert formatted[5] == "n.jsonl:7: not a JSON object"
    assert formatted[6].startswith("n.jsonl:8: not JSON") and "deep" in formatted[6]
    assert formatted[7] == 'n.jsonl:9: "qid" has 51 characters (at most 50)'
    assert len(problems) == 8


def test_size_and_line_limits_and_encoding():
    assert (
        read_nuggets(b"x" * 11, "n", max_bytes=10)[0][0].format("n")
        == "n:0: the file is 11 bytes, over the limit of 10"
    )
    line = b'{"qid": "1", "nuggets": []}\n'
    problems, found = read_nuggets(line + line.replace(b'"1"', b'"2"'), "n", max_lines=1)
    assert [p.format("n") for p in problems] == ["n:2: more than 1 lines; nothing after this line was read"]
    assert read_nuggets(b"\xff", "n")[0][0].message == "not UTF-8 text (byte 0)"
