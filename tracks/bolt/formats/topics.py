"""BOLT IR phase 2 topic files (seed 004, "Topic format" and the topic DTD). Pure: no Django import.

    <bolt-ir-topics eval="BOLT-IR-P2" contact="...">
      <topic number="1.001">
        <query>...</query> <language-target lang="arz"/>
        <description>...</description>
        <properties><asks-about target=".."/><asks-for response=".."/><languages eng="T" arz="T" cmn="F"/></properties>
        <rules>...</rules>          (the appendix DTD spells it <rule number="..">, one or more: both accepted)
        <cite id=".." thread=".." post=".." offset=".." length=".." rel="yes">text <relspan>..</relspan></cite>
      </topic>
    </bolt-ir-topics>

Teams receive only the number, the query and the language target; the other fields are the assessors' until
the judgments are released. ParsedTopic.data keeps them apart: {"language_target": ..., "assessor": {...}}, and
`team_view` gives what a participant may see. Citations in a topic are those LDC found while developing it.
"""

from collections.abc import Mapping
from typing import Any

from lxml.etree import _Element

from pooling.formats.base import ParsedTopic, Problem
from tracks.bolt.formats.xml_common import child, children, collapse, parse_xml, passage_with_spans

ROOT = "bolt-ir-topics"
LANGUAGE_TARGETS = ("arz", "cmn", "eng", "none")
LANGUAGES = ("eng", "arz", "cmn")
RELS = ("yes", "maybe", "no")
KIND = "topic"
FILE_LABEL = "Topics (BOLT topic XML)"  # the topic upload's label


def team_view(data: Mapping[str, Any]) -> dict[str, str]:
    """The fields of a topic's data that participants may see (the seed: "only the 'query' and
    'language-target' fields"; the query is the topic's text)."""
    return {"language_target": data.get("language_target", "none")}


def _int(value: Any) -> int | None:  # Any: whatever int() refuses gives None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _parse_cite(el: _Element, problems: list[Problem]) -> dict[str, Any]:
    line = el.sourceline
    cite: dict[str, Any] = {}
    for name in ("id", "thread", "post", "offset", "length"):
        value = el.get(name)
        if value is None or not value.strip():
            problems.append(Problem(line, f"cite: missing attribute {name!r}"))
        cite[name] = (value or "").strip()
    for name in ("offset", "length"):
        if cite[name]:
            number = _int(cite[name])
            if number is None or number < 0 or (name == "length" and number == 0):
                problems.append(
                    Problem(
                        line,
                        f"cite: {name} must be a {'positive' if name == 'length' else 'non-negative'} "
                        f"integer, not {cite[name]!r}",
                    )
                )
            cite[name] = number
    rel = el.get("rel", "yes")
    if rel not in RELS:
        problems.append(Problem(line, f"cite: rel must be one of {', '.join(RELS)}, not {rel!r}"))
    cite["rel"] = rel
    passage, relspans = passage_with_spans(el)
    if not relspans and children(el, "nonrelspan"):
        # Only non-relevant parts marked: the rest of the passage is the relevant part.
        _, ignored = passage_with_spans(el, marked=("nonrelspan",))
        relspans, pos = [], 0
        for start, length in ignored:
            if start > pos:
                relspans.append([pos, start - pos])
            pos = start + length
        if pos < len(passage):
            relspans.append([pos, len(passage) - pos])
    cite["passage"] = passage
    cite["relspans"] = relspans
    cite["line"] = line
    if not passage.strip():
        problems.append(Problem(line, "cite: empty passage"))
    return cite


def _parse_topic(el: _Element, problems: list[Problem]) -> ParsedTopic:
    line = el.sourceline
    number = (el.get("number") or "").strip()
    if not number:
        problems.append(Problem(line, "topic without a number attribute"))
    query_el = child(el, "query")
    query = collapse("".join(query_el.itertext())) if query_el is not None else ""
    if not query:
        problems.append(Problem(line, f"topic {number}: missing or empty <query>"))
    target_el = child(el, "language-target")
    target = "none"
    if target_el is None:
        problems.append(Problem(line, f"topic {number}: missing <language-target>"))
    else:
        target = (target_el.get("lang") or "").strip()
        if target not in LANGUAGE_TARGETS:
            problems.append(
                Problem(
                    target_el.sourceline,
                    f"topic {number}: language-target lang must be one of "
                    f"{', '.join(LANGUAGE_TARGETS)}, not {target!r}",
                )
            )
    assessor: dict[str, Any] = {"description": "", "properties": {}, "rules": [], "citations": []}
    desc = child(el, "description")
    if desc is not None:
        assessor["description"] = collapse("".join(desc.itertext()))
    props = child(el, "properties")
    if props is not None:
        about, asks_for, langs = child(props, "asks-about"), child(props, "asks-for"), child(props, "languages")
        languages = {}
        if langs is not None:
            for code in LANGUAGES:
                value = langs.get(code, "F")
                if value not in ("T", "F"):
                    problems.append(
                        Problem(langs.sourceline, f"topic {number}: languages {code} must be T or F, not {value!r}")
                    )
                languages[code] = value == "T"
        assessor["properties"] = {
            "asks_about": about.get("target", "") if about is not None else "",
            "asks_for": asks_for.get("response", "") if asks_for is not None else "",
            "languages": languages,
        }
    for rule in children(el, "rules") + children(el, "rule"):
        text = collapse("".join(rule.itertext()))
        if text:
            assessor["rules"].append(text)
    for cite_el in children(el, "cite"):
        assessor["citations"].append(_parse_cite(cite_el, problems))
    known = {"query", "language-target", "description", "properties", "rules", "rule", "cite"}
    for sub in el:
        if isinstance(sub.tag, str) and sub.tag not in known:
            problems.append(Problem(sub.sourceline, f"topic {number}: unexpected element <{sub.tag}>"))
    return ParsedTopic(
        ident=number, kind=KIND, text=query, line=line, data={"language_target": target, "assessor": assessor}
    )


def parse_topics(data: bytes, filename: str) -> tuple[list[Problem], list[ParsedTopic]]:
    """(problems, topics) for a BOLT IR topic file; every problem is reported, with its line."""
    problems, root = parse_xml(data)
    if root is None:
        return problems, []
    if root.tag != ROOT:
        return [Problem(root.sourceline, f"root element must be <{ROOT}>, not <{root.tag!s}>")], []
    for name in ("eval", "contact"):
        if not (root.get(name) or "").strip():
            problems.append(Problem(root.sourceline, f"<{ROOT}>: missing attribute {name!r}"))
    seen: dict[str, int | None]
    topics, seen = [], {}
    for el in root:
        if not isinstance(el.tag, str):
            continue
        if el.tag != "topic":
            problems.append(Problem(el.sourceline, f"unexpected element <{el.tag}> (expected <topic>)"))
            continue
        topic = _parse_topic(el, problems)
        if topic.ident:
            if topic.ident in seen:
                problems.append(
                    Problem(topic.line, f"duplicate topic number {topic.ident} (first at line {seen[topic.ident]})")
                )
            seen.setdefault(topic.ident, topic.line)
        topics.append(topic)
    if not topics and not problems:
        problems.append(Problem(root.sourceline, "no <topic> in the file"))
    ids: dict[str, int | None] = {}
    for topic in topics:
        for cite in topic.data["assessor"]["citations"]:
            if not cite["id"]:
                continue
            if cite["id"] in ids:
                problems.append(
                    Problem(cite["line"], f"duplicate cite id {cite['id']!r} (first at line {ids[cite['id']]})")
                )
            ids.setdefault(cite["id"], cite["line"])
    return problems, topics
