"""QA4MRE 2012 run checker (seed 003, "OUTPUT FORMAT"). Plain data, no Django import.

<output run_id="clct12014itit">
  <topic t_id="1"><reading-test r_id="1">
    <question q_id="1" answered="YES"><answer a_id="1"/></question>
    <question q_id="2" answered="NO"/>                               (no answer: prefers not to answer)
    <question q_id="3" answered="NO"><answer a_id="4"/></question>   (candidate it asks not to be evaluated)
  </reading-test></topic>
  <other-resources><resource>WordNet</resource></other-resources>   (resource types 3 and 4 only)
</output>

run_id = team ID (four lower-case ASCII letters) + "12" + run number 01-10 + resource type 1-4 + source and target
language (two lower-case letters each, from the task's languages). Every problem is reported with its line.

The context (pooling.formats.base.CheckContext) gives the test set's idents in `topics` (topic "1", reading test
"1.2", question "1.2.7", as made by formats.test_set; questions alone are enough) and in
`extra["runs_by_team_id"]` the run_ids already loaded in the evaluation, by team ID (a run_id among them is being
replaced and does not count towards the limit). A run that passes is added there, so a batch of files checked with
one context cannot pass eleven runs of one team. tracks.qa4mre.loading.check_context_extra fills it from the database
(registered as the track's check_context, tracks/qa4mre/plugin.py); tracks.qa4mre.loading.after_store also
enforces the limit per team as stored.
"""

import os
import re
from collections.abc import Collection, Mapping
from typing import Any

from lxml.etree import _Element

from pooling.formats.base import CheckContext, ParsedEntry, ParsedRun, Problem
from tracks.qa4mre.formats.test_set import ANSWER_IDS, QUESTION, READING_TEST, TOPIC, element_children, parse_xml

# The seven languages of the 2012 main task; an evaluation may set its own list in settings["languages"].
LANGUAGES = ("ar", "bg", "de", "en", "es", "it", "ro")
MAX_RUNS = 10
FILE_SHAPE = "xml"  # what a run file looks like (pooling.runs names a file of the other shape)
RUN_ID = re.compile(
    r"^(?P<team>[a-z]{4})(?P<year>12)(?P<number>0[1-9]|10)(?P<resources>[1-4])"
    r"(?P<source>[a-z]{2})(?P<target>[a-z]{2})$"
)
RESOURCE_TYPES = {
    1: "no external resource (only the test document)",
    2: "the test document and its background collection",
    3: "the test document and other resources, not the background collection",
    4: "the test document, the background collection and other resources",
}


def parse_run_id(
    run_id: str | None, languages: Collection[str] = LANGUAGES
) -> tuple[dict[str, Any] | None, str | None]:
    """(fields, error): fields of a well-formed run_id, or None and a message saying what is wrong."""
    match = RUN_ID.match(run_id or "")
    if not match:
        return None, (
            f"run_id {run_id!r} must be team ID (4 lower-case letters) + 12 + run number 01-10 + "
            f"resource type 1-4 + language pair, e.g. clct12014itit"
        )
    fields = {
        "team_id": match["team"],
        "year": match["year"],
        "run_number": int(match["number"]),
        "resource_type": int(match["resources"]),
        "source_language": match["source"],
        "target_language": match["target"],
    }
    bad = [lang for lang in (match["source"], match["target"]) if lang not in languages]
    if bad:
        return fields, (
            f"run_id {run_id!r}: language {', '.join(bad)} is not one of the task's languages ({', '.join(languages)})"
        )
    return fields, None


def _test_set_structure(
    topics: Mapping[str, str],
) -> tuple[list[str], dict[str, list[str]], dict[str, list[str]], dict[str, int]]:
    """(topic ids, reading-test idents by topic, question idents by reading test, question order)."""
    questions = [ident for ident, kind in topics.items() if kind == QUESTION]
    tests_of: dict[str, list[str]]
    questions_of: dict[str, list[str]]
    topic_ids, tests_of, questions_of = [], {}, {}
    for ident, kind in topics.items():
        if kind == TOPIC:
            topic_ids.append(ident)
        elif kind == READING_TEST:
            tests_of.setdefault(ident.rsplit(".", 1)[0], []).append(ident)
    for ident in questions:  # a context listing only questions still yields the whole structure
        test = ident.rsplit(".", 1)[0]
        topic = test.rsplit(".", 1)[0]
        if topic not in topic_ids:
            topic_ids.append(topic)
        if test not in tests_of.setdefault(topic, []):
            tests_of[topic].append(test)
        questions_of.setdefault(test, []).append(ident)
    return topic_ids, tests_of, questions_of, {ident: i for i, ident in enumerate(questions)}


def check_run(data: bytes, filename: str, context: CheckContext) -> tuple[list[Problem], ParsedRun | None]:
    problems = []
    basename = os.path.basename(filename or "")
    if not basename.lower().endswith(".xml"):
        problems.append(Problem(None, f"a submission file must have the .xml extension, not {basename!r}"))
    root = parse_xml(data, problems)
    if root is None:
        return problems, None
    if root.tag != "output":
        problems.append(Problem(root.sourceline, f"the root element must be <output>, not <{root.tag!s}>"))
        return problems, None

    settings = context.settings or {}
    run_id = (root.get("run_id") or "").strip()
    fields: Any  # None only when a problem is reported, so never None where it is used as a dict
    fields, error = parse_run_id(run_id, tuple(settings.get("languages") or LANGUAGES))
    if not run_id:
        problems.append(Problem(root.sourceline, "<output> without its run_id attribute"))
    elif error:
        problems.append(Problem(root.sourceline, error))
    _check_team_limit(run_id, fields, root, context, settings, problems)

    if not context.topics:
        problems.append(
            Problem(None, "the evaluation has no test set loaded yet: there is nothing to check the run against")
        )
        return problems, None
    topic_ids, tests_of, questions_of, order = _test_set_structure(context.topics)
    entries: list[ParsedEntry]
    seen_topics: dict[str, int | None]
    seen_tests: dict[str, int | None]
    seen_questions: dict[str, int | None]
    entries, resources, resources_line = [], None, None
    seen_topics, seen_tests, seen_questions = {}, {}, {}
    last = {"index": -1, "ident": None}
    for child in element_children(root):
        if child.tag == "other-resources":
            if resources is not None:
                problems.append(Problem(child.sourceline, "<other-resources> appears twice"))
                continue
            resources = _read_resources(child, problems)
            resources_line = child.sourceline
        elif child.tag == TOPIC:
            t_id = (child.get("t_id") or "").strip()
            if not t_id:
                problems.append(Problem(child.sourceline, "<topic> without its t_id attribute"))
            elif t_id not in tests_of:
                problems.append(Problem(child.sourceline, f"topic t_id={t_id} is not in the test set"))
            elif t_id in seen_topics:
                problems.append(
                    Problem(child.sourceline, f"topic t_id={t_id} appears twice (first on line {seen_topics[t_id]})")
                )
            else:
                seen_topics[t_id] = child.sourceline
                _walk_topic(
                    child, t_id, tests_of, questions_of, order, seen_tests, seen_questions, last, entries, problems
                )
        else:
            problems.append(Problem(child.sourceline, f"unexpected <{child.tag!s}> in <output>"))

    for t_id in topic_ids:
        if t_id not in seen_topics:
            problems.append(Problem(root.sourceline, f"topic t_id={t_id} of the test set is missing"))

    resource_type = fields["resource_type"] if fields else None
    if resource_type in (3, 4) and not resources:
        problems.append(
            Problem(
                root.sourceline if resources is None else resources_line,
                f"resource type {resource_type} ({RESOURCE_TYPES[resource_type]}) needs "
                f"<other-resources> naming at least one <resource>",
            )
        )
    if resource_type in (1, 2) and resources is not None:
        problems.append(
            Problem(
                resources_line,
                f"<other-resources> must be left out for resource type "
                f"{resource_type} ({RESOURCE_TYPES[resource_type]})",
            )
        )
    if problems:
        return problems, None
    _remember(run_id, fields, context)
    # QA4MRE runs carry their number in the run_id, not as a trailing digit: it is the run's priority.
    return [], ParsedRun(
        tag=run_id, entries=entries, data=dict(fields, other_resources=resources or [], priority=fields["run_number"])
    )


def max_runs(settings: Mapping[str, Any] | None) -> int:
    return int((settings or {}).get("max_runs_per_team") or MAX_RUNS)


def _check_team_limit(
    run_id: str,
    fields: dict[str, Any] | None,
    root: _Element,
    context: CheckContext,
    settings: Mapping[str, Any],
    problems: list[Problem],
) -> None:
    if not fields:
        return
    others = [
        tag for tag in (context.extra or {}).get("runs_by_team_id", {}).get(fields["team_id"], ()) if tag != run_id
    ]
    if len(others) >= max_runs(settings):
        problems.append(
            Problem(
                root.sourceline,
                f"team {fields['team_id']} has already loaded {len(others)} "
                f"runs; at most {max_runs(settings)} runs per team",
            )
        )


def _remember(run_id: str, fields: dict[str, Any], context: CheckContext) -> None:
    """Count a run that passed towards its team's limit for the rest of a batch checked with this context."""
    if context.extra is None:
        context.extra = {}
    tags = context.extra.setdefault("runs_by_team_id", {}).setdefault(fields["team_id"], [])
    if run_id not in tags:
        tags.append(run_id)


def _read_resources(element: _Element, problems: list[Problem]) -> list[str]:
    names = []
    for res in element_children(element):
        if res.tag != "resource":
            problems.append(Problem(res.sourceline, f"unexpected <{res.tag!s}> in <other-resources>"))
            continue
        name = "".join(res.itertext()).strip()
        if not name:
            problems.append(Problem(res.sourceline, "empty <resource>"))
        else:
            names.append(name)
    return names


def _walk_topic(
    topic_el: _Element,
    t_id: str,
    tests_of: dict[str, list[str]],
    questions_of: dict[str, list[str]],
    order: dict[str, int],
    seen_tests: dict[str, int | None],
    seen_questions: dict[str, int | None],
    last: dict[str, Any],
    entries: list[ParsedEntry],
    problems: list[Problem],
) -> None:
    seen_here = set()
    for test_el in element_children(topic_el):
        if test_el.tag != READING_TEST:
            problems.append(Problem(test_el.sourceline, f"unexpected <{test_el.tag!s}> in topic {t_id}"))
            continue
        r_id = (test_el.get("r_id") or "").strip()
        ident = f"{t_id}.{r_id}"
        if not r_id:
            problems.append(Problem(test_el.sourceline, "<reading-test> without its r_id attribute"))
        elif ident not in questions_of:
            problems.append(
                Problem(test_el.sourceline, f"reading test r_id={r_id} is not in topic {t_id} of the test set")
            )
        elif ident in seen_tests:
            problems.append(
                Problem(
                    test_el.sourceline,
                    f"reading test r_id={r_id} of topic {t_id} appears twice (first on line {seen_tests[ident]})",
                )
            )
        else:
            seen_tests[ident] = test_el.sourceline
            seen_here.add(ident)
            _walk_reading_test(test_el, ident, questions_of, order, seen_questions, last, entries, problems)
    for ident in tests_of.get(t_id, ()):
        if ident not in seen_here:
            problems.append(Problem(topic_el.sourceline, f"reading test {ident} of the test set is missing"))


def _walk_reading_test(
    test_el: _Element,
    test_ident: str,
    questions_of: dict[str, list[str]],
    order: dict[str, int],
    seen_questions: dict[str, int | None],
    last: dict[str, Any],
    entries: list[ParsedEntry],
    problems: list[Problem],
) -> None:
    seen_here = set()
    for q_el in element_children(test_el):
        if q_el.tag != QUESTION:
            problems.append(Problem(q_el.sourceline, f"unexpected <{q_el.tag!s}> in reading test {test_ident}"))
            continue
        q_id = (q_el.get("q_id") or "").strip()
        ident = f"{test_ident}.{q_id}"
        if not q_id:
            problems.append(Problem(q_el.sourceline, "<question> without its q_id attribute"))
            continue
        if ident not in order:
            problems.append(
                Problem(q_el.sourceline, f"question q_id={q_id} is not in reading test {test_ident} of the test set")
            )
            continue
        if ident in seen_questions:
            problems.append(
                Problem(q_el.sourceline, f"question {ident} appears twice (first on line {seen_questions[ident]})")
            )
            continue
        seen_questions[ident] = q_el.sourceline
        seen_here.add(ident)
        if order[ident] < last["index"]:
            problems.append(
                Problem(
                    q_el.sourceline,
                    f"question {ident} comes after question {last['ident']}: "
                    f"questions must follow the test set's ascending order",
                )
            )
        else:
            last["index"], last["ident"] = order[ident], ident
        entry = _read_question(q_el, ident, problems)
        if entry is not None:
            entries.append(entry)
    for ident in questions_of.get(test_ident, ()):
        if ident not in seen_here:
            problems.append(Problem(test_el.sourceline, f"question {ident} of the test set is missing"))


def _read_question(q_el: _Element, ident: str, problems: list[Problem]) -> ParsedEntry | None:
    answered = q_el.get("answered")
    ok = True
    if answered not in ("YES", "NO"):
        shown = "no answered attribute" if answered is None else f'answered="{answered}"'
        problems.append(Problem(q_el.sourceline, f'question {ident}: {shown}; it must be "YES" or "NO"'))
        ok = False
    answer_els, answers = [], []
    for child in element_children(q_el):
        if child.tag != "answer":
            problems.append(Problem(child.sourceline, f"unexpected <{child.tag!s}> in question {ident}"))
            ok = False
            continue
        answer_els.append(child)
        a_id = (child.get("a_id") or "").strip()
        if a_id not in ANSWER_IDS:
            shown = "without its a_id attribute" if not a_id else f"a_id={a_id!r} is not within 1-5"
            problems.append(Problem(child.sourceline, f"question {ident}: answer {shown}"))
            ok = False
            continue
        answers.append(int(a_id))
    if answered == "YES" and len(answer_els) != 1:
        problems.append(
            Problem(
                q_el.sourceline,
                f'question {ident} is answered="YES" and must hold exactly one <answer>, found {len(answer_els)}',
            )
        )
        ok = False
    if answered == "NO" and len(answer_els) > 1:
        problems.append(
            Problem(
                q_el.sourceline, f'question {ident} is answered="NO" and may hold at most one <answer> (the candidate)'
            )
        )
        ok = False
    if not ok:
        return None
    return ParsedEntry(  # sourceline is None only on a built element, never on a parsed one
        topic=ident,
        line=q_el.sourceline or 0,
        data={"answered": answered == "YES", "a_id": answers[0] if answers else None},
    )
