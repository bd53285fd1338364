"""TREC RAG topics. Pure.

Shapes read (SPEC-NOTES "TREC RAG"): JSON Lines, one topic object a line, or a JSON array of the same objects;
and the TSV the 2024 topics were also handed out as (`id<TAB>text`, one a line, as topics.rag24.test.txt). A topic
has `id` (or `topic_id`, `narrative_id`, `qid`), its text in `title`, `topic`, `query` or `question` (2024) and/or a
`narrative` (2025, 2–3 sentences). The topic's text is the first of those present, else the narrative; a narrative
is also kept in the topic's data. Every problem is named by line; a file with any is refused whole.
"""

from typing import Any

from config import safejson
from pooling.formats.base import ParsedTopic, Problem

KIND = "QUESTION"
FILE_LABEL = "Topics (TREC RAG JSON Lines, JSON array or id<TAB>text)"
ID_FIELDS = ("id", "topic_id", "narrative_id", "qid")
TEXT_FIELDS = ("title", "topic", "query", "question")
MAX_BYTES = 16 << 20  # 2024 had 301 topics, 2025 105: a few hundred kB
MAX_DEPTH = 4


def _objects(data: bytes) -> tuple[list[Problem], list[tuple[int | None, str, Any]]]:
    """(problems, [(line, where, object)]) of any shape; a TSV line comes back as {"id", "title"}."""
    if len(data) > MAX_BYTES:
        return [Problem(None, f"the file has {len(data):,} bytes, more than {MAX_BYTES:,}; not read")], []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        return [Problem(data.count(b"\n", 0, e.start) + 1, f"not UTF-8 ({e.reason})")], []
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            root = safejson.loads(text, max_depth=MAX_DEPTH, max_bytes=MAX_BYTES)
        except safejson.JSONDecodeError as e:
            return [Problem(e.lineno, f"malformed JSON: {e.msg} (column {e.colno})")], []
        return [], [(None, f"[{i}]", obj) for i, obj in enumerate(root)]
    problems: list[Problem] = []
    found: list[tuple[int | None, str, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        if not line.lstrip().startswith("{") and "\t" in line:
            ident, _, title = line.partition("\t")
            found.append((number, f"line {number}", {"id": ident.strip(), "title": title.strip()}))
            continue
        try:
            found.append((number, f"line {number}", safejson.loads(line, max_depth=MAX_DEPTH)))
        except safejson.JSONDecodeError as e:
            problems.append(Problem(number, f"malformed JSON: {e.msg} (column {e.colno})"))
    return problems, found


def parse_topics(data: bytes, filename: str) -> tuple[list[Problem], list[ParsedTopic]]:
    problems, found = _objects(data)
    topics: list[ParsedTopic] = []
    seen: dict[str, str] = {}  # ident -> where it first appeared
    for line, where, obj in found:
        if not isinstance(obj, dict):
            problems.append(Problem(line, f"{where}: a topic must be a JSON object"))
            continue
        raw_id = next((obj[k] for k in ID_FIELDS if obj.get(k) not in (None, "")), None)
        if raw_id is None or isinstance(raw_id, (bool, dict, list, float)):
            problems.append(Problem(line, f"{where}: no id (nor topic_id, narrative_id, qid)"))
            continue
        ident = str(raw_id).strip()
        bad = [k for k in TEXT_FIELDS + ("narrative",) if obj.get(k) is not None and not isinstance(obj[k], str)]
        problems += [Problem(line, f"topic {ident}: {k!r} must be text") for k in bad]
        title = next((obj[k].strip() for k in TEXT_FIELDS if isinstance(obj.get(k), str) and obj[k].strip()), "")
        narrative = obj["narrative"].strip() if isinstance(obj.get("narrative"), str) else ""
        if not (title or narrative):
            problems.append(Problem(line, f"topic {ident}: no text (title, topic, query, question or narrative)"))
            continue
        if ident in seen:
            problems.append(Problem(line, f"topic {ident}: also the id of {seen[ident]}"))
            continue
        seen[ident] = where
        topics.append(
            ParsedTopic(
                ident=ident,
                kind=KIND,
                text=title or narrative,
                line=line,
                data={"narrative": narrative} if narrative else {},
            )
        )
    if not topics and not problems:
        problems.append(Problem(None, "no topics in the file"))
    return problems, topics
