"""Nuggets and nugget assignments in the JSON Lines shapes of castorini/nuggetizer (TREC 2024 RAG's AutoNuggetizer;
issue 28; docs/formats.md names the fields and their source):

- nuggets (`scripts/create_nuggets.py`'s output, `assign_nuggets.py`'s `--nugget_file`): one object per query,
  `{"query": TEXT, "qid": ID, "nuggets": [{"text": TEXT, "importance": "vital"|"okay"}, ...]}`;
- assignments (`scripts/assign_nuggets.py`'s output, `calculate_metrics.py`'s input): one object per query and
  answer, `{"query", "qid", "answer_text", "response_length", "run_id", "nuggets": [{"text", "importance",
  "assignment": "support"|"partial_support"|"not_support"}, ...]}`.

Keys are written in nuggetizer's order. The reader takes the nuggets file (extra keys are ignored, so an
assignments file reads as its nuggets too), decoded line by line through config.safejson.
"""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from config import safejson
from pooling.formats.base import Problem

IMPORTANCE = ("vital", "okay")
ASSIGNMENTS = ("support", "partial_support", "not_support")
MAX_NUGGETS_BYTES = 64 * 1024 * 1024
MAX_NUGGETS_LINES = 100_000  # queries; TREC 2024 RAG had 301, TREC 2007 QA 70 Other questions
MAX_NUGGETS_PER_QUERY = 1_000  # nuggetizer stops at 30 by default
MAX_DEPTH = 4  # object > nuggets list > nugget object: nothing deeper is read
MAX_TEXT_CHARS = 10_000
MAX_QID_CHARS = 50  # pooling.Topic.ident's length


@dataclass(frozen=True)
class Nugget:
    text: str
    importance: str  # one of IMPORTANCE


@dataclass(frozen=True)
class Nuggets:
    """One line of a nuggets file: a query's nuggets in their order."""

    qid: str
    query: str
    nuggets: tuple[Nugget, ...]
    line: int = field(default=0, compare=False)  # the file's line it was read from (0: not read)


@dataclass(frozen=True)
class Assigned:
    text: str
    importance: str
    assignment: str  # one of ASSIGNMENTS


@dataclass(frozen=True)
class Assignments:
    """One line of an assignments file: which of a query's nuggets one run's answer holds."""

    qid: str
    query: str
    run_id: str
    answer_text: str
    response_length: int
    nuggets: tuple[Assigned, ...]


def _line(record: dict[str, object]) -> str:
    return json.dumps(record) + "\n"  # json.dumps' defaults, as nuggetizer's scripts write


def _checked(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise ValueError(f"{what} {value!r} is not one of {', '.join(allowed)}")
    return value


def write_nuggets(records: Iterable[Nuggets]) -> Iterator[str]:
    for r in records:
        nuggets = [{"text": n.text, "importance": _checked(n.importance, IMPORTANCE, "importance")} for n in r.nuggets]
        yield _line({"query": r.query, "qid": r.qid, "nuggets": nuggets})


def write_assignments(records: Iterable[Assignments]) -> Iterator[str]:
    for r in records:
        nuggets = [
            {
                "text": n.text,
                "importance": _checked(n.importance, IMPORTANCE, "importance"),
                "assignment": _checked(n.assignment, ASSIGNMENTS, "assignment"),
            }
            for n in r.nuggets
        ]
        yield _line(
            {
                "query": r.query,
                "qid": r.qid,
                "answer_text": r.answer_text,
                "response_length": r.response_length,
                "run_id": r.run_id,
                "nuggets": nuggets,
            }
        )


def _text(value: object, what: str, *, limit: int = MAX_TEXT_CHARS) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} is not a non-empty string")
    if len(value) > limit:
        raise ValueError(f"{what} has {len(value):,} characters (at most {limit:,})")
    return value


def _record(obj: object, line: int) -> Nuggets:
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    qid = obj.get("qid")
    if isinstance(qid, int) and not isinstance(qid, bool):  # RAG's qids are strings; a number is read as its digits
        qid = str(qid)
    qid = _text(qid, '"qid"', limit=MAX_QID_CHARS)
    query = obj.get("query", "")
    if not isinstance(query, str):
        raise ValueError('"query" is not a string')
    nuggets = obj.get("nuggets")
    if not isinstance(nuggets, list):
        raise ValueError('"nuggets" is not a list')
    if len(nuggets) > MAX_NUGGETS_PER_QUERY:
        raise ValueError(f"{len(nuggets):,} nuggets (at most {MAX_NUGGETS_PER_QUERY:,})")
    found = []
    for number, n in enumerate(nuggets, start=1):
        if not isinstance(n, dict):
            raise ValueError(f"nugget {number} is not a JSON object")
        text = _text(n.get("text"), f'nugget {number}\'s "text"')
        importance = n.get("importance", "vital")  # assign_nuggets.py's default for a nugget without one
        if importance not in IMPORTANCE:
            raise ValueError(f"nugget {number}'s importance {importance!r} is not one of {', '.join(IMPORTANCE)}")
        found.append(Nugget(text, str(importance)))
    return Nuggets(qid, query, tuple(found), line)


def read_nuggets(
    data: bytes,
    filename: str,
    *,
    max_bytes: int = MAX_NUGGETS_BYTES,
    max_lines: int = MAX_NUGGETS_LINES,
) -> tuple[list[Problem], list[Nuggets]]:
    """Every problem of a nuggets file, each with its line (Problem.format: FILE:LINE: message), and its queries.
    Nothing is returned with a problem: a caller stores all or nothing. A qid twice is a problem."""
    if len(data) > max_bytes:
        return [Problem(None, f"the file is {len(data):,} bytes, over the limit of {max_bytes:,}")], []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return [Problem(None, f"not UTF-8 text (byte {error.start})")], []
    problems: list[Problem] = []
    found: list[Nuggets] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if number > max_lines:
            problems.append(Problem(number, f"more than {max_lines:,} lines; nothing after this line was read"))
            break
        if not line.strip():
            continue
        try:
            record = _record(safejson.loads(line, max_depth=MAX_DEPTH, max_bytes=max_bytes), number)
        except safejson.JSONDecodeError as error:
            problems.append(Problem(number, f"not JSON: {error.msg} (column {error.colno})"))
            continue
        except ValueError as error:
            problems.append(Problem(number, str(error)))
            continue
        if record.qid in seen:
            problems.append(Problem(number, f"qid {record.qid} again (first on line {seen[record.qid]})"))
            continue
        seen[record.qid] = number
        found.append(record)
    return problems, ([] if problems else found)


def _assignments(obj: object, line: int) -> Assignments:
    base = _record(obj, line)  # qid, query and the nuggets' text and importance, checked as a nuggets line
    assert isinstance(obj, dict)
    run_id = _text(obj.get("run_id"), '"run_id"', limit=MAX_QID_CHARS * 2)
    answer = obj.get("answer_text", "")
    if not isinstance(answer, str):
        raise ValueError('"answer_text" is not a string')
    length = obj.get("response_length", len(answer.split()))
    if not isinstance(length, int) or isinstance(length, bool) or length < 0:
        raise ValueError('"response_length" is not a whole number')
    assigned = []
    for number, (nugget, raw) in enumerate(zip(base.nuggets, obj["nuggets"], strict=True), start=1):
        assignment = raw.get("assignment")
        if assignment not in ASSIGNMENTS:
            raise ValueError(f"nugget {number}'s assignment {assignment!r} is not one of {', '.join(ASSIGNMENTS)}")
        assigned.append(Assigned(nugget.text, nugget.importance, str(assignment)))
    return Assignments(base.qid, base.query, run_id, answer, length, tuple(assigned))


def read_assignments(
    data: bytes,
    filename: str,
    *,
    max_bytes: int = MAX_NUGGETS_BYTES,
    max_lines: int = MAX_NUGGETS_LINES,
) -> tuple[list[Problem], list[tuple[int, Assignments]]]:
    """Every problem of an assignments file (assign_nuggets.py's output), each with its line, and its lines as
    (line number, Assignments). Nothing is returned with a problem. A (qid, run_id) twice is a problem."""
    if len(data) > max_bytes:
        return [Problem(None, f"the file is {len(data):,} bytes, over the limit of {max_bytes:,}")], []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return [Problem(None, f"not UTF-8 text (byte {error.start})")], []
    problems: list[Problem] = []
    found: list[tuple[int, Assignments]] = []
    seen: dict[tuple[str, str], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if number > max_lines:
            problems.append(Problem(number, f"more than {max_lines:,} lines; nothing after this line was read"))
            break
        if not line.strip():
            continue
        try:
            record = _assignments(safejson.loads(line, max_depth=MAX_DEPTH, max_bytes=max_bytes), number)
        except safejson.JSONDecodeError as error:
            problems.append(Problem(number, f"not JSON: {error.msg} (column {error.colno})"))
            continue
        except ValueError as error:
            problems.append(Problem(number, str(error)))
            continue
        key = (record.qid, record.run_id)
        if key in seen:
            problems.append(Problem(number, f"qid {key[0]} of run {key[1]} again (first on line {seen[key]})"))
            continue
        seen[key] = number
        found.append((number, record))
    return problems, ([] if problems else found)
