"""TREC RAG runs: 2024 and 2025 answer runs, the shared RAGTIME/DRAGUN shape, and TREC retrieval runs. Pure.

Which shape a file has is read from the file itself, whatever the evaluation's `run_shape` setting (SPEC-NOTES
"TREC RAG"), one JSON object a line for answers:
- 2024 (AG and RAG tasks): {"run_id", "topic_id", "topic", "references": [segment ids], "response_length",
  "answer": [{"text", "citations": [indices into references]}]};
- 2025: the same answer and references with "team_id", "run_id", "narrative_id", "type" (automatic or manual),
  either beside them or in a "metadata" object;
- shared (RAGTIME/DRAGUN validators): {"metadata": {"team_id", "run_id", "topic_id"}, "responses": [{"text",
  "citations"}], "references"}, citations a list of segment ids (or of indices into references) or an
  {id: score} map (kept in the order written);
and, for the relevance pool, retrieval (R) runs in the TREC run format `topic Q0 docid rank score tag`.

Rules (settings override the numbers): at most `max_words` (400) words per answer (white-space separated words of
all its sentences), at most `max_references` (100) references, citation indices in range, segment ids well-formed
(`docid_pattern`, MS MARCO V2.1 segment ids by default) and in the collection (CheckContext.known_docids), every
topic known and answered once, one run id (and team id) in a file; a retrieval run at most `max_ranked` (100)
segments per topic, each once. Limits before parsing: the file's size, each line's length, JSON nesting depth.
Every problem is named by line; a run with any is refused whole.

Run entries (the contract with the judging half, tracks/rag): per topic of an answer run "answer", then per sentence
"sentence" (1-based n, its citations), per (sentence, cited segment) "support", per distinct cited segment
"relevance"; per line of a retrieval run "ranked" (rank after sorting by score, "pooled" when within pool_depth).
"""

import hashlib
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from config import safejson
from pooling.formats.base import CheckContext, ParsedEntry, ParsedRun, Problem
from pooling.formats.parallel import NeedsParent

FILE_SHAPE = "text"  # JSON Lines or TREC run lines; an XML file is named as meant for another evaluation
NUL_FREE = True  # the checker refuses a NUL in any text it keeps (once a line), so the columns need not look
SHAPES = ("2024", "2025", "shared", "retrieval")
DEFAULTS: dict[str, Any] = {"max_words": 400, "max_references": 100, "max_ranked": 100, "pool_depth": 20}
SEGMENT_ID = r"msmarco_v2\.1_doc_\d+_\d+#\d+_\d+"
MAX_FILE_BYTES = 64 << 20  # a real answer run of 301 topics is about 2 MB
MAX_LINE_CHARS = 1 << 20  # one topic's answer with 100 references is about 10 kB
MAX_DEPTH = 6  # a line nests 3 levels (answer list, sentence object, citation list)
EXTRA_ANSWERS = 100  # answers past the evaluation's topics read before a run is refused unread
TYPES = ("automatic", "manual")


@dataclass
class _Answer:
    topic: str
    line: int
    shape: str
    run_id: str
    team_id: str = ""
    type: str = ""
    task: str = ""
    references: list[str] = field(default_factory=list)
    sentences: list[tuple[str, list[str]]] = field(default_factory=list)  # (text, cited segment ids, each once)


@dataclass
class _Ranked:
    topic: str
    line: int
    docid: str
    given_rank: int
    score: float
    tag: str


def _settings(context_settings: dict[str, Any]) -> dict[str, Any]:
    return DEFAULTS | {k: v for k, v in (context_settings or {}).items() if k in DEFAULTS or k in ("docid_pattern",)}


def check_run(data: bytes, filename: str, context: CheckContext) -> tuple[list[Problem], ParsedRun | None]:
    limits = _settings(context.settings)
    problems, read = _read(data, limits, len(context.topics))
    if read is None:
        return problems, None
    known = (context.extra or {}).get("known_segments") or context.known_docids
    if read and isinstance(read[0], _Ranked):
        problems += _cross_check_ranked(read, context, known)  # type: ignore[arg-type]
        run = None if _errors(problems) else _parsed_ranked(read, limits)  # type: ignore[arg-type]
    else:
        problems += _cross_check_answers(read, context, known)  # type: ignore[arg-type]
        run = None if _errors(problems) else _parsed_answers(read, context.settings)  # type: ignore[arg-type]
    return problems, run


def _errors(problems: list[Problem]) -> bool:
    return any(not p.warning for p in problems)


def pooled_docids(data: bytes, filename: str, pool_depth: int = 20) -> tuple[list[Problem], set[str], set[str]]:
    """(problems, pooled, named) of a run read without an evaluation, for loading a collection by need before any
    topic exists: `pooled` the segments it would put in the relevance pool (what its answers cite, what it ranks
    within pool_depth), `named` every other segment id it names (uncited references, deeper ranks), which its
    check will look for in the collection too."""
    problems, read = _read(data, DEFAULTS | {"pool_depth": pool_depth}, None)
    pooled: set[str] = set()
    named: set[str] = set()
    for item in read or []:
        if isinstance(item, _Ranked):
            continue
        named.update(item.references)
        for _, cited in item.sentences:
            pooled.update(cited)
    ranked = [r for r in read or [] if isinstance(r, _Ranked)]
    for entry in _parsed_ranked(ranked, DEFAULTS | {"pool_depth": pool_depth}).entries if ranked else []:
        (pooled if entry.data["pooled"] else named).add(entry.docid)
    named.discard("")
    return [p for p in problems if not p.warning], pooled, named - pooled


# ---------------------------------------------------------------- reading a file


def _read(data: bytes, limits: dict[str, Any], topics: int | None) -> tuple[list[Problem], list[Any] | None]:
    """(problems, [_Answer] or [_Ranked]); None when the file cannot be read at all."""
    if len(data) > MAX_FILE_BYTES:
        return [Problem(None, f"the file has {len(data):,} bytes, more than {MAX_FILE_BYTES:,}; not read")], None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        return [Problem(data.count(b"\n", 0, e.start) + 1, f"not UTF-8 ({e.reason})")], None
    first = next((line.strip() for line in text.split("\n", 50) if line.strip()), "")
    if not first:
        return [Problem(None, "the file is empty")], None
    pattern = re.compile(f"^(?:{limits.get('docid_pattern') or SEGMENT_ID})$")
    if first.startswith("{"):
        return _read_answers(text, limits, pattern, topics)
    if first.startswith("["):
        return [Problem(1, "an answer run is JSON Lines (one JSON object a line), not a JSON array")], None
    return _read_ranked(text, limits, pattern)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, raw in enumerate(text.split("\n"), start=1):
        if raw.strip():
            yield number, raw


def _read_answers(text, limits, pattern, topics):
    problems: list[Problem] = []
    answers: list[_Answer] = []
    for count, (number, raw) in enumerate(_lines(text)):
        if topics is not None and count == topics + EXTRA_ANSWERS:
            problems.append(
                Problem(
                    number,
                    f"more than {EXTRA_ANSWERS} answers beyond the {topics} topics of this evaluation (each topic is "
                    "answered once); the run is refused whole here, the rest is not read",
                )
            )
            return problems, None
        if len(raw) > MAX_LINE_CHARS:
            problems.append(Problem(number, f"the line has more than {MAX_LINE_CHARS:,} characters; not read"))
            continue
        try:
            obj = safejson.loads(raw, max_depth=MAX_DEPTH, max_bytes=MAX_LINE_CHARS)
        except safejson.JSONDecodeError as e:
            problems.append(Problem(number, f"malformed JSON: {e.msg} (column {e.colno})"))
            continue
        if not isinstance(obj, dict):
            problems.append(Problem(number, "each line must hold one JSON object (one topic's answer)"))
            continue
        shape = _shape_of(obj)
        if shape is None:
            problems.append(
                Problem(
                    number,
                    "not an answer of a known shape: 2024 (run_id, topic_id, answer), 2025 (narrative_id, answer) "
                    "or the shared shape (metadata, responses)",
                )
            )
            continue
        found, answer = _READERS[shape](obj, number, limits, pattern)
        problems += found
        if answer is not None and _holds_nul(answer):
            problems.append(
                Problem(number, "the line holds a NUL character (\\u0000), which no text can be stored with")
            )
            continue
        if answer is not None:
            answers.append(answer)
    problems += _same_everywhere(answers)
    if not answers and not _errors(problems):
        problems.append(Problem(None, "no answers in the file"))
    return problems, answers


def _holds_nul(answer: _Answer) -> bool:
    texts = [answer.topic, answer.run_id, answer.team_id, answer.type, *answer.references]
    texts += [t for t, cited in answer.sentences] + [s for _, cited in answer.sentences for s in cited]
    return any("\x00" in t for t in texts)


def _shape_of(obj: dict) -> str | None:
    if "responses" in obj:
        return "shared"
    if "answer" not in obj:
        return None
    meta = obj.get("metadata")
    if "narrative_id" in obj or (isinstance(meta, dict) and "narrative_id" in meta):
        return "2025"
    return "2024" if "topic_id" in obj else None


def _text(value: Any) -> str | None:
    """A non-empty identifier as text (ids may be written as numbers); None otherwise."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return str(value).strip() or None


def _read_2024(obj, line, limits, pattern):
    return _read_answer(obj, line, limits, pattern, "2024", obj, "topic_id", "answer")


def _read_2025(obj, line, limits, pattern):
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return _read_answer(
        obj, line, limits, pattern, "2025", meta | {k: v for k, v in obj.items()}, "narrative_id", "answer"
    )


def _read_shared(obj, line, limits, pattern):
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return [Problem(line, "the shared shape needs a 'metadata' object (team_id, run_id, topic_id)")], None
    return _read_answer(obj, line, limits, pattern, "shared", meta, "topic_id", "responses")


def _read_answer(obj, line, limits, pattern, shape, fields, topic_field, body_field):
    problems: list[Problem] = []
    topic = _text(fields.get(topic_field))
    run_id = _text(fields.get("run_id"))
    if topic is None:
        problems.append(Problem(line, f"no {topic_field!r}"))
    if run_id is None:
        problems.append(Problem(line, "no 'run_id'"))
    label = f"topic {topic}" if topic else f"line {line}"
    answer = _Answer(topic=topic or "", line=line, shape=shape, run_id=run_id or "")
    answer.team_id = _text(fields.get("team_id")) or ""
    if shape != "2024" and not answer.team_id:
        problems.append(Problem(line, "no 'team_id'"))
    kind = fields.get("type")
    if shape == "2025":
        if kind not in TYPES:
            problems.append(Problem(line, f"{label}: 'type' must be one of {', '.join(TYPES)}, not {kind!r}"))
        answer.type = kind if isinstance(kind, str) else ""
    task = fields.get("task")
    answer.task = task if task in ("AG", "RAG") else ""
    references = obj.get("references", [] if shape == "shared" else None)
    listed = isinstance(references, list)
    if not listed:
        problems.append(Problem(line, f"{label}: 'references' must be a list of segment ids"))
        references = []
    if len(references) > limits["max_references"]:
        problems.append(
            Problem(line, f"{label}: {len(references)} references, over the cap of {limits['max_references']}")
        )
    for i, ref in enumerate(references):
        if not isinstance(ref, str) or not pattern.match(ref):
            problems.append(Problem(line, f"{label}: references[{i}] {_short(ref)} is not a segment id"))
            ref = ""  # kept in its place, so that the indices after it still point right
        answer.references.append(ref)
    body = obj.get(body_field)
    if not isinstance(body, list) or not body:
        problems.append(Problem(line, f"{label}: {body_field!r} must be a non-empty list of sentences"))
        return problems, None
    words = 0
    for n, part in enumerate(body, start=1):
        where = f"{label}, sentence {n}"
        if not isinstance(part, dict) or not isinstance(part.get("text"), str) or not part["text"].strip():
            problems.append(Problem(line, f"{where}: needs a non-empty 'text'"))
            continue
        refs = answer.references if listed else None
        found, cited = _citations(part.get("citations", []), refs, where, line, pattern, shape)
        problems += found
        words += len(part["text"].split())
        answer.sentences.append((" ".join(part["text"].split()), cited))
    if words > limits["max_words"]:
        problems.append(Problem(line, f"{label}: {words} words, over the cap of {limits['max_words']}"))
    if shape == "shared" and not references:  # the cited ids, in order, are its references
        answer.references = list(dict.fromkeys(s for _, cited in answer.sentences for s in cited))
    return problems, answer


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _citations(value, references, where, line, pattern, shape):
    """(problems, cited segment ids in the run's order, each once) of one sentence's citations; `references`
    None when they could not be read (indices into them are then not checked)."""
    problems: list[Problem] = []
    if isinstance(value, dict) and shape == "shared":
        items: list[Any] = list(value)
    elif isinstance(value, list):
        items = value
    else:
        kind = "a list of indices into references" if shape != "shared" else "a list of ids or an {id: score} map"
        return [Problem(line, f"{where}: 'citations' must be {kind}")], []
    cited: list[str] = []
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool):
            if references is None:
                continue
            if not 0 <= item < len(references):
                problems.append(
                    Problem(line, f"{where}: citation {item} is out of range (references has {len(references)})")
                )
                continue
            segid = references[item]
        elif isinstance(item, str) and shape == "shared":
            segid = item
            if not pattern.match(segid):
                problems.append(Problem(line, f"{where}: citation {_short(item)} is not a segment id"))
                continue
        else:
            problems.append(Problem(line, f"{where}: citation {_short(item)} is not an index into references"))
            continue
        if segid and segid not in cited:
            cited.append(segid)
    return problems, cited


_READERS = {"2024": _read_2024, "2025": _read_2025, "shared": _read_shared}


def _same_everywhere(answers: list[_Answer]) -> list[Problem]:
    """One shape, one run id and one team id in a file: a second one is named at its first line."""
    problems = []
    for name, value in (("shape", lambda a: a.shape), ("run_id", lambda a: a.run_id), ("team_id", lambda a: a.team_id)):
        first: dict[str, int] = {}
        for a in answers:
            if value(a):
                first.setdefault(value(a), a.line)
        if len(first) > 1:
            (one, at), (other, line) = sorted(first.items(), key=lambda kv: kv[1])[:2]
            what = "answer shape" if name == "shape" else name
            problems.append(
                Problem(line, f"{what} {other!r} differs from {one!r} of line {at}: one run a file, one {what}")
            )
    return problems


def _read_ranked(text, limits, pattern):
    problems: list[Problem] = []
    ranked: list[_Ranked] = []
    tags: dict[str, int] = {}
    for number, raw in _lines(text):
        if len(raw) > 1000:
            problems.append(Problem(number, "the line has more than 1,000 characters; not a TREC run line"))
            continue
        if "\x00" in raw:
            problems.append(Problem(number, "the line holds a NUL character"))
            continue
        parts = raw.split()
        if len(parts) != 6:
            problems.append(
                Problem(number, f"{len(parts)} columns; a TREC run line has 6: topic Q0 docid rank score tag")
            )
            continue
        topic, _, docid, rank_text, score_text, tag = parts
        bad = False
        try:
            rank = int(rank_text)
        except ValueError:
            rank = 0
        if rank < 1:
            problems.append(Problem(number, f"rank {_short(rank_text)} is not a whole number of 1 or more"))
            bad = True
        try:
            score = float(score_text)
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            problems.append(Problem(number, f"score {_short(score_text)} is not a finite number"))
            bad = True
        if not pattern.match(docid):
            problems.append(Problem(number, f"{_short(docid)} is not a segment id"))
            bad = True
        tags.setdefault(tag, number)
        if not bad:
            ranked.append(_Ranked(topic, number, docid, rank, score, tag))
    if len(tags) > 1:
        (one, at), (other, line) = sorted(tags.items(), key=lambda kv: kv[1])[:2]
        problems.append(Problem(line, f"run tag {other!r} differs from {one!r} of line {at}: one run a file"))
    seen: dict[tuple[str, str], int] = {}
    counts: dict[str, int] = {}
    for r in ranked:
        if (r.topic, r.docid) in seen:
            problems.append(
                Problem(r.line, f"topic {r.topic}: {r.docid} is ranked twice (also line {seen[(r.topic, r.docid)]})")
            )
        seen.setdefault((r.topic, r.docid), r.line)
        counts[r.topic] = counts.get(r.topic, 0) + 1
        if counts[r.topic] == limits["max_ranked"] + 1:
            problems.append(Problem(r.line, f"topic {r.topic}: more than {limits['max_ranked']} segments ranked"))
    return problems, ranked


# ---------------------------------------------------------------- checks against the evaluation


def _cross_check_answers(answers: list[_Answer], context: CheckContext, lookup: Callable) -> list[Problem]:
    problems: list[Problem] = []
    docids = {s for a in answers for s in a.references} | {s for a in answers for _, c in a.sentences for s in c}
    docids.discard("")
    known = lookup(docids) if docids else set()
    first: dict[str, int] = {}
    for a in answers:
        label = f"topic {a.topic}"
        if a.topic not in context.topics:
            problems.append(Problem(a.line, f"{label} is not a topic of this evaluation"))
        if a.topic in first:
            problems.append(Problem(a.line, f"{label} is answered twice (also line {first[a.topic]})"))
        first.setdefault(a.topic, a.line)
        named: set[str] = set()
        for segid in a.references + [s for _, cited in a.sentences for s in cited]:
            if segid and segid not in known and segid not in named:
                named.add(segid)
                problems.append(Problem(a.line, f"{label}: segment {segid} is not in the collection"))
    missing = [t for t in context.topics if t not in first]
    if missing and answers:
        problems.append(
            Problem(
                None,
                f"no answer for {len(missing)} topic(s): {', '.join(missing[:20])}{' …' if len(missing) > 20 else ''}",
                warning=True,
            )
        )
    return problems


def _cross_check_ranked(ranked: list[_Ranked], context: CheckContext, lookup: Callable) -> list[Problem]:
    problems: list[Problem] = []
    known = lookup({r.docid for r in ranked}) if ranked else set()
    unknown_topics: set[str] = set()
    for r in ranked:
        if r.topic not in context.topics and r.topic not in unknown_topics:
            unknown_topics.add(r.topic)
            problems.append(Problem(r.line, f"topic {r.topic} is not a topic of this evaluation"))
        if r.docid not in known:
            problems.append(Problem(r.line, f"topic {r.topic}: segment {r.docid} is not in the collection"))
    return problems


# ---------------------------------------------------------------- what is stored


def _parsed_answers(answers: list[_Answer], settings: dict[str, Any]) -> ParsedRun:
    entries: list[ParsedEntry] = []
    for a in answers:
        texts = [t for t, _ in a.sentences]
        entries.append(
            ParsedEntry(
                a.topic,
                a.line,
                text=" ".join(texts),
                data={
                    "kind": "answer",
                    "sentences": len(texts),
                    "words": sum(len(t.split()) for t in texts),
                    "references": a.references,
                },
            )
        )
        for n, (sentence, cited) in enumerate(a.sentences, start=1):
            entries.append(
                ParsedEntry(a.topic, a.line, text=sentence, data={"kind": "sentence", "n": n, "citations": cited})
            )
        for n, (sentence, cited) in enumerate(a.sentences, start=1):
            for segid in cited:
                entries.append(
                    ParsedEntry(a.topic, a.line, docid=segid, text=sentence, data={"kind": "support", "n": n})
                )
        for segid in dict.fromkeys(s for _, cited in a.sentences for s in cited):
            entries.append(ParsedEntry(a.topic, a.line, docid=segid, data={"kind": "relevance"}))
    first = answers[0]
    task = first.task or (settings.get("task") if settings.get("task") in ("AG", "RAG") else "")
    data = {"shape": first.shape, "team_id": first.team_id, "type": first.type, "priority": 1}
    return ParsedRun(tag=first.run_id, entries=entries, data=data | ({"task": task} if task else {}))


def _parsed_ranked(ranked: list[_Ranked], limits: dict[str, Any]) -> ParsedRun:
    """Ranks as trec_eval reads a run: by score, highest first (ties in the order of the ranks given)."""
    by_topic: dict[str, list[_Ranked]] = {}
    for r in ranked:
        by_topic.setdefault(r.topic, []).append(r)
    depth = int(limits.get("pool_depth") or DEFAULTS["pool_depth"])
    entries = []
    for topic, rows in by_topic.items():
        rows.sort(key=lambda r: (-r.score, r.given_rank, r.line))
        for rank, r in enumerate(rows, start=1):
            entries.append(
                ParsedEntry(
                    topic,
                    r.line,
                    docid=r.docid,
                    data={"kind": "ranked", "rank": rank, "score": r.score, "pooled": rank <= depth},
                )
            )
    tag = ranked[0].tag if ranked else ""
    return ParsedRun(
        tag=tag, entries=entries, data={"shape": "retrieval", "task": "R", "team_id": "", "type": "", "priority": 1}
    )


# ---------------------------------------------------------------- checking in worker processes


class KnownSegments:
    """CheckContext.extra["known_segments"] for a worker process (pooling.formats.parallel): which of the segment
    ids found in the file are in the collection, looked up beforehand; NeedsParent when a check asks for others."""

    def __init__(self, asked: Iterable[str], found: Iterable[str]) -> None:
        self.asked, self.found = frozenset(asked), frozenset(found)

    def __call__(self, docids: Iterable[str]) -> set[str]:
        docids = set(docids)
        if not self.asked.issuperset(docids):
            raise NeedsParent
        return docids & self.found


_ANY_SEGMENT_ID = re.compile(SEGMENT_ID.encode())  # a longer id holding one only adds an id to look up


def process_extra(context: CheckContext, data: bytes) -> dict[str, Any] | None:
    """What a worker needs to check the file: the collection's answer for every MS MARCO V2.1 segment id the file
    holds, looked up here. None (checked in this process) under another `docid_pattern`."""
    if (context.settings or {}).get("docid_pattern"):
        return None
    if isinstance(data, str):
        data = data.encode("utf-8")
    found = {m.decode("ascii") for m in _ANY_SEGMENT_ID.findall(data)}
    return {"known_segments": KnownSegments(found, context.known_docids(found) if found else set())}


# ---------------------------------------------------------------- pooling


def normal(text: str) -> str:
    return " ".join(text.split())


def _digest(text: str) -> str:
    return hashlib.sha1(normal(text).encode()).hexdigest()[:20]


def pool_key(entry: ParsedEntry) -> str | None:
    """r:<segment> for relevance (one item per topic and segment across all runs: cited, or ranked within the pool
    depth), a:<digest> for an answer (an identical answer from two runs is judged once), p:<digest>:<segment> for
    the support of a sentence by a segment it cites; sentences and unpooled ranked segments are no item."""
    kind = entry.data.get("kind")
    if kind == "relevance" or (kind == "ranked" and entry.data.get("pooled")):
        return f"r:{entry.docid}"
    if kind == "answer":
        return f"a:{_digest(entry.text)}"
    if kind == "support":
        return f"p:{_digest(entry.text)}:{entry.docid}"
    return None


def pool_item(entry: ParsedEntry) -> dict:
    kind = entry.data.get("kind")
    if kind == "answer":
        return {
            "docid": "",
            "text": entry.text,
            "data": {"kind": "answer", "sentences": entry.data.get("sentences", 0)},
        }
    if kind == "support":
        return {"docid": entry.docid, "text": entry.text, "data": {"kind": "support", "n": entry.data.get("n")}}
    return {"docid": entry.docid, "text": "", "data": {"kind": "relevance"}}
