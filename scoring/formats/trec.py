"""TREC's text formats as trec_eval, pytrec_eval and ir_measures read them (issue 28; docs/formats.md).

- qrels: `TOPIC ITERATION DOCNO REL`, the iteration column always "0"; REL a small integer, -1 for a pooled item
  not judged (trec_eval's RELVALUE_NONPOOL convention, which its measures count as unjudged).
- per-assessor qrels, trec_eval's `-R qrels_jg`: `TOPIC GROUP DOCNO REL`, the second column naming a judgment
  group (here the assessor's role: primary, secondary, adjudicated).
- run files: `TOPIC Q0 DOCNO RANK SCORE TAG`.
- result files: `trec_eval -q` (`MEASURE<TAB>TOPIC<TAB>VALUE`, the run's means on `all` rows, a `runid` row),
  ir_measures (`RUN TOPIC MEASURE VALUE`) and the 4-column `RUN MEASURE TOPIC VALUE`; all tab-separated.

Every field is one whitespace-free token (the readers split on whitespace), which the writers check.
"""

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pooling.formats.base import Problem

UNJUDGED = -1  # a pooled item nobody judged (trec_eval: RELVALUE_NONPOOL)
ALL = "all"  # the topic of a run-level row in every result file
RESULT_SHAPES = ("trec_eval", "ir_measures", "4col")
# The reader's limits: a qrels file of a large TREC collection is tens of MB (Robust04: 311,410 lines).
MAX_QRELS_BYTES = 100 * 1024 * 1024
MAX_QRELS_LINES = 2_000_000
MAX_TOKEN_CHARS = 200  # PoolItem.docid's length; a topic ident is shorter still


@dataclass(frozen=True)
class Qrel:
    topic: str
    docno: str
    rel: int
    group: str = "0"  # the iteration column, or the judgment group of a qrels_jg file


@dataclass(frozen=True)
class Ranked:
    """One retrieved document of a run: a topic's documents are written in the order given, ranks from 1."""

    topic: str
    docno: str
    score: float
    tag: str


@dataclass(frozen=True)
class Result:
    run: str
    topic: str  # ALL for a run-level value
    measure: str
    value: float


def _token(value: str, what: str) -> str:
    if not value or any(c.isspace() for c in value):
        raise ValueError(f"{what} {value!r} is not one whitespace-free token, which the TREC formats need")
    return value


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key putting "2" before "10" and "216.3" before "216.10", as topic files list them."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part)


def merged(qrels: Iterable[Qrel]) -> list[Qrel]:
    """One line per (topic, group, docno), sorted; a docno judged twice in one group (two BOLT passages of one
    post) keeps its highest grade, and any judgment outranks -1 (trec_eval refuses a docno twice in a topic)."""
    best: dict[tuple[str, str, str], int] = {}
    for q in qrels:
        key = (_token(q.topic, "topic"), _token(q.group, "group"), _token(q.docno, "docno"))
        best[key] = max(best.get(key, q.rel), q.rel)
    order = sorted(best, key=lambda k: (_natural(k[0]), _natural(k[1]), k[2]))
    return [Qrel(topic, docno, best[(topic, group, docno)], group) for topic, group, docno in order]


def write_qrels(qrels: Iterable[Qrel]) -> Iterator[str]:
    """`TOPIC 0 DOCNO REL` lines (the groups folded into one: the caller passes the official judgments)."""
    for q in merged(Qrel(q.topic, q.docno, q.rel) for q in qrels):
        yield f"{q.topic} 0 {q.docno} {q.rel}\n"


def write_qrels_jg(qrels: Iterable[Qrel]) -> Iterator[str]:
    """`TOPIC GROUP DOCNO REL` lines, trec_eval's qrels_jg: one judgment group per assessor role."""
    for q in merged(qrels):
        yield f"{q.topic} {q.group} {q.docno} {q.rel}\n"


TIE_STEP = 1e-6  # relative; float32 resolves about 6e-8


def write_run(ranked: Iterable[Ranked]) -> Iterator[str]:
    """`TOPIC Q0 DOCNO RANK SCORE TAG` lines. Within a (tag, topic) the given order is the ranking: ranks count
    from 1 and the scores are made strictly decreasing along it (trec_eval sorts by score, not rank); a docno
    met again in the same ranking keeps its first place (trec_eval refuses duplicates)."""
    seen: set[tuple[str, str, str]] = set()
    rank: dict[tuple[str, str], int] = {}
    last: dict[tuple[str, str], float] = {}
    for r in ranked:
        key = (_token(r.tag, "run tag"), _token(r.topic, "topic"))
        if (*key, _token(r.docno, "docno")) in seen:
            continue
        seen.add((*key, r.docno))
        rank[key] = rank.get(key, 0) + 1
        score = float(r.score)
        if key in last and score >= last[key]:
            # A tie or a rise kept in the given order, by a step a single-precision reader still sees
            # (pytrec_eval, and so ir_measures, hold scores as floats: one ulp below 7.5 read back as 7.5, and the
            # tie was broken by docno instead).
            score = last[key] - max(abs(last[key]), 1e-3) * TIE_STEP
        last[key] = score
        yield f"{r.topic} Q0 {r.docno} {rank[key]} {score!r} {r.tag}\n"


def _value(value: float) -> str:
    return f"{value:.4f}"


def write_results(results: Iterable[Result], shape: str) -> Iterator[str]:
    """A result file in one of RESULT_SHAPES. Rows keep their order, except trec_eval -q's: per run, a `runid`
    row, the per-topic rows in topic order, then the `all` rows (trec_eval's layout). NaN is left out."""
    rows = [r for r in results if not math.isnan(r.value)]
    for r in rows:
        _token(r.run, "run tag"), _token(r.topic, "topic"), _token(r.measure, "measure")
    if shape == "ir_measures":
        yield from (f"{r.run}\t{r.topic}\t{r.measure}\t{_value(r.value)}\n" for r in rows)
    elif shape == "4col":
        yield from (f"{r.run}\t{r.measure}\t{r.topic}\t{_value(r.value)}\n" for r in rows)
    elif shape == "trec_eval":
        for run in dict.fromkeys(r.run for r in rows):
            mine = [r for r in rows if r.run == run]
            yield f"{'runid':<22}\t{ALL}\t{run}\n"
            per_topic = sorted((r for r in mine if r.topic != ALL), key=lambda r: (_natural(r.topic), r.measure))
            for r in per_topic + [r for r in mine if r.topic == ALL]:
                yield f"{r.measure:<22}\t{r.topic}\t{_value(r.value)}\n"
    else:
        raise ValueError(f"no result shape {shape!r}; choose from {', '.join(RESULT_SHAPES)}")


def read_results(text: str, shape: str) -> list[Result]:
    """The rows of a result file written by write_results (trec_eval -q's runid row names the run of the rows
    after it). A malformed line raises ValueError naming its line."""
    found: list[Result] = []
    run = ""
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        try:
            if shape == "trec_eval":
                measure, topic, value = fields
                if measure == "runid":
                    run = value
                    continue
                found.append(Result(run, topic, measure, float(value)))
            elif shape == "ir_measures":
                run, topic, measure, value = fields
                found.append(Result(run, topic, measure, float(value)))
            elif shape == "4col":
                run, measure, topic, value = fields
                found.append(Result(run, topic, measure, float(value)))
            else:
                raise ValueError(f"no result shape {shape!r}")
        except ValueError as error:
            raise ValueError(f"line {number}: {line!r} is not a {shape} result row ({error})") from None
    return found


def read_qrels(
    data: bytes,
    filename: str,
    *,
    max_bytes: int = MAX_QRELS_BYTES,
    max_lines: int = MAX_QRELS_LINES,
) -> tuple[list[Problem], list[Qrel]]:
    """Every problem of a qrels (or qrels_jg) file, each with its line (Problem.format: FILE:LINE: message), and
    its lines as Qrel (the second column in `group`). Nothing is returned with a problem: a caller stores all or
    nothing. A docno twice in one topic and group is a problem (trec_eval refuses it too)."""
    if len(data) > max_bytes:
        return [Problem(None, f"the file is {len(data):,} bytes, over the limit of {max_bytes:,}")], []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return [Problem(None, f"not UTF-8 text (byte {error.start})")], []
    problems: list[Problem] = []
    found: list[Qrel] = []
    seen: dict[tuple[str, str, str], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if number > max_lines:
            problems.append(Problem(number, f"more than {max_lines:,} lines; nothing after this line was read"))
            break
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            problems.append(Problem(number, f"{len(fields)} fields; a qrels line has 4: TOPIC ITERATION DOCNO REL"))
            continue
        topic, group, docno, rel = fields
        if long := [f for f in (topic, group, docno) if len(f) > MAX_TOKEN_CHARS]:
            problems.append(Problem(number, f"a field of {len(long[0]):,} characters (at most {MAX_TOKEN_CHARS})"))
            continue
        if not re.fullmatch(r"-?\d+", rel):
            problems.append(Problem(number, f"relevance {rel!r} is not an integer"))
            continue
        if int(rel) < UNJUDGED:
            problems.append(Problem(number, f"relevance {rel} is below -1 (unjudged)"))
            continue
        key = (topic, group, docno)
        if key in seen:
            problems.append(Problem(number, f"{docno} of topic {topic} again (first on line {seen[key]})"))
            continue
        seen[key] = number
        found.append(Qrel(topic, docno, int(rel), group))
    return problems, ([] if problems else found)
