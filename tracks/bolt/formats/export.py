"""Assessed citations in the seed's submission DTD form (bolt-ir-cite-schema.dtd). Pure: no Django import.

Each citation of a run comes back as submitted (score, thread, post, offset, length, passage) with what NIST and
LDC added: the pooling `id`, `original` (the post's raw text at the pointer, required by the DTD), and, once
judged, `rel`, `chksrc`, `trans` and the relevant parts of the passage wrapped in <relspan> elements. A
near-duplicate carries its class leader's judgment (the seed: "marked as equivalently relevant"), relevant parts
included, carried to its own text by the caller (tracks.bolt.near_duplicates.leader_judgment). A citation
not judged yet is written without assessment attributes (the DTD's defaults would read as "no").
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lxml import etree
from lxml.etree import _Element

from pooling.formats.base import Problem
from tracks.bolt.formats.xml_common import CITE_DTD, validate
from tracks.bolt.measures import merge_spans

DOCTYPE = '<!DOCTYPE bolt-ir-submission SYSTEM "bolt-ir-cite-schema.dtd">'
TRANS = ("accept", "problematic", "notaccept", "na")


def _fill_passage(el: _Element, passage: str, spans: Iterable[Sequence[int]]) -> None:
    """Set the passage as mixed content with <relspan> around each relevant part."""
    pos, last = 0, None
    for start, end in merge_spans(spans, len(passage)):
        before = passage[pos:start]
        if last is None:
            el.text = before
        else:
            last.tail = before
        last = etree.SubElement(el, "relspan")
        last.text = passage[start:end]
        pos = end
    rest = passage[pos:]
    if last is None:
        el.text = rest
    else:
        last.tail = rest


def assessment_attributes(judgment: Mapping[str, Any] | None) -> dict[str, str]:
    """{rel, chksrc, trans} for a citation judgment value, or {} when unjudged."""
    if not judgment or judgment.get("rel") not in ("yes", "maybe", "no"):
        return {}
    rel = judgment["rel"]
    trans = judgment.get("trans") if rel != "no" else "na"
    if trans not in TRANS:
        trans = "na"
    return {"rel": rel, "chksrc": "yes" if judgment.get("chksrc") else "no", "trans": trans}


def export_citations(header: Mapping[str, Any], responses: Iterable[tuple[str, list[dict[str, Any]]]]) -> bytes:
    """The XML bytes of an assessed citation run.

    header: {team, date, eval, contact} (subtask is "citations"); responses: [(topic number, [cite])] with each
    cite a dict of id, score, thread, post, offset, length, passage, original (or None) and judgment (a
    citation judgment value or None)."""
    root = etree.Element("bolt-ir-submission")
    for name in ("team", "date", "eval"):
        root.set(name, str(header.get(name) or ""))
    root.set("subtask", "citations")
    root.set("contact", str(header.get("contact") or ""))
    for number, cites in responses:
        if not cites:
            continue  # the DTD wants at least one cite per response
        response = etree.SubElement(root, "response", number=str(number))
        for cite in cites:
            el = etree.SubElement(response, "cite")
            el.set("score", _score(cite["score"]))
            for name in ("thread", "post", "offset", "length"):
                el.set(name, str(cite[name]))
            el.set("original", cite.get("original") or "n/a")
            el.set("id", str(cite.get("id") or "-1"))
            judgment = cite.get("judgment")
            for name, value in assessment_attributes(judgment).items():
                el.set(name, value)
            relevant = (judgment or {}).get("rel") in ("yes", "maybe")
            spans = ((judgment or {}).get("relspans") or []) if relevant else []
            _fill_passage(el, cite["passage"], spans)
    body = etree.tostring(root, encoding="UTF-8", xml_declaration=False, pretty_print=True)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + DOCTYPE.encode() + b"\n" + body


def _score(value: float | None) -> str:
    return format(float(value), "g") if value is not None else "0"


def validate_export(xml_bytes: bytes) -> list[Problem]:
    """Problems from validating an export against the citation DTD (none when it is valid)."""
    return validate(xml_bytes, CITE_DTD)


def team_topics(eval_id: str, contact: str, topics: Iterable[tuple[str, str, str | None]]) -> bytes:
    """The topic file teams receive: only each topic's number, query and language target (the seed: the other
    fields come with the judgments). `topics`: [(number, query, language target)]."""
    root = etree.Element("bolt-ir-topics", eval=eval_id, contact=contact)
    for number, query, target in topics:
        topic = etree.SubElement(root, "topic", number=str(number))
        etree.SubElement(topic, "query").text = query
        etree.SubElement(topic, "language-target", lang=target or "none")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + etree.tostring(root, encoding="UTF-8", pretty_print=True)
