"""BioGen runs: the 2024 JSON document and the 2025 Task A / Task B JSON Lines, checked as seed 002 states. Pure.

The evaluation setting `run_shape` ("2024", "2025-A", "2025-B") says which shape its runs have; `limits[shape]`
holds that shape's caps (SPEC-NOTES: 150 words without citations and punctuation and 10 sentences for 2024; 250
words and at most 3 citations per response for 2025). Every problem is reported (by topic and sentence, and by
line); a run with any error is refused whole. Warnings (discarded brackets, dropped citations, topics without an
answer) and the sentence splitter used are notes: Problem(warning=True), which refuse nothing.

What a stored run holds, per topic, as run entries (data["kind"]):
- "answer": the whole answer (text without citation lists), its word and sentence counts;
- "sentence": one per answer sentence (2024) or answer segment/response (2025), data["n"] its number from 1
  and data["pmids"] its citations (each once; 2025 Task A adds data["claims"]: PMID -> "supported",
  "contradicted" or "existing");
- "citation": one per (sentence, PMID), docid the PMID, text the sentence.
"""

import hashlib
import re
from collections.abc import Sequence

from config import safejson
from pooling.formats.base import CheckContext, ParsedEntry, ParsedRun, Problem
from tracks.biogen.formats.sentences import PMID, split_answer, splitter_name, word_count

SHAPES = ("2024", "2025-A", "2025-B")
ROOT_2024: dict[str, type | tuple[type, ...]] = {"team_id": str, "run_name": str, "contact_email": str, "results": list}
RESULT_2024: dict[str, type | tuple[type, ...]] = {"topic_id": (str, int), "answer": str, "references": list}
TASK_A_CLAIMS = {
    "existing_supported_citations": "existing",
    "supported_citations": "supported",
    "contradicted_citations": "contradicted",
}
# Answers past the evaluation's topics a run may have before it is refused unread (_too_many).
EXTRA_ANSWERS = 100
# Longest answer the sentence splitter is given, whatever the word cap (spaCy refuses texts over 1,000,000).
MAX_ANSWER_CHARS = 100_000
DEFAULT_LIMITS = {
    "2024": {"max_words": 150, "max_sentences": 10},
    "2025-A": {"max_citations": 3},
    "2025-B": {"max_words": 250, "max_citations": 3},
}


def _lines_of_key(text: str, key: str) -> list[int]:
    """The line of each occurrence of "key": in the file, in order (to put a 2024 result's problems on a line)."""
    lines, number, last = [], 1, 0
    for m in re.finditer(rf'"{key}"\s*:', text):
        number += text.count("\n", last, m.start())
        last = m.start()
        lines.append(number)
    return lines


def check_run(data: bytes, filename: str, context: CheckContext) -> tuple[list[Problem], ParsedRun | None]:
    shape = str(context.settings.get("run_shape") or "2024")
    if shape not in SHAPES:
        return [Problem(None, f"the evaluation's run_shape {shape!r} is not one of {', '.join(SHAPES)}")], None
    limits = DEFAULT_LIMITS[shape] | dict((context.settings.get("limits") or {}).get(shape) or {})
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        return [Problem(None, f"not UTF-8: {e}")], None
    checker = {"2024": _check_2024, "2025-A": _check_task_a, "2025-B": _check_task_b}[shape]
    problems, run = checker(text, context, limits)
    notes = [Problem(None, f"sentences split by {splitter_name()}", warning=True)] if shape == "2024" else []
    errors = [p for p in problems if not p.warning]
    return notes + problems, (None if errors or run is None else run)


class _Topic:
    """What the checker gathers for one topic's answer before the cross checks."""

    def __init__(self, ident, line, where):
        self.ident, self.line, self.where = ident, line, where
        self.sentences = []  # [(text, [pmids], claims)]
        self.references = []


def _pmid(value):
    """A PMID as text, or None when the value is not one."""
    if isinstance(value, bool):
        return None
    text = str(value).strip() if isinstance(value, (str, int)) else ""
    return text if PMID.match(text) else None


def _check_2024(text, context, limits):
    problems = []
    try:
        root = safejson.loads(text)
    except safejson.JSONDecodeError as e:
        return [Problem(e.lineno, f"malformed JSON: {e.msg} (column {e.colno}); the run is refused whole")], None
    if not isinstance(root, dict):
        return [Problem(1, "the root must be a JSON object with team_id, run_name, contact_email, results")], None
    for key, kind in ROOT_2024.items():
        if key not in root:
            problems.append(Problem(1, f"the root has no {key!r}"))
        elif not isinstance(root[key], kind) or (kind is str and not root[key].strip()):
            problems.append(Problem(1, f"{key!r} must be {'a list' if kind is list else 'non-empty text'}"))
    problems += [Problem(1, f"unknown field {k!r} in the root", warning=True) for k in root if k not in ROOT_2024]
    if not isinstance(root.get("results"), list):
        return problems, None
    lines: Sequence[int | None] = _lines_of_key(text, "topic_id")
    if len(lines) != len(root["results"]):
        lines = [None] * len(root["results"])
    gathered = []
    for i, (result, line) in enumerate(zip(root["results"], lines)):
        where = f"results[{i}]"
        if i == len(context.topics) + EXTRA_ANSWERS:
            return problems + [_too_many(line, where, context)], None
        if not isinstance(result, dict):
            problems.append(Problem(line, f"{where}: a result must be a JSON object"))
            continue
        bad = False
        for key, kind in RESULT_2024.items():
            if key not in result:
                problems.append(Problem(line, f"{where}: no {key!r}"))
                bad = True
            elif not isinstance(result[key], kind) or isinstance(result[key], bool):
                problems.append(Problem(line, f"{where}: {key!r} has the wrong type"))
                bad = True
        if bad:
            continue
        topic = _Topic(str(result["topic_id"]).strip(), line, where)
        label = f"topic {topic.ident}"
        words = word_count(result["answer"])
        if limits.get("max_words") and words > limits["max_words"]:
            problems.append(
                Problem(
                    line,
                    f"{label}: {words} words (citations and punctuation not counted), over the cap of "
                    f"{limits['max_words']}",
                )
            )
            if words > 10 * limits["max_words"]:  # refused anyway: not split (slow, and spaCy's own bound)
                continue
        if len(result["answer"]) > MAX_ANSWER_CHARS:
            problems.append(Problem(line, f"{label}: the answer has more than {MAX_ANSWER_CHARS:,} characters"))
            continue
        split = split_answer(result["answer"])
        problems += [Problem(line, f"{label}: {e}") for e in split.errors]
        problems += [Problem(line, f"{label}: {w}", warning=True) for w in split.warnings]
        topic.sentences = [(s.text, s.pmids, {}) for s in split.sentences]
        if not topic.sentences:
            problems.append(Problem(line, f"{label}: the answer has no sentence"))
        if limits.get("max_sentences") and len(topic.sentences) > limits["max_sentences"]:
            problems.append(
                Problem(line, f"{label}: {len(topic.sentences)} sentences, over the cap of {limits['max_sentences']}")
            )
        for j, ref in enumerate(result["references"]):
            pmid = _pmid(ref)
            if pmid is None:
                problems.append(Problem(line, f"{label}: references[{j}] {ref!r} is not a PMID"))
            else:
                topic.references.append(pmid)
        gathered.append(topic)
    problems += _cross_check(gathered, context, limits, references=True)
    if any(not p.warning for p in problems):
        return problems, None
    return problems, _parsed(
        root["run_name"].strip(), gathered, {"team_id": root["team_id"], "contact_email": root["contact_email"]}
    )


def _jsonl(text, topic_field):
    """Yield (line, object, problems) of a JSON Lines run; checks the metadata every line shares."""
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = safejson.loads(raw)
        except safejson.JSONDecodeError as e:
            yield number, None, [Problem(number, f"malformed JSON: {e}")]
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
            yield number, None, [Problem(number, "each line must be an object with a 'metadata' object")]
            continue
        meta = obj["metadata"]
        missing = [k for k in ("team_id", "run_id", topic_field) if meta.get(k) in (None, "")]
        if missing:
            yield number, None, [Problem(number, f"metadata has no {', '.join(map(repr, missing))}")]
            continue
        yield number, obj, []


def _too_many(line, where, context):
    """A run with far more answers than the evaluation has topics is refused at the first answer past the bound,
    before the rest is read (each answer's sentences are split: 20,000 answers held a web thread 9-17 s; issue 26).
    Up to EXTRA_ANSWERS extra ones are checked as usual, so a duplicate or a stray topic is named as such."""
    return Problem(
        line,
        f"{where}: more than {EXTRA_ANSWERS} answers beyond the {len(context.topics)} topics of this evaluation "
        "(each topic is answered once); the run is refused whole here, the rest is not read",
    )


def _check_lines(text, context, limits, topic_field, body_field, read_body):
    problems: list[Problem] = []
    gathered: list[_Topic] = []
    teams: dict[str, int] = {}  # team_id -> its first line
    runs: dict[str, int] = {}
    for answers, (line, obj, found) in enumerate(_jsonl(text, topic_field)):
        if answers == len(context.topics) + EXTRA_ANSWERS:
            return problems + [_too_many(line, f"line {line}", context)], None
        problems += found
        if obj is None:
            continue
        meta = obj["metadata"]
        teams.setdefault(str(meta["team_id"]), line)
        runs.setdefault(str(meta["run_id"]), line)
        topic = _Topic(str(meta[topic_field]).strip(), line, f"line {line}")
        body = obj.get(body_field)
        if not isinstance(body, list) or not body:
            problems.append(Problem(line, f"topic {topic.ident}: {body_field!r} must be a non-empty list"))
            continue
        problems += read_body(topic, body, limits)
        gathered.append(topic)
    for name, seen in (("team_id", teams), ("run_id", runs)):
        if len(seen) > 1:
            problems.append(
                Problem(
                    sorted(seen.values())[1], f"every line must have the same {name}; found {', '.join(sorted(seen))}"
                )
            )
    if not gathered and not problems:
        problems.append(Problem(None, "no answers in the file"))
    problems += _cross_check(gathered, context, limits, references=False)
    if any(not p.warning for p in problems) or not runs:
        return problems, None
    return problems, _parsed(next(iter(runs)), gathered, {"team_id": next(iter(teams))})


def _citation_list(topic, n, field, values, limits):
    problems, pmids = [], []
    label = f"topic {topic.ident}, sentence {n}"
    if not isinstance(values, list):
        return [Problem(topic.line, f"{label}: {field!r} must be a list of PMIDs")], []
    for value in values:
        pmid = _pmid(value)
        if pmid is None:
            problems.append(Problem(topic.line, f"{label}: {value!r} in {field!r} is not a PMID"))
        elif pmid not in pmids:
            pmids.append(pmid)
    cap = limits.get("max_citations")
    if cap and len(values) > cap:
        problems.append(Problem(topic.line, f"{label}: {len(values)} citations in {field!r}, over the cap of {cap}"))
    return problems, pmids


def _read_task_a(topic, body, limits):
    problems = []
    for n, part in enumerate(body, start=1):
        if not isinstance(part, dict) or not isinstance(part.get("text"), str) or not part["text"].strip():
            problems.append(Problem(topic.line, f"topic {topic.ident}, sentence {n}: needs a non-empty 'text'"))
            continue
        pmids: list[str] = []
        claims: dict[str, str] = {}  # PMID -> its claim
        for field, claim in TASK_A_CLAIMS.items():
            found, listed = _citation_list(topic, n, field, part.get(field, []), limits if claim != "existing" else {})
            problems += found
            for pmid in listed:
                if pmid in claims:
                    problems.append(
                        Problem(
                            topic.line,
                            f"topic {topic.ident}, sentence {n}: PMID {pmid} is both {claims[pmid]} and {claim}",
                        )
                    )
                    continue
                claims[pmid] = claim
                pmids.append(pmid)
        topic.sentences.append((part["text"].strip(), pmids, claims))
    return problems


def _read_task_b(topic, body, limits):
    problems, words = [], 0
    for n, part in enumerate(body, start=1):
        if not isinstance(part, dict) or not isinstance(part.get("text"), str) or not part["text"].strip():
            problems.append(Problem(topic.line, f"topic {topic.ident}, sentence {n}: needs a non-empty 'text'"))
            continue
        found, pmids = _citation_list(topic, n, "citations", part.get("citations", []), limits)
        problems += found
        words += word_count(part["text"])
        topic.sentences.append((part["text"].strip(), pmids, {}))
    if limits.get("max_words") and words > limits["max_words"]:
        problems.append(
            Problem(topic.line, f"topic {topic.ident}: {words} words, over the cap of {limits['max_words']}")
        )
    return problems


def _check_task_a(text, context, limits):
    return _check_lines(text, context, limits, "qa_id", "answer", _read_task_a)


def _check_task_b(text, context, limits):
    return _check_lines(text, context, limits, "topic_id", "responses", _read_task_b)


def _cross_check(gathered, context, limits, references):
    """Topics known and answered once; cited PMIDs in the allowed set (and in the references for 2024); each
    reference valid, listed once and cited at least once (seed 002, the two numbered lists)."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}  # topic ident -> where it was first answered
    cited_everywhere = {p for t in gathered for _, pmids, _ in t.sentences for p in pmids}
    listed = {p for t in gathered for p in t.references}
    allowed = context.known_docids(cited_everywhere | listed) if cited_everywhere | listed else set()
    for topic in gathered:
        label = f"topic {topic.ident}"
        if topic.ident not in context.topics:
            problems.append(Problem(topic.line, f"{label} is not a topic of this evaluation"))
        if topic.ident in seen:
            problems.append(Problem(topic.line, f"{label} is answered twice (also at {seen[topic.ident]})"))
        seen.setdefault(topic.ident, topic.where)
        refs = set(topic.references)
        cited = set()
        for n, (_, pmids, _) in enumerate(topic.sentences, start=1):
            for pmid in pmids:
                cited.add(pmid)
                if pmid not in allowed:
                    problems.append(
                        Problem(
                            topic.line, f"{label}, sentence {n}: PMID {pmid} is not in the allowed PubMed collection"
                        )
                    )
                if references and pmid not in refs:
                    problems.append(
                        Problem(topic.line, f"{label}, sentence {n}: PMID {pmid} is cited but not in references")
                    )
        if not references:
            continue
        counted = set()
        for pmid in topic.references:
            if pmid in counted:
                problems.append(Problem(topic.line, f"{label}: PMID {pmid} is listed more than once in references"))
                continue
            counted.add(pmid)
            if pmid not in allowed:
                problems.append(
                    Problem(topic.line, f"{label}: reference {pmid} is not in the allowed PubMed collection")
                )
            if pmid not in cited:
                problems.append(
                    Problem(
                        topic.line,
                        f"{label}: reference {pmid} is never cited in the answer "
                        "(citations past the third of a list do not count)",
                    )
                )
    missing = [t for t in context.topics if t not in seen]
    if missing and gathered:
        problems.append(
            Problem(
                None,
                f"no answer for {len(missing)} topic(s): {', '.join(missing[:20])}"
                f"{' …' if len(missing) > 20 else ''}; each scores as an answer judged not "
                "accurate",
                warning=True,
            )
        )
    return problems


def _parsed(tag, gathered, data):
    entries = []
    for topic in gathered:
        texts = [s for s, _, _ in topic.sentences]
        entries.append(
            ParsedEntry(
                topic.ident,
                topic.line or 0,
                text=" ".join(texts),
                data={
                    "kind": "answer",
                    "sentences": len(texts),
                    "words": sum(word_count(s) for s in texts),
                    "references": topic.references,
                },
            )
        )
        for n, (sentence, pmids, claims) in enumerate(topic.sentences, start=1):
            extra = {"claims": claims} if claims else {}
            entries.append(
                ParsedEntry(
                    topic.ident,
                    topic.line or 0,
                    text=sentence,
                    data={"kind": "sentence", "n": n, "pmids": pmids} | extra,
                )
            )
            for pmid in pmids:
                entries.append(
                    ParsedEntry(
                        topic.ident,
                        topic.line or 0,
                        docid=pmid,
                        text=sentence,
                        data={"kind": "citation", "n": n} | ({"claim": claims[pmid]} if claims else {}),
                    )
                )
    return ParsedRun(tag=tag, entries=entries, data=data | {"priority": 1})


# ---------------------------------------------------------------- pooling


def normal(text: str) -> str:
    return " ".join(text.split())


def _digest(text: str) -> str:
    return hashlib.sha1(normal(text).encode()).hexdigest()[:20]


def pool_key(entry: ParsedEntry) -> str | None:
    """An identical answer, or sentence with the same citation set, from two runs is one item, judged once; a
    citation is the pair (sentence text, PMID)."""
    kind = entry.data.get("kind")
    if kind == "answer":
        return f"a:{_digest(entry.text)}"
    if kind == "sentence":
        return f"s:{_digest(entry.text)}:{','.join(sorted(entry.data.get('pmids') or []))}"
    if kind == "citation":
        return f"c:{_digest(entry.text)}:{entry.docid}"
    return None


def pool_item(entry: ParsedEntry) -> dict:
    kind = entry.data["kind"]
    data = {"kind": kind}
    if kind == "sentence":
        data["pmids"] = sorted(entry.data.get("pmids") or [])
    return {"docid": entry.docid, "text": entry.text, "data": data}
