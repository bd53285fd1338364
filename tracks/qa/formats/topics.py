"""TREC/TAC QA question series in XML (TREC 2004-2007 main task, TAC 2008 opinion QA). No Django import.

    <trecqa year="2007" task="main">
      <target id="219" text="Iraqi defector Curveball">
        <qa><q id="219.1" type="FACTOID">What year did Curveball defect?</q></qa>
        ...
      </target>
    </trecqa>

A `target` becomes a series topic (kind "series", text = the target); each `q` a question of kind FACTOID, LIST,
OTHER (TREC) or RIGIDLIST, SQUISHYLIST (TAC 2008; "RigidList", "RIGID LIST" and "rigid_list" are all accepted),
with an id X.Y where X is its target's id. Order in the file is kept (the list order is the series order).
"""

import re

from lxml import etree
from lxml.etree import _Element

from pooling.formats.base import ParsedTopic, Problem

QUESTION_TYPES = ("FACTOID", "LIST", "OTHER", "RIGIDLIST", "SQUISHYLIST")
# What the organizer's topic upload calls this file; NIST also gave teams per-target top-documents lists (seed 000).
FILE_LABEL = "Questions (TREC/TAC series XML)"
TOP_DOCS = True
# Question types whose text may be empty ("Other" questions carry no question of their own).
MAY_BE_EMPTY = ("OTHER",)


def normalise_type(raw: str | None) -> str:
    return re.sub(r"[\s_\-]+", "", raw or "").upper()


def _text(element: _Element) -> str:
    return " ".join("".join(element.itertext()).split())


def parse_topics(data: bytes, filename: str) -> tuple[list[Problem], list[ParsedTopic]]:
    """(problems, topics): every series and question of a TREC/TAC QA question file, in file order."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        return [Problem(exc.lineno or None, f"malformed XML: {exc.msg}")], []

    seen: dict[str, int | None]
    problems, topics, seen = [], [], {}

    def claim(ident: str, line: int | None, what: str) -> bool:
        if ident in seen:
            problems.append(Problem(line, f"duplicate id {ident!r} ({what}); first used on line {seen[ident]}"))
            return False
        seen[ident] = line
        return True

    targets = [el for el in root.iter("target")]
    if not targets:
        problems.append(Problem(root.sourceline, f"no <target> element in <{root.tag!s}>"))
    for target in targets:
        line = target.sourceline
        target_id = (target.get("id") or "").strip()
        target_text = " ".join((target.get("text") or "").split())
        if not target_id:
            problems.append(Problem(line, "<target> without an id attribute"))
            continue
        if not target_text:
            problems.append(Problem(line, f"target {target_id} has no text attribute"))
        claim(target_id, line, "target")
        extra = {k: v for k, v in target.attrib.items() if k not in ("id", "text")}
        topics.append(ParsedTopic(ident=target_id, kind="series", text=target_text, line=line, data=extra))
        questions = list(target.iter("q"))
        if not questions:
            problems.append(Problem(line, f"target {target_id} has no <q> questions"))
        for q in questions:
            qline = q.sourceline
            qid = (q.get("id") or "").strip()
            if not qid:
                problems.append(Problem(qline, f"<q> without an id attribute in target {target_id}"))
                continue
            head, dot, tail = qid.partition(".")
            if head != target_id or not dot or not tail:
                problems.append(
                    Problem(qline, f"question id {qid!r} is not of the form {target_id}.Y for target {target_id}")
                )
            raw_type = q.get("type")
            kind = normalise_type(raw_type)
            if raw_type is None:
                problems.append(Problem(qline, f"question {qid} has no type attribute"))
            elif kind not in QUESTION_TYPES:
                problems.append(
                    Problem(
                        qline,
                        f"question {qid} has unknown type {raw_type!r}; expected one of {', '.join(QUESTION_TYPES)}",
                    )
                )
            text = _text(q)
            if not text and kind not in MAY_BE_EMPTY:
                problems.append(Problem(qline, f"question {qid} has no text"))
            if claim(qid, qline, "question"):
                topics.append(ParsedTopic(ident=qid, kind=kind, text=text, parent=target_id, line=qline))
    return problems, topics
