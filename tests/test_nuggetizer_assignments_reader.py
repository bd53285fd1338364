"""The reader of nuggetizer's assignments files (scoring.formats.nuggetizer.read_assignments, issue 29)."""

import json

from scoring.formats.nuggetizer import Assigned, read_assignments

LINE = {
    "query": "Jay-Z",
    "qid": "217.2",
    "answer_text": "He married Beyonce.",
    "response_length": 3,
    "run_id": "runB",
    "nuggets": [
        {"text": "married Beyonce", "importance": "vital", "assignment": "support"},
        {"text": "CEO of Def Jam", "importance": "okay", "assignment": "partial_support"},
    ],
}


def _data(*records):
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def test_a_line_reads_with_its_number():
    problems, found = read_assignments(b"\n" + _data(LINE), "a.jsonl")
    assert problems == []
    ((number, record),) = found
    assert number == 2 and (record.qid, record.run_id, record.response_length) == ("217.2", "runB", 3)
    assert record.nuggets == (
        Assigned("married Beyonce", "vital", "support"),
        Assigned("CEO of Def Jam", "okay", "partial_support"),
    )


def test_every_problem_is_named_with_its_line_and_nothing_is_returned():
    no_run = {k: v for k, v in LINE.items() if k != "run_id"}
    bad_assignment = LINE | {"nuggets": [{"text": "x", "importance": "vital", "assignment": "yes"}]}
    negative = LINE | {"response_length": -1}
    problems, found = read_assignments(_data(LINE, LINE, no_run, bad_assignment, negative) + b"{nope\n", "a.jsonl")
    assert found == []
    assert [p.format("a.jsonl") for p in problems] == [
        "a.jsonl:2: qid 217.2 of run runB again (first on line 1)",
        'a.jsonl:3: "run_id" is not a non-empty string',
        "a.jsonl:4: nugget 1's assignment 'yes' is not one of support, partial_support, not_support",
        'a.jsonl:5: "response_length" is not a whole number',
        "a.jsonl:6: not JSON: Expecting property name enclosed in double quotes (column 2)",
    ]


def test_limits_are_checked_before_reading():
    problems, found = read_assignments(_data(LINE), "a.jsonl", max_bytes=10)
    assert found == [] and "over the limit of 10" in problems[0].message
    problems, _ = read_assignments(_data(LINE) * 3, "a.jsonl", max_lines=1)
    assert problems[0].line == 2 and "more than 1 lines" in problems[0].message
