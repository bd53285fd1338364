"""Machine suggestions read from files (issue 30; docs/assist.md, shapes in docs/formats.md). Pure: no Django.

Three shapes, each read line by line into `Record`s that name their topic and subject by the file's own words
(a docid, a pool id, an answer's text); assess.assist matches them to pool items and checks the values against
the judgment kinds:

- Assay's JSON Lines: `{"topic": ID, "pool_id" | "docid" | "key": ..., "kind": KIND, "value": {...},
  "rationale": TEXT, "model": NAME}` (rationale and model optional);
- qrels with graded labels, UMBRELA's output (`qid 0 docid grade`): a grade becomes a label through the mapping
  the organizer gives (`{"0": "no", "1": "maybe", ...}`), every grade of the file must be mapped;
- nuggetizer's assignments file (`qid`, `answer_text`, `nuggets` of `{text, importance, assignment}`): the
  nuggets assigned `support` or `partial_support` become a nugget_match suggestion for the pool items whose text
  is the answer's (the nugget texts are matched to the question's nuggets by assess.assist).

Every problem is reported as `FILE:LINE: message`; nothing is returned from a file with any problem.
"""

from dataclasses import dataclass, field
from typing import Any

from config import safejson

MAX_BYTES = 64 * 1024 * 1024
MAX_LINES = 200_000
MAX_DEPTH = 6  # line > value > a list in it > its items; nuggetizer: line > nuggets > nugget
MAX_TEXT = 20_000  # characters of a rationale or a text
SUPPORTED = ("support", "partial_support")


class SuggestionFileError(ValueError):
    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems[:20]) + (f" (and {len(problems) - 20} more)" if len(problems) > 20 else ""))


@dataclass(frozen=True)
class Record:
    line: int
    topic: str
    subject: dict[str, str]  # one of {"pool_id": ...}, {"docid": ...}, {"key": ...}, {"answer_text": ...}
    kind: str | None  # None: the kind the loader is told (qrels)
    value: dict[str, Any] | None  # None for a qrels grade (see `grade`) or nugget texts (see `nuggets`)
    rationale: str = ""
    model: str = ""
    grade: str | None = None
    nuggets: tuple[str, ...] = field(default_factory=tuple)  # supported nugget texts (nuggetizer)


def _text(data: bytes | str, filename: str) -> list[str]:
    if len(data) > MAX_BYTES:
        raise SuggestionFileError([f"{filename}: larger than {MAX_BYTES >> 20} MB"])
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data[: e.start].count(b"\n") + 1
            raise SuggestionFileError([f"{filename}:{line}: not UTF-8"]) from None
    else:
        text = data
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise SuggestionFileError([f"{filename}: more than {MAX_LINES} lines"])
    return lines


def _json_lines(data: bytes | str, filename: str, problems: list[str]) -> list[tuple[int, dict[str, Any]]]:
    out = []
    for n, line in enumerate(_text(data, filename), start=1):
        if not line.strip():
            continue
        try:
            obj = safejson.loads(line, max_depth=MAX_DEPTH)
        except ValueError as e:
            problems.append(f"{filename}:{n}: not JSON ({e.msg if hasattr(e, 'msg') else e})")
            continue
        if not isinstance(obj, dict):
            problems.append(f"{filename}:{n}: a line must be a JSON object")
            continue
        out.append((n, obj))
    return out


def _short_str(obj: dict[str, Any], key: str, where: str, problems: list[str], limit: int = 300) -> str | None:
    value = obj.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key in ("topic", "qid"):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        problems.append(f"{where}: {key!r} must be a non-empty string of at most {limit} characters")
        return None
    return value.strip()


def parse_jsonl(data: bytes | str, filename: str) -> list[Record]:
    """Assay's suggestion JSON Lines."""
    problems: list[str] = []
    records = []
    for n, obj in _json_lines(data, filename, problems):
        where = f"{filename}:{n}"
        topic = _short_str(obj, "topic", where, problems, 50)
        subjects = [k for k in ("pool_id", "docid", "key") if k in obj]
        if len(subjects) != 1:
            problems.append(f"{where}: name the item by exactly one of 'pool_id', 'docid' or 'key'")
            continue
        subject = _short_str(obj, subjects[0], where, problems, 2000)
        kind = _short_str(obj, "kind", where, problems, 30)
        value = obj.get("value")
        if not isinstance(value, dict) or not value:
            problems.append(f"{where}: 'value' must be a non-empty object (the judgment kind's fields)")
        rationale = obj.get("rationale", "")
        if not isinstance(rationale, str) or len(rationale) > MAX_TEXT:
            problems.append(f"{where}: 'rationale' must be a string of at most {MAX_TEXT} characters")
        model = obj.get("model", "")
        if not isinstance(model, str) or len(model) > 300:
            problems.append(f"{where}: 'model' must be a string of at most 300 characters")
        unknown = set(obj) - {"topic", "pool_id", "docid", "key", "kind", "value", "rationale", "model"}
        if unknown:
            problems.append(f"{where}: unknown keys {', '.join(sorted(unknown))}")
        if topic and subject and kind and isinstance(value, dict) and value and isinstance(rationale, str):
            records.append(
                Record(
                    n, topic, {subjects[0]: subject}, kind, value, rationale, model if isinstance(model, str) else ""
                )
            )
    if problems:
        raise SuggestionFileError(problems)
    return records


def parse_qrels(data: bytes | str, filename: str, grades: dict[str, str]) -> list[Record]:
    """Graded qrels (`qid iter docid grade`, UMBRELA's output); `grades` maps each grade to a label."""
    problems: list[str] = []
    records = []
    seen: set[tuple[str, str]] = set()
    for n, line in enumerate(_text(data, filename), start=1):
        if not line.strip():
            continue
        parts = line.split()
        where = f"{filename}:{n}"
        if len(parts) != 4:
            problems.append(f"{where}: a qrels line has 4 fields (qid iter docid grade), not {len(parts)}")
            continue
        qid, _, docid, grade = parts
        if grade not in grades:
            problems.append(f"{where}: grade {grade!r} has no label; map it (known: {', '.join(sorted(grades))})")
            continue
        if (qid, docid) in seen:
            problems.append(f"{where}: {qid} {docid} a second time")
            continue
        seen.add((qid, docid))
        records.append(Record(n, qid, {"docid": docid}, None, None, f"qrels grade {grade}", grade=grade))
    if problems:
        raise SuggestionFileError(problems)
    return records


def parse_nuggetizer_assignments(data: bytes | str, filename: str) -> list[Record]:
    """nuggetizer's assignments file: one record per (qid, answer_text) with its supported nugget texts."""
    problems: list[str] = []
    records = []
    for n, obj in _json_lines(data, filename, problems):
        where = f"{filename}:{n}"
        qid = _short_str(obj, "qid", where, problems, 50)
        answer = obj.get("answer_text")
        nuggets = obj.get("nuggets")
        if not isinstance(answer, str) or len(answer) > MAX_TEXT:
            problems.append(f"{where}: 'answer_text' must be a string (an assignments file, not a nuggets file)")
            continue
        if not isinstance(nuggets, list) or len(nuggets) > 1000:
            problems.append(f"{where}: 'nuggets' must be a list of at most 1000 objects")
            continue
        supported = []
        for i, nugget in enumerate(nuggets):
            if not isinstance(nugget, dict) or not isinstance(nugget.get("text"), str) or not nugget["text"].strip():
                problems.append(f"{where}: nuggets[{i}] must be an object with a non-empty 'text'")
                continue
            if nugget.get("assignment") not in (*SUPPORTED, "not_support"):
                problems.append(
                    f"{where}: nuggets[{i}] 'assignment' must be support, partial_support or not_support, "
                    f"not {nugget.get('assignment')!r}"
                )
                continue
            if nugget["assignment"] in SUPPORTED:
                supported.append(nugget["text"].strip())
        run = obj.get("run_id", "")
        if qid:
            records.append(
                Record(
                    n,
                    qid,
                    {"answer_text": answer},
                    "nugget_match",
                    None,
                    f"nuggetizer assignment{f' (run {run})' if isinstance(run, str) and run else ''}",
                    nuggets=tuple(supported),
                )
            )
    if problems:
        raise SuggestionFileError(problems)
    return records


def parse_grades(text: str) -> dict[str, str]:
    """ "0=no,1=maybe,2=yes" -> {"0": "no", ...} (the qrels mapping as a command or form writes it)."""
    out = {}
    for part in text.split(","):
        grade, sep, label = part.partition("=")
        if not sep or not grade.strip() or not label.strip():
            raise SuggestionFileError([f"grade mapping: {part!r} is not GRADE=LABEL"])
        out[grade.strip()] = label.strip()
    return out
