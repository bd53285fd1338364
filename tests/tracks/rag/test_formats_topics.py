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
