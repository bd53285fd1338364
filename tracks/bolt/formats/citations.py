"""BOLT IR phase 2 submissions (seed 004, appendix DTDs), checked like a submission validator. Pure.

A citation submission (subtask "citations"):

    <bolt-ir-submission team=".." date=".." eval="BOLT-IR-P2" subtask="citations" contact="..">
      <response number="1.001">
        <cite score="0.876" thread="thread-id" post="post-id" offset="12" length="80">passage</cite> ...

`check_run` reports every problem by line: header attributes; known and unrepeated topic numbers; at most
`max_citations` (100) citations per topic; passages of at most `max_passage_chars` (250) characters, counted
as `passage_white_space` says (SPEC-NOTES' reading by default: the text as submitted, entities decoded, the
layout white space at both ends trimmed; scores
in [0, 1]); thread and post in the collection and offset + length inside the post's raw text. A file whose
subtask is "groups" is handed to `groups` (the track has one run format; the header says which subtask).

What the checker may know of the collection comes through CheckContext.extra:
    extra["post_lengths"](thread_ids: set) -> {thread id: {post id: length of the post's raw XML text}}
for the threads that exist (raw characters: an entity such as &amp; counts as its 5 characters).
Without it, thread, post and offsets are not checked.

Near-duplicates (tracks.bolt.near_duplicates) are found here, within each topic's ranked list, since they depend
on nothing but the run: every entry records its class leader (`leader`: the leader's line) and whether it is a
near-duplicate of a higher-ranked citation (`near_dup`). Only leaders enter the pool (`pool_key` is None for
the others); the others take their leader's judgment but count as false alarms (SPEC-NOTES). A grouping
run's entries are never pooled as citations.

The run tag is extra["tag"] when the loader names it, else the root's `run` attribute, else the file name
without its extension (the DTD has no run tag; NIST named runs by file).
"""

import re
from collections.abc import Iterable
from typing import Any

from pooling.formats.base import CheckContext, ParsedEntry, ParsedRun, Problem
from pooling.formats.parallel import NeedsParent
from tracks.bolt.formats.submission import (
    DEFAULT_PRIORITY,
    ROOT,
    check_header,
    parse_cite,
    passage_reading,
    responses,
    run_tag,
    setting,
    sort_problems,
)
from tracks.bolt.formats.xml_common import AS_SUBMITTED, parse_xml, passage_text
from tracks.bolt.near_duplicates import leaders


def check_passage(cite: dict[str, Any], context: CheckContext, problems: list[Problem]) -> None:
    limit = setting(context, "max_passage_chars")
    if not cite["passage"].strip():
        problems.append(Problem(cite["line"], "cite: empty passage"))
    elif len(cite["passage"]) > limit:
        problems.append(
            Problem(cite["line"], f"cite: passage has {len(cite['passage'])} characters; at most {limit} are allowed")
        )


def check_sources(cites: list[dict[str, Any]], context: CheckContext, problems: list[Problem]) -> None:
    """Thread and post exist; offset + length inside the post's raw text."""
    lookup = (context.extra or {}).get("post_lengths")
    if lookup is None:
        return
    threads = {c["thread"] for c in cites if c["thread"]}
    known = lookup(threads) if threads else {}
    for c in cites:
        if not c["thread"] or not c["post"]:
            continue
        posts = known.get(c["thread"])
        if posts is None:
            problems.append(Problem(c["line"], f"cite: thread {c['thread']!r} is not in the collection"))
            continue
        size = posts.get(c["post"])
        if size is None:
            problems.append(Problem(c["line"], f"cite: post {c['post']!r} is not in thread {c['thread']!r}"))
            continue
        if c["offset"] is not None and c["length"] is not None and c["offset"] + c["length"] > size:
            problems.append(
                Problem(
                    c["line"],
                    f"cite: offset {c['offset']} + length {c['length']} lies outside "
                    f"post {c['post']!r}, whose raw text has {size} characters",
                )
            )


def rank_cites(cites: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rank by descending score, ties in file order (the seed breaks ties arbitrarily; Assay's rule is fixed).
    Returns the cites in rank order."""
    order = sorted(range(len(cites)), key=lambda i: (-(cites[i]["score"] or 0.0), i))
    ranked = [cites[i] for i in order]
    for rank, cite in enumerate(ranked, start=1):
        cite["rank"] = rank
    return ranked


def read_cite(el: Any, problems: list[Problem], reading: str) -> dict[str, Any]:
    """parse_cite's answer, read without its general loops when the five attributes are there and valid (almost
    every one of a batch's 300,000 <cite>s); any other cite goes through parse_cite, which says what is wrong."""
    get = el.get
    score, thread, post, offset, length = get("score"), get("thread"), get("post"), get("offset"), get("length")
    if score is None or thread is None or post is None or offset is None or length is None:
        return parse_cite(el, problems, reading=reading)
    thread, post = thread.strip(), post.strip()
    try:  # (the same conversions of the same stripped text as parse_cite's)
        number, start, size = float(score.strip()), int(offset.strip()), int(length.strip())
    except ValueError:
        return parse_cite(el, problems, reading=reading)
    if not (thread and post and 0.0 <= number <= 1.0 and start >= 0 and size > 0):
        return parse_cite(el, problems, reading=reading)
    cite = {"line": el.sourceline, "score": number, "thread": thread, "post": post, "offset": start, "length": size}
    if (original := get("original")) is not None:
        cite["original"] = original
    if (ident := get("id")) is not None:
        cite["id"] = ident.strip()
    if len(el) or reading != AS_SUBMITTED:
        cite["passage"] = passage_text(el, reading)
    else:  # text alone, as submitted (passage_text's own first case)
        cite["passage"] = (el.text or "").strip()
    return cite


def check_run(data: bytes, filename: str, context: CheckContext) -> tuple[list[Problem], ParsedRun | None]:
    """(problems, ParsedRun or None) for a BOLT IR submission file of either subtask."""
    problems, root = parse_xml(data)
    if root is None:
        return problems, None
    if root.tag != ROOT:
        return [Problem(root.sourceline, f"root element must be <{ROOT}>, not <{root.tag!s}>")], None
    if (root.get("subtask") or "").strip() == "groups":
        from tracks.bolt.formats import groups

        return groups.check_tree(root, filename, context)
    header = check_header(root, "citations", context, problems)
    reading = passage_reading(context, problems)
    limit, passage_limit = setting(context, "max_citations"), setting(context, "max_passage_chars")
    threshold = setting(context, "near_dup_percent")
    entries: list[ParsedEntry] = []
    all_cites: list[dict[str, Any]] = []
    for number, response in responses(root, context, problems, "cite"):
        cites = []
        for el in response:
            if el.tag != "cite":
                if isinstance(el.tag, str):
                    problems.append(Problem(el.sourceline, f"unexpected element <{el.tag}> in a response"))
                continue
            cite = read_cite(el, problems, reading)
            passage = cite["passage"]
            if len(passage) > passage_limit or not passage.strip():  # (the usual passage: no call)
                check_passage(cite, context, problems)
            cites.append(cite)
        if len(cites) > limit:
            problems.append(
                Problem(
                    response.sourceline, f"response {number} has {len(cites)} citations; at most {limit} are allowed"
                )
            )
        mark_near_duplicates(cites, threshold, rank_cites(cites))
        all_cites.extend(cites)
        entries.extend(
            ParsedEntry(number, cite["line"], cite["thread"], cite["passage"], entry_data(cite)) for cite in cites
        )
    check_sources(all_cites, context, problems)
    if problems:
        return sort_problems(problems), None
    return [], ParsedRun(
        tag=run_tag(root, filename, context),
        entries=entries,
        data={"subtask": "citations", **header, "priority": DEFAULT_PRIORITY},
    )


# process_extra: what a file's thread attributes look like (one written otherwise is found by the parser alone, and
# the worker gives the file back), and a grouping file's header.
DOUBLE_QUOTED_THREAD, SINGLE_QUOTED_THREAD = re.compile(rb'thread="([^"]*)"'), re.compile(rb"thread='([^']*)'")
GROUPS_HEADER = re.compile(rb"""subtask\s*=\s*["']\s*groups""")


class KnownPosts:
    """extra["post_lengths"] as plain data, for a worker process: the answer for the threads looked up
    beforehand; NeedsParent when a check asks for any other."""

    def __init__(self, asked: Iterable[str], found: dict[str, dict[str, int]]) -> None:
        self.asked, self.found = frozenset(asked), found

    def __call__(self, threads: Iterable[str]) -> dict[str, dict[str, int]]:
        if not self.asked.issuperset(threads):
            raise NeedsParent
        return {t: self.found[t] for t in threads if t in self.found}


def process_extra(context: CheckContext, data: bytes) -> dict[str, Any] | None:
    """What a worker process needs to check the file (pooling.formats.parallel): the lengths of the posts of the
    threads it seems to cite, looked up here. None for a grouping file, checked against the citation runs as
    stored before its turn in the batch."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if GROUPS_HEADER.search(data):
        return None
    lookup = (context.extra or {}).get("post_lengths")
    if lookup is None:
        return {}
    found = set(DOUBLE_QUOTED_THREAD.findall(data))
    if b"thread='" in data:
        found.update(SINGLE_QUOTED_THREAD.findall(data))
    threads = {value.decode("utf-8", "replace").strip() for value in found}
    threads.discard("")
    return {"post_lengths": KnownPosts(threads, lookup(threads) if threads else {})}


def mark_near_duplicates(
    cites: list[dict[str, Any]], threshold: int, ranked: list[dict[str, Any]] | None = None
) -> None:
    """Set each cite's `leader` (line of its class leader) and `near_dup` within one ranked list (`ranked`: the
    cites in rank order, when known)."""
    if ranked is None:
        ranked = sorted(cites, key=lambda c: c["rank"])
    for cite, lead in zip(ranked, leaders([c["passage"] for c in ranked], threshold)):
        cite["leader"] = ranked[lead]["line"]
        cite["near_dup"] = ranked[lead] is not cite


def citation_key(thread: str, post: str, offset: int, length: int, passage: str) -> str:
    """The identity of a pool item (SPEC-NOTES: same thread, post, offset, length and passage text)."""
    return "\t".join((str(thread), str(post), str(offset), str(length), passage))


def split_key(key: str) -> dict[str, Any]:
    thread, post, offset, length, passage = key.split("\t", 4)
    return {"thread": thread, "post": post, "offset": int(offset), "length": int(length), "passage": passage}


# The scorer, the export and the judging pages find an item's citations by key (`citation_key`), so the pool
# build stores no item-to-run-line link rows for this track (pooling.pools.item_sources finds them by key).
POOL_LINKS = False

FILE_SHAPE = "xml"  # what a run file looks like (pooling.runs names a file of the other shape)
# Every string of a run's entries comes from the XML parser (or from stored runs that did), and XML has no NUL
# character, not even as &#0;: pooling.column_limits need not look for one in 300,000 citations.
NUL_FREE = True
# pool_key in SQL (PostgreSQL, over the run entry's docid, text and data), so the pool build groups the 100,000s
# of citations in the database; tests/tracks/bolt/test_pipeline.py checks that both agree.
POOL_KEY_SQL = (
    "CASE WHEN data ? 'view' OR coalesce((data->>'near_dup')::boolean, false) THEN NULL ELSE "
    "docid || E'\\t' || (data->>'post') || E'\\t' || (data->>'offset') || E'\\t' || (data->>'length') "
    "|| E'\\t' || text END"
)


def pool_key(entry: ParsedEntry) -> str | None:
    """The pool item of a stored run entry (a ParsedEntry), or None when it is not judged: a near-duplicate of a
    higher-ranked citation of its run, or a line of a grouping run."""
    data = entry.data or {}
    if "view" in data or data.get("near_dup"):
        return None
    return citation_key(entry.docid, data["post"], data["offset"], data["length"], entry.text)


def pool_item(entry: ParsedEntry) -> dict[str, Any]:
    data = entry.data
    return {
        "docid": entry.docid,
        "text": entry.text,
        "data": {"post": data["post"], "offset": data["offset"], "length": data["length"]},
    }


def entry_data(cite: dict[str, Any]) -> dict[str, Any]:
    data = {
        "post": cite["post"],
        "offset": cite["offset"],
        "length": cite["length"],
        "score": cite["score"],
        "rank": cite["rank"],
        "leader": cite["leader"],
        "near_dup": cite["near_dup"],
    }
    if "original" in cite:
        data["original"] = cite["original"]
    return data
