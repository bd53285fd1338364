"""What both kinds of BOLT IR submission file share (citations.py, groups.py): the root and its header, the run
tag, the responses per topic, a <cite>'s attributes and passage, and the settings' defaults. Pure."""

import math
from collections.abc import Iterable
from pathlib import PurePath
from typing import Any

from lxml.etree import _Element

from pooling.formats.base import CheckContext, Problem
from tracks.bolt.formats.xml_common import AS_SUBMITTED, PASSAGE_READINGS, children, passage_text
from tracks.bolt.near_duplicates import THRESHOLD_PERCENT

ROOT = "bolt-ir-submission"
HEADER = ("team", "date", "eval", "subtask", "contact")
CITE_REQUIRED = ("score", "thread", "post", "offset", "length")
# Every BOLT run is pooled ("all returned passages will be pooled"), so a run's priority only orders the runs;
# the loader uses this one when the organizer gives none and the tag does not end in a digit.
DEFAULT_PRIORITY = 1
DEFAULTS: dict[str, Any] = {
    "max_citations": 100,
    "max_passage_chars": 250,
    "eval_id": "BOLT-IR-P2",
    "near_dup_percent": THRESHOLD_PERCENT,
    "passage_white_space": AS_SUBMITTED,
}


def setting(context: CheckContext, name: str) -> Any:
    return (context.settings or {}).get(name, DEFAULTS[name])


def run_tag(root: _Element, filename: str, context: CheckContext) -> str:
    tag = (context.extra or {}).get("tag") or (root.get("run") or "").strip()
    return tag or PurePath(filename).name.split(".")[0]


def check_header(root: _Element, subtask: str, context: CheckContext, problems: list[Problem]) -> dict[str, str]:
    """Header attributes present, subtask as expected, eval as the evaluation's."""
    line = root.sourceline
    header = {}
    for name in HEADER:
        value = (root.get(name) or "").strip()
        if not value:
            problems.append(Problem(line, f"<{ROOT}>: missing or empty attribute {name!r}"))
        header[name] = value
    if header["subtask"] and header["subtask"] != subtask:
        problems.append(Problem(line, f"<{ROOT}>: subtask must be {subtask!r}, not {header['subtask']!r}"))
    wanted = setting(context, "eval_id")
    if header["eval"] and wanted and header["eval"].upper() != wanted.upper():
        problems.append(Problem(line, f"<{ROOT}>: eval must be {wanted!r}, not {header['eval']!r}"))
    return header


def passage_reading(context: CheckContext, problems: list[Problem]) -> str:
    """The evaluation's `passage_white_space` setting, a problem when it is not one of PASSAGE_READINGS."""
    reading = setting(context, "passage_white_space")
    if reading not in PASSAGE_READINGS:
        problems.append(
            Problem(
                None,
                f"setting passage_white_space must be one of {', '.join(map(repr, PASSAGE_READINGS))}, not {reading!r}",
            )
        )
        return AS_SUBMITTED
    return reading


def parse_cite(
    el: _Element, problems: list[Problem], extra_required: Iterable[str] = (), reading: str = AS_SUBMITTED
) -> dict[str, Any]:
    """The attributes and passage of one <cite> (read as `reading` says: xml_common.PASSAGE_READINGS), every bad
    attribute reported; None values where unusable."""
    line = el.sourceline
    get = el.get
    extra_required = tuple(extra_required)
    cite: dict[str, Any] = {"line": line}
    number: float | None  # a score below, then an offset or a length
    for name in CITE_REQUIRED + extra_required if extra_required else CITE_REQUIRED:
        value = get(name)
        value = value.strip() if value is not None else ""
        if not value:
            problems.append(Problem(line, f"cite: missing attribute {name!r}"))
        cite[name] = value
    for name in ("score", *(n for n in extra_required if n.endswith("score"))) if extra_required else ("score",):
        if cite[name]:
            try:
                number = float(cite[name])
            except ValueError:
                number = math.nan
            if not (0.0 <= number <= 1.0):  # also false for nan
                problems.append(Problem(line, f"cite: {name} must be a number between 0 and 1, not {cite[name]!r}"))
                number = None
            cite[name] = number
        else:
            cite[name] = None
    for name in ("offset", "length"):
        raw = cite[name]
        if raw:
            try:
                number = int(raw)
            except ValueError:
                number = None
            if number is None or number < 0 or (name == "length" and number == 0):
                kind = "a positive" if name == "length" else "a non-negative"
                problems.append(Problem(line, f"cite: {name} must be {kind} integer, not {raw!r}"))
                number = None
            cite[name] = number
        else:
            cite[name] = None
    if (original := get("original")) is not None:
        cite["original"] = original
    if (ident := get("id")) is not None:
        cite["id"] = ident.strip()
    cite["passage"] = passage_text(el, reading)
    return cite


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: p.line or 0)


def responses(
    root: _Element,
    context: CheckContext,
    problems: list[Problem],
    inner_tag: str,
    required: Iterable[str] | None = None,
) -> list[tuple[str, _Element]]:
    """[(topic ident, response element)] for known, unrepeated topics; unknown, repeated and missing ones
    reported (`required`: the topics that need a response, by default all of the evaluation's)."""
    seen: dict[str, int | None]
    found, seen = [], {}
    for el in root:
        if not isinstance(el.tag, str):
            continue
        if el.tag != "response":
            problems.append(Problem(el.sourceline, f"unexpected element <{el.tag}> (expected <response>)"))
            continue
        number = (el.get("number") or "").strip()
        if not number:
            problems.append(Problem(el.sourceline, "response without a number attribute"))
            continue
        if number not in context.topics:
            problems.append(Problem(el.sourceline, f"response number {number!r} is not a topic of this evaluation"))
            continue
        if number in seen:
            problems.append(
                Problem(el.sourceline, f"second response for topic {number} (first at line {seen[number]})")
            )
            continue
        seen[number] = el.sourceline
        if not children(el, inner_tag):
            problems.append(Problem(el.sourceline, f"response {number} has no <{inner_tag}>"))
        found.append((number, el))
    for ident in context.topics if required is None else required:
        if ident not in seen:
            problems.append(Problem(None, f"no response for topic {ident}"))
    return found
