"""TREC/TAC QA run files, checked the way NIST's checking routine did. No Django import.

Each line: `qid run-tag docid answer-string` (any white space between columns; the answer string runs to the end
of the line). A factoid's "no answer" is the docid `NIL` with no answer string, where the track allows it. The
same NIL line, alone for its question, is a list or Other question's explicit empty response where the track
allows one (TREC 2007: SPEC-NOTES, "an empty response scores 0"); it is not pooled and scores 0.

Settings read from the context (evaluation settings, seeded from the track's defaults):
- allow_nil (bool): NIL responses to factoid questions allowed;
- allow_empty_response (bool): a list or Other question may be answered by a NIL line, the explicit empty response
  (TAC 2008 asks for "an unordered, non-empty set", so not there);
- max_answer_chars (int): limit on the non-white-space characters of all answer strings of one question;
- max_answer_chars_by_type ({type: int}): the same limit for one question type only (e.g. {"OTHER": 7000});
- permalink_only (bool): only changes the wording of the unknown-docid message (TAC: permalink documents).

The pool of a question holds its distinct [docid, answer-string] instances; `pool_key` gives an instance's
identity (answer string with white space collapsed), so the same instance from many runs is one pool item.
"""

import re
from collections.abc import Mapping
from typing import Any

from pooling.formats.base import CheckContext, ParsedEntry, ParsedRun, Problem

NIL = "NIL"
FILE_SHAPE = "text"  # what a run file looks like (pooling.runs names a file of the other shape)
MAX_TAG = 100
SINGLE_ANSWER_TYPES = ("FACTOID",)  # exactly one [docid, answer] pair or NIL


def collapse(text: str) -> str:
    """White space collapsed to single spaces: how answer strings are compared when pooling."""
    return " ".join(text.split())


def non_white_length(text: str) -> int:
    return len("".join(text.split()))


POOL_USES_DATA = False  # pool_key and pool_item read only docid and text


def pool_key(entry: ParsedEntry) -> str | None:
    """The identity of an entry's pool item, or None when the entry is not judged through the pool (NIL)."""
    if entry.docid == NIL:
        return None
    return f"{entry.docid}\t{collapse(entry.text)}"


def pool_item(entry: ParsedEntry) -> dict[str, str]:
    """The fields of a new pool item made from its first entry."""
    return {"docid": entry.docid, "text": collapse(entry.text)}


# C0/C1 control characters other than tab, and lone surrogates: not text, whatever the encoding said.
_BAD_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _bad_character(text: str) -> str | None:
    found = _BAD_CHARACTER.search(text)
    return found.group() if found else None


def _limit_for(kind: str, settings: Mapping[str, Any]) -> int | None:
    by_type = settings.get("max_answer_chars_by_type") or {}
    if kind in by_type:
        return by_type[kind]
    return settings.get("max_answer_chars")


def check_run(data: bytes, filename: str, context: CheckContext) -> tuple[list[Problem], ParsedRun | None]:
    """(problems, ParsedRun or None): every problem of the file, one per line where it is."""
    problems, entries = [], []
    settings = context.settings or {}
    allow_nil = bool(settings.get("allow_nil", False))
    allow_empty = bool(settings.get("allow_empty_response", False))
    first_tag = None  # (tag, line)

    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the final line break
    if not lines:
        return [Problem(None, "the file is empty")], None

    for number, raw in enumerate(lines, start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(
                Problem(
                    number, f"bad encoding: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
                )
            )
            continue
        if not line.strip():
            problems.append(Problem(number, "empty line"))
            continue
        bad = _bad_character(line)
        if bad is not None:
            problems.append(Problem(number, f"bad encoding: control character U+{ord(bad):04X}"))
            continue
        cols = line.split(None, 3)
        if len(cols) < 3 or (len(cols) == 3 and cols[2] != NIL):
            problems.append(
                Problem(
                    number,
                    f"missing columns: expected 'qid run-tag docid answer-string', "
                    f"found {len(cols)} column{'s' if len(cols) != 1 else ''}",
                )
            )
            continue
        qid, tag, docid = cols[:3]
        text = cols[3].strip() if len(cols) == 4 else ""
        if len(tag) > MAX_TAG:
            problems.append(Problem(number, f"run tag longer than {MAX_TAG} characters"))
            continue
        if first_tag is None:
            first_tag = (tag, number)
        elif tag != first_tag[0]:
            problems.append(Problem(number, f"run tag {tag!r} differs from {first_tag[0]!r} of line {first_tag[1]}"))
        if qid not in context.topics:
            problems.append(Problem(number, f"unknown question id {qid!r}"))
            continue
        entries.append(
            ParsedEntry(topic=qid, line=number, docid=docid, text=text, data={"nil": True} if docid == NIL else {})
        )

    by_question: dict[str, list[ParsedEntry]] = {}
    for entry in entries:
        by_question.setdefault(entry.topic, []).append(entry)

    # Documents: one bulk lookup for the whole file.
    docids = {e.docid for e in entries if e.docid != NIL}
    known = context.known_docids(docids) if docids else set()
    where = "a permalink document of the collection" if settings.get("permalink_only") else "in the collection"
    for entry in entries:
        if entry.docid != NIL and entry.docid not in known:
            problems.append(Problem(entry.line, f"docid {entry.docid!r} is not {where}"))

    for qid, kind in context.topics.items():
        answers = by_question.get(qid)
        if not answers:
            empty = (
                f" (an empty response is the line '{qid} TAG NIL')"
                if allow_empty and kind not in SINGLE_ANSWER_TYPES
                else ""
            )
            problems.append(Problem(None, f"question {qid} has no line: every question needs at least one{empty}"))
            continue
        nils = [e for e in answers if e.docid == NIL]
        for e in nils:
            # seed 001, 2.1: a factoid's response may be NIL; any other question's NIL is an empty response
            if kind in SINGLE_ANSWER_TYPES:
                if not allow_nil:
                    problems.append(Problem(e.line, f"NIL is not allowed in this evaluation (question {qid})"))
                elif len(answers) > 1:
                    problems.append(Problem(e.line, f"NIL beside other answers for question {qid}"))
            elif allow_empty:
                if len(answers) > 1:
                    problems.append(Problem(e.line, f"NIL (an empty response) beside other answers for question {qid}"))
            elif not allow_nil:
                problems.append(Problem(e.line, f"NIL is not allowed in this evaluation (question {qid})"))
            else:
                problems.append(
                    Problem(e.line, f"NIL answers factoid questions only; question {qid} is of type {kind}")
                )
        if kind in SINGLE_ANSWER_TYPES and len(answers) > 1:
            problems.append(
                Problem(
                    answers[1].line,
                    f"{kind.lower()} question {qid} has {len(answers)} lines; exactly one answer (or NIL) is allowed",
                )
            )
        limit = _limit_for(kind, settings)
        if limit:
            total = 0
            for e in answers:
                total += non_white_length(e.text)
                if total > limit:
                    full = sum(non_white_length(a.text) for a in answers)
                    problems.append(
                        Problem(
                            e.line,
                            f"answer strings of question {qid} exceed {limit} "
                            f"non-white-space characters ({full} in all)",
                        )
                    )
                    break

    problems.sort(key=lambda p: (p.line is None, p.line or 0))
    if problems or first_tag is None:
        return problems, None
    return problems, ParsedRun(tag=first_tag[0], entries=entries)
