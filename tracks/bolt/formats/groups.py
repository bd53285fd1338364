"""BOLT IR phase 2 thematic groupings (subtask "groups", seed 004). Pure: no Django import.

    <bolt-ir-submission team=".." date=".." eval="BOLT-IR-P2" subtask="groups" contact="..">
      <response number="1.001">
        <view number="0" label="Grouping by color">
          <group number="0" label="A nice blue grouping">
            <cite id="aBc12Z" grpscore="0.995" score="0.876" thread=".." post=".." offset=".." length="..">..</cite>

A grouping is checked against the citation run it was made from: at most `max_views` (3) views per topic, at most
`max_groups` (10) groups per view besides the one labelled "miscellaneous", labels of at most `max_label_chars`
(250) characters, view and group numbers unrepeated, a grpscore in [0, 1], every citation verbatim from the
citation run (thread, post, offset, length, score and passage; and its pooling id when both carry one), and
every citation of the run in at least one group of each view ("each passage must be a member of one or more
groups").

The citation runs come through CheckContext.extra:
    extra["citation_runs"] = {run tag: {topic ident: [{"thread", "post", "offset", "length", "score",
                                                       "passage", "id" (optional)}, ...]}}
(or a function returning them), extra["citation_run_teams"] = {run tag: team name} (or a function) to keep
to the runs of the grouping's own team (its header's `team`), and extra["citation_run"] = the tag to check against
when the organizer names it; otherwise the run that holds the most of the grouping's citations is taken.
"""

from collections.abc import Mapping
from typing import Any

from lxml.etree import _Element

from pooling.formats.base import CheckContext, ParsedEntry, ParsedRun, Problem
from tracks.bolt.formats.submission import (
    DEFAULT_PRIORITY,
    check_header,
    parse_cite,
    passage_reading,
    responses,
    run_tag,
    sort_problems,
)
from tracks.bolt.formats.xml_common import children, collapse, parse_xml

DEFAULTS = {"max_views": 3, "max_groups": 10, "max_label_chars": 250}
MISC = "miscellaneous"


def is_misc(label: str) -> bool:
    return collapse(label).lower() == MISC


def _setting(context: CheckContext, name: str) -> int:
    return (context.settings or {}).get(name, DEFAULTS[name])


def cite_key(cite: Mapping[str, Any]) -> tuple[Any, ...]:
    """What must match verbatim between a grouped citation and its citation-run original."""
    score = cite.get("score")
    return (
        cite.get("thread"),
        cite.get("post"),
        cite.get("offset"),
        cite.get("length"),
        None if score is None else round(float(score), 9),
        cite.get("passage"),
    )


def _choose_run(
    groups_cites: list[tuple[str, dict[str, Any]]], context: CheckContext, problems: list[Problem], team: str = ""
) -> tuple[str | None, dict[str, list[dict[str, Any]]]]:
    runs = (context.extra or {}).get("citation_runs") or {}
    if callable(runs):  # the Django side reads the runs only when a grouping file needs them
        runs = runs() or {}
    teams = (context.extra or {}).get("citation_run_teams") or {}
    if callable(teams):
        teams = teams() or {}
    own = {tag: cites for tag, cites in runs.items() if teams.get(tag) == team}
    if own:  # a grouping is made from one of its own team's citation runs
        runs = own
    named = (context.extra or {}).get("citation_run")
    if named:
        if named not in runs:
            problems.append(Problem(None, f"citation run {named!r} is not a citation run of this team"))
            return None, {}
        return named, runs[named]
    if not runs:
        problems.append(Problem(None, "the team has no citation run to check this grouping against"))
        return None, {}

    def matches(tag: str) -> int:
        index = {(t, cite_key(c)) for t, cites in runs[tag].items() for c in cites}
        return sum((t, cite_key(c)) in index for t, c in groups_cites)

    best = max(sorted(runs), key=matches)
    return best, runs[best]


def _check_label(el: _Element, what: str, context: CheckContext, problems: list[Problem]) -> str:
    label = el.get("label")
    if label is None or not label.strip():
        problems.append(Problem(el.sourceline, f"{what}: missing or empty label"))
        return ""
    limit = _setting(context, "max_label_chars")
    label = collapse(label)
    if len(label) > limit:
        problems.append(
            Problem(el.sourceline, f"{what}: label has {len(label)} characters; at most {limit} are allowed")
        )
    return label


def _number(el: _Element, what: str, seen: dict[str, int | None], problems: list[Problem]) -> str:
    number = (el.get("number") or "").strip()
    if not number:
        problems.append(Problem(el.sourceline, f"{what} without a number attribute"))
    elif number in seen:
        problems.append(Problem(el.sourceline, f"{what} number {number} repeated (first at line {seen[number]})"))
    else:
        seen[number] = el.sourceline
    return number


def check_tree(root: _Element, filename: str, context: CheckContext) -> tuple[list[Problem], ParsedRun | None]:
    """(problems, ParsedRun or None) for a parsed grouping submission (root already known to be BOLT's)."""
    problems: list[Problem] = []
    header = check_header(root, "groups", context, problems)
    reading = passage_reading(context, problems)  # as the citation run's passages were read
    # First pass: structure, limits and the citations themselves.
    rows = []  # (topic, view number, view label, group number, group label, misc, cite dict)
    views_seen: dict[str, list[tuple[str, int | None]]] = {}
    for number, response in responses(root, context, problems, "view", required=()):
        views = children(response, "view")
        if len(views) > _setting(context, "max_views"):
            problems.append(
                Problem(
                    response.sourceline,
                    f"response {number} has {len(views)} views; at most {_setting(context, 'max_views')} are allowed",
                )
            )
        view_numbers: dict[str, int | None] = {}
        for view in views:
            vnum = _number(view, f"topic {number}: view", view_numbers, problems)
            vlabel = _check_label(view, f"topic {number} view {vnum}", context, problems)
            views_seen.setdefault(number, []).append((vnum, view.sourceline))
            groups = children(view, "group")
            if not groups:
                problems.append(Problem(view.sourceline, f"topic {number} view {vnum} has no <group>"))
            counted = [g for g in groups if not is_misc(g.get("label") or "")]
            if len(counted) > _setting(context, "max_groups"):
                problems.append(
                    Problem(
                        view.sourceline,
                        f"topic {number} view {vnum} has {len(counted)} groups "
                        f"besides miscellaneous; at most "
                        f"{_setting(context, 'max_groups')} are allowed",
                    )
                )
            group_numbers: dict[str, int | None] = {}
            for group in groups:
                gnum = _number(group, f"topic {number} view {vnum}: group", group_numbers, problems)
                glabel = _check_label(group, f"topic {number} view {vnum} group {gnum}", context, problems)
                cites = children(group, "cite")
                if not cites:
                    problems.append(Problem(group.sourceline, f"topic {number} view {vnum} group {gnum} has no <cite>"))
                for el in cites:
                    cite = parse_cite(el, problems, extra_required=("grpscore",), reading=reading)
                    rows.append((number, vnum, vlabel, gnum, glabel, is_misc(glabel), cite))
            for el in view:
                if isinstance(el.tag, str) and el.tag != "group":
                    problems.append(Problem(el.sourceline, f"unexpected element <{el.tag}> in a view"))
    # Second pass: verbatim from the citation run, and every citation of the run in each view.
    tag, source = _choose_run([(r[0], r[6]) for r in rows], context, problems, header["team"])
    if tag is not None:
        originals: dict[tuple[str, tuple[Any, ...]], dict[str, Any]] = {}
        for topic, run_cites in source.items():
            for c in run_cites:
                originals.setdefault((topic, cite_key(c)), c)
        for topic, _view, _, _group, _, _, cite in rows:
            original = originals.get((topic, cite_key(cite)))
            if original is None:
                problems.append(
                    Problem(
                        cite["line"],
                        f"cite is not verbatim a citation of run {tag} for topic "
                        f"{topic} (thread, post, offset, length, score and passage "
                        f"must all match)",
                    )
                )
            elif cite.get("id") not in (None, "", "-1") and original.get("id") and cite["id"] != original["id"]:
                problems.append(
                    Problem(
                        cite["line"],
                        f"cite id {cite['id']!r} is not the pooling id {original['id']!r} of that citation",
                    )
                )
        for topic, view_lines in views_seen.items():
            wanted = {cite_key(c) for c in source.get(topic, [])}
            for vnum, line in view_lines:
                have = {cite_key(r[6]) for r in rows if r[0] == topic and r[1] == vnum}
                missing = len(wanted - have)
                if missing:
                    problems.append(
                        Problem(
                            line,
                            f"topic {topic} view {vnum} leaves {missing} citation(s) of run {tag} out of every group",
                        )
                    )
    if problems:
        return sort_problems(problems), None
    entries = [
        ParsedEntry(
            topic=topic,
            line=cite["line"],
            docid=cite["thread"],
            text=cite["passage"],
            data={
                "view": vnum,
                "view_label": vlabel,
                "group": gnum,
                "group_label": glabel,
                "misc": misc,
                "grpscore": cite["grpscore"],
                "post": cite["post"],
                "offset": cite["offset"],
                "length": cite["length"],
                "score": cite["score"],
                "id": cite.get("id", "-1"),
            },
        )
        for topic, vnum, vlabel, gnum, glabel, misc, cite in rows
    ]
    return [], ParsedRun(
        tag=run_tag(root, filename, context),
        entries=entries,
        data={"subtask": "groups", "citation_run": tag, **header, "priority": DEFAULT_PRIORITY},
    )


def check_groups(data: bytes, filename: str, context: CheckContext) -> tuple[list[Problem], ParsedRun | None]:
    """(problems, ParsedRun or None) for a grouping file given as bytes."""
    problems, root = parse_xml(data)
    if root is None:
        return problems, None
    return check_tree(root, filename, context)
