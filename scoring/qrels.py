"""qrels out (issue 28): the judgments of a track's documents or passages as trec_eval's qrels and per-assessor
qrels_jg, offered beside the track's own judgment exports (scoring.registry.get_exports: the board's links,
`export_judgments --format qrels|qrels-jg`, the API's export endpoint and, once released, a team's downloads).
A track says which items are documents and how a judgment grades (core.extension_points.qrels); the rows are
read here."""

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from assess.models import Judgment
from assess.official import official_values
from core import extension_points as ep
from pooling.models import PoolItem, Run
from scoring.formats.trec import UNJUDGED, Qrel, Ranked, write_qrels, write_qrels_jg, write_run

OFFICIAL, ASSESSORS = "official", "assessors"
type Row = tuple[str, str, int, str]  # (topic ident, docno, rel, group)


def item_qrels(
    evaluation,
    kinds: Iterable[str],
    which: str,
    docno_of: Callable[[str, str, dict[str, Any]], str | None],
    grade_of: Callable[[str, Any], int | None],
    prejudged: Callable[[dict[str, Any]], int | None] = lambda data: None,
) -> Iterator[Row]:
    """The rows of a track whose pool items are judged item by item: docno_of(key, docid, data) names an item's
    document (None: not a document, left out), grade_of(kind, value) grades a judgment (None: left out), and
    prejudged(data) an item judged before the pool (BOLT: LDC's citations in the topic file), as official."""
    kinds = list(kinds)
    items: dict[int, tuple[int, str, str]] = {}
    data_of: dict[int, dict[str, Any]] = {}
    for pk, tid, ident, key, docid, data in PoolItem.objects.filter(evaluation=evaluation).values_list(
        "id", "topic_id", "topic__ident", "key", "docid", "data"
    ):
        docno = docno_of(key, docid, data or {})
        if docno is not None:
            items[pk] = (tid, ident, docno)
            data_of[pk] = data or {}
    if which == OFFICIAL:
        topic_ids = {tid for tid, _, _ in items.values()}
        grades: dict[int, int] = {}
        for kind in kinds:
            for pk, value in official_values(topic_ids, kind).items():
                grade = grade_of(kind, value) if pk in items else None
                if grade is not None:
                    grades[pk] = max(grades.get(pk, grade), grade)
        for pk, (_, ident, docno) in items.items():
            grade = grades.get(pk)
            if grade is None:
                preset = prejudged(data_of.get(pk) or {})
                grade = UNJUDGED if preset is None else preset
            yield ident, docno, grade, "0"
    elif which == ASSESSORS:
        latest: dict[tuple[int, str], tuple[int, int]] = {}  # (item, role) -> (judgment id, grade)
        for pk, item_id, kind, role, value in Judgment.objects.filter(
            evaluation=evaluation, kind__in=kinds, item_id__in=list(items)
        ).values_list("id", "item_id", "kind", "role", "value"):
            grade = grade_of(kind, value)
            old = latest.get((item_id, role))
            if grade is not None and (old is None or pk > old[0]):  # a second assessor's latest judgment
                latest[(item_id, role)] = (pk, grade)
        for (item_id, role), (_, grade) in latest.items():
            yield items[item_id][1], items[item_id][2], grade, role
    else:
        raise ValueError(f"no qrels {which!r}; choose {OFFICIAL} or {ASSESSORS}")


def _rows(evaluation, which: str) -> Iterator[Qrel]:
    for topic, docno, rel, group in ep.qrels.require(evaluation.track)(evaluation, which):
        yield Qrel(topic, docno, rel, group)


def qrels_lines(evaluation) -> Iterator[str]:
    return write_qrels(_rows(evaluation, OFFICIAL))


def qrels_jg_lines(evaluation) -> Iterator[str]:
    return write_qrels_jg(_rows(evaluation, ASSESSORS))


def run_file_lines(run) -> Iterator[str]:
    """The run's ranked documents as a TREC run file (`topic Q0 docno rank score tag`), for trec_eval against
    the qrels above; empty where the track registered no ranking (core.extension_points.ranked_documents)."""
    ranking = ep.ranked_documents.get(run.evaluation.track)
    rows = ranking(run) if ranking is not None else ()
    return write_run(Ranked(topic, docno, score, run.tag) for topic, docno, score in rows)


def item_index(
    evaluation, docno_of: Callable[[str, str, dict[str, Any]], str | None], **item_filter: Any
) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """{(topic ident, docno): [(topic id, pool item id), ...]} of the evaluation's pool items that are documents
    (docno_of as item_qrels takes it; item_filter narrows the items): what a qrels line read into a judgment set
    names (core.extension_points.qrels_items)."""
    index: dict[tuple[str, str], list[tuple[int, int]]] = {}
    items = PoolItem.objects.filter(evaluation=evaluation, **item_filter)
    for pk, tid, ident, key, docid, data in items.values_list("id", "topic_id", "topic__ident", "key", "docid", "data"):
        docno = docno_of(key, docid, data or {})
        if docno is not None:
            index.setdefault((ident, docno), []).append((tid, pk))
    return index


def run_files_lines(evaluation) -> Iterator[str]:
    """Every run's TREC run file (run_file_lines), one after the other by tag: the board's and the API's "runs"
    export; a team's download keeps its own runs' lines (the tag is a line's sixth field)."""
    for run in Run.objects.filter(evaluation=evaluation).select_related("evaluation").order_by("tag"):
        yield from run_file_lines(run)
