"""TREC RAG topics: the 2024 and 2025 shapes, and every problem named by line."""

import json

from tracks.rag.formats import topics


def parse(data):
    problems, parsed = topics.parse_topics(data, "topics.jsonl")
    return [p.format("topics.jsonl") for p in problems], parsed


def test_2024_topics_as_json_lines_and_as_the_tsv_they_were_also_handed_out_as():
    errors, parsed = parse(b'{"id": "2024-145979", "title": "what is vicarious trauma"}\n')
    assert errors == [] and [(t.ident, t.kind, t.text, t.data) for t in parsed] == [
        ("2024-145979", "QUESTION", "what is vicarious trauma", {})
    ]
    errors, parsed = parse(b"2024-145979\twhat is vicarious trauma\r\n2024-21\thow do bees fly\n")
    assert errors == [] and [(t.ident, t.text, t.line) for t in parsed] == [
        ("2024-145979", "what is vicarious trauma", 1),
        ("2024-21", "how do bees fly", 2),
    ]


def test_2025_narratives_as_json_lines_or_a_json_array_keep_the_narrative():
    narrative = "I am a nurse. I want to know how vicarious trauma shows. And what helps."
    lines = [{"id": 12, "narrative": narrative}, {"id": "13", "title": "bees", "narrative": "Why bees fly."}]
    for data in ("".join(json.dumps(x) + "\n" for x in lines).encode(), json.dumps(lines, indent=2).encode()):
        errors, parsed = parse(data)
        assert errors == []
        assert [(t.ident, t.text, t.data) for t in parsed] == [
            ("12", narrative, {"narrative": narrative}),
            ("13", "bees", {"narrative": "Why bees fly."}),
        ]


def test_every_topic_problem_is_named_by_line():
    data = (
        b'{"id": "1", "title": "first"}\n'
        b"not json\n"
        b'{"title": "no id"}\n'
        b'{"id": "1", "title": "again"}\n'
        b'{"id": "2", "title": 5}\n'
        b'{"id": "3"}\n'
        b"[1]\n"
    )
    errors, parsed = parse(data)
    assert errors == [
        "topics.jsonl:2: malformed JSON: Expecting value (column 1)",
        "topics.jsonl:3: line 3: no id (nor topic_id, narrative_id, qid)",
        "topics.jsonl:4: topic 1: also the id of line 1",
        "topics.jsonl:5: topic 2: 'title' must be text",
        "topics.jsonl:5: topic 2: no text (title, topic, query, question or narrative)",
        "topics.jsonl:6: topic 3: no text (title, topic, query, question or narrative)",
        "topics.jsonl:7: line 7: a topic must be a JSON object",
    ]
    assert [t.ident for t in parsed] == ["1"]


def test_a_malformed_array_is_named_at_its_line_and_limits_hold_before_decoding(monkeypatch):
    errors, parsed = parse(b'[\n  {"id": "1", "title": "a"},\n  {"id": 2,}\n]\n')
    assert errors == ["topics.jsonl:3: malformed JSON: Illegal trailing comma before end of object (column 11)"]
    errors, _ = parse(b'{"id": "1", "title": [[[[["deep"]]]]]}\n')
    assert errors == ["topics.jsonl:1: malformed JSON: nested deeper than 4 levels (column 25)"]
    errors, _ = parse(b"\xef\xbb\xbf" + b'{"id": "1", "title": "\xe9"}\n')
    assert errors == ["topics.jsonl:1: not UTF-8 (invalid continuation byte)"]
    monkeypatch.setattr(topics, "MAX_BYTES", 10)
    assert parse(b'{"id": "1", "title": "x"}\n')[0] == ["topics.jsonl:0: the file has 26 bytes, more than 10; not read"]
    assert parse(b"\n")[0] == ["topics.jsonl:0: no topics in the file"]
