"""BioGen topics (SPEC-NOTES, seed 002 "Topics"). Pure.

Both published shapes: JSON Lines, one topic object a line, or one JSON object {"topics": [...]} (a bare JSON
array is taken too). A topic has `id` (or `topic_id`; 2025 Task A's `qa_id`), `topic` (or `title`), `question`
and `narrative`; the question is the text assessors and runs answer. Every problem is reported; a file with any
is refused whole.
"""

from config import safejson
from pooling.formats.base import ParsedTopic, Problem

KIND = "QUESTION"
FILE_LABEL = "Topics (BioGen JSON or JSON Lines)"  # the topic upload's label
ID_FIELDS = ("id", "topic_id", "qa_id")
FIELDS = ("topic", "title", "question", "narrative")


def _objects(data: bytes, filename: str) -> tuple[list[Problem], list[tuple[int | None, str, object]]]:
    """(problems, [(line, where, object)]) of either shape."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        return [Problem(None, f"not UTF-8: {e}")], []
    try:
        root, error = safejson.loads(text), None
    except safejson.JSONDecodeError as e:
        root, error = None, e  # JSON Lines (or malformed): read line by line, each problem at its line
    if isinstance(root, dict) and "topics" in root:
        if not isinstance(root["topics"], list):
            return [Problem(None, '"topics" must be a list of topic objects')], []
        return [], [(None, f"topics[{i}]", obj) for i, obj in enumerate(root["topics"])]
    if isinstance(root, list):
        return [], [(None, f"[{i}]", obj) for i, obj in enumerate(root)]
    if error is not None and text.strip().split("\n", 1)[0].strip() in ("{", "["):  # one object over many lines
        return [Problem(error.lineno, f"malformed JSON: {error.msg} (column {error.colno})")], []
    problems: list[Problem] = []
    found: list[tuple[int | None, str, object]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            found.append((number, f"line {number}", safejson.loads(line)))
        except safejson.JSONDecodeError as e:
            problems.append(Problem(number, f"malformed JSON: {e}"))
    return problems, found


def parse_topics(data: bytes, filename: str) -> tuple[list[Problem], list[ParsedTopic]]:
    problems, found = _objects(data, filename)
    topics: list[ParsedTopic] = []
    seen: dict[str, str] = {}  # ident -> where it first appeared
    for line, where, obj in found:
        if not isinstance(obj, dict):
            problems.append(Problem(line, f"{where}: a topic must be a JSON object"))
            continue
        ident = next((obj[k] for k in ID_FIELDS if obj.get(k) not in (None, "")), None)
        if ident is None or isinstance(ident, (bool, dict, list)):
            problems.append(Problem(line, f"{where}: no id (or topic_id)"))
            continue
        ident = str(ident).strip()
        fields = {
            "topic": str(obj.get("topic") or obj.get("title") or ""),
            "question": str(obj.get("question") or ""),
            "narrative": str(obj.get("narrative") or ""),
        }
        bad = [k for k in FIELDS if k in obj and obj[k] is not None and not isinstance(obj[k], str)]
        problems += [Problem(line, f"topic {ident}: {k} must be text") for k in bad]
        if not (fields["question"] or fields["topic"]):
            problems.append(Problem(line, f"topic {ident}: no question (nor topic)"))
        if ident in seen:
            problems.append(Problem(line, f"topic {ident}: also the id of {seen[ident]}"))
            continue
        seen[ident] = where
        topics.append(
            ParsedTopic(ident=ident, kind=KIND, text=fields["question"] or fields["topic"], line=line, data=fields)
        )
    if not topics and not problems:
        problems.append(Problem(None, "no topics in the file"))
    return problems, topics
