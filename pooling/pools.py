"""Pools: per question, the distinct items of the runs of judged priority, each remembering every run line.

The identity of an item comes from the track's run format (`pool_key(entry)`, and optionally
`pool_item(entry)` for the fields of a new item), so other tracks pool their own way. Building is done a few
series at a time, each batch in its own transaction, and is safe to repeat: items are found again by key, keep their
pool_id and position, and an item that has judgments is never deleted (it is flagged "unreturned" instead
when no judged run returns it any more).

Each item's run lines are kept as link rows (`PoolItem.sources`) unless the format says its consumers match lines
by key (POOL_LINKS = False): every link row costs PostgreSQL two foreign-key checks at commit, which were most of
a BOLT build of 300,000 citations. A format may also give its key as SQL (POOL_KEY_SQL, no `%` in it), so that
PostgreSQL groups the lines and only one row per item comes back to Python.
"""

import json
from collections import namedtuple

from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from core.bulk import insert_rows
from pooling.evaluations import effective_settings, start_judging
from pooling.formats.base import ParsedEntry
from pooling.judged import judged_item_ids
from pooling.models import PoolBuild, PoolItem, Run, RunEntry, Topic
from pooling.staleness import mark_questions_stale, rescoring_deferred

Existing = namedtuple("Existing", "pk topic_id key pool_id position origin data")
SERIES_PER_TRANSACTION = 5  # fewer round trips, still fine-grained progress and short locks


def pool_units(evaluation):
    """[(series or topic, [question ids])]: a series with its questions, or a childless top-level topic alone."""
    topics = list(Topic.objects.filter(evaluation=evaluation).order_by("position").values_list("pk", "parent_id"))
    children = {}
    for pk, parent in topics:
        if parent is not None:
            children.setdefault(parent, []).append(pk)
    return [(pk, children.get(pk, [pk])) for pk, parent in topics if parent is None]


def pool_sizes(evaluation):
    """The topics pools are built for (pool_units' questions: a series' questions, or a childless top-level topic as
    in BOLT, BioGen and ciQA), in file order, each with `items`, its number of pool items."""
    ids = [q for _, questions in pool_units(evaluation) for q in questions]
    counts = dict(
        PoolItem.objects.filter(evaluation=evaluation).values_list("topic_id").annotate(n=Count("id")).order_by()
    )
    topics = Topic.objects.in_bulk(ids)
    for pk in ids:
        topics[pk].items = counts.get(pk, 0)
    return [topics[pk] for pk in ids]


def _relaxed_commit():
    """A pool build can always be repeated, so its commits need not wait for the disk (PostgreSQL only)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def _progress(build, **fields):
    with transaction.atomic():
        _relaxed_commit()
        PoolBuild.objects.filter(pk=build.pk).update(**fields)


def _links(item_ids):
    """(link id, item id, entry id) of the items' sources."""
    through = PoolItem.sources.through
    if not item_ids:
        return []
    if connection.vendor != "postgresql":
        return through.objects.filter(poolitem_id__in=item_ids).values_list("pk", "poolitem_id", "runentry_id")
    with connection.cursor() as cursor:  # one array parameter, however many items
        cursor.execute(
            f"SELECT id, poolitem_id, runentry_id FROM {through._meta.db_table} WHERE poolitem_id = ANY(%s)", [item_ids]
        )
        return cursor.fetchall()


def _raw_rows(queryset, chunk=5000):
    """The rows of a values_list queryset straight from the cursor: Django's per-value converters (one JSON
    decode call chain per row) cost more than the query itself for 100,000s of run lines."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while batch := cursor.fetchmany(chunk):
            yield from batch


_scan_json = json.JSONDecoder().scan_once


def _decode(data):
    """A JSON column's value as read by `_raw_rows` (text, or already decoded by some drivers)."""
    if not isinstance(data, str):
        return data if data is not None else {}
    try:  # the scanner alone: PostgreSQL's jsonb text has no surrounding white space to strip first
        value, end = _scan_json(data, 0)
    except StopIteration:
        end = None
    return value if end == len(data) else json.loads(data)


def _flagged(data):
    """Whether an item's data (as read by `_raw_rows`) has the "unreturned" flag; most texts cannot have it."""
    if isinstance(data, str) and '"unreturned"' not in data:
        return False
    return bool(_decode(data).get("unreturned"))


def _default_item(entry):
    return {"docid": entry.docid, "text": entry.text}


def _new_ids(model, n):
    """n ids from the table's identity sequence (PostgreSQL; [] elsewhere)."""
    if not n or connection.vendor != "postgresql":
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [model._meta.db_table, n]
        )
        return [pk for (pk,) in cursor.fetchall()]


def _next_number(pool_ids):
    numbers = [int(p.rsplit("-", 1)[1]) for p in pool_ids if "-" in p and p.rsplit("-", 1)[1].isdigit()]
    return max(numbers, default=0) + 1


def _groups(evaluation, question_ids, judged_priorities, module, idents):
    """{(topic id, key): [first ParsedEntry, [entry ids], count]} of the judged runs' lines, keyed in Python."""
    key_of = module.pool_key
    # A format whose keys ignore RunEntry.data says so (POOL_USES_DATA = False): the JSON need not be decoded.
    uses_data = getattr(module, "POOL_USES_DATA", True)
    rows = (
        RunEntry.objects.filter(
            topic_id__in=question_ids, run__evaluation=evaluation, run__priority__in=judged_priorities
        )
        .order_by("run_id", "line_no")
        .values_list("id", "topic_id", "line_no", "docid", "text", *(["data"] if uses_data else []))
    )
    groups = {}
    for entry_id, topic_id, line_no, docid, text, *data in _raw_rows(rows):
        entry = ParsedEntry(
            topic=idents[topic_id], line=line_no, docid=docid, text=text, data=_decode(data[0]) if data else {}
        )
        key = key_of(entry)
        if key is None:
            continue
        group = groups.get((topic_id, key))
        if group is None:
            groups[(topic_id, key)] = [entry, [entry_id], 1]
        else:
            group[1].append(entry_id)
            group[2] += 1
    return groups


def _groups_in_sql(evaluation, question_ids, judged_priorities, module, idents, with_ids):
    """The same as `_groups`, with the keys computed and grouped by PostgreSQL (the format's POOL_KEY_SQL, an
    expression over the run entry's docid, text and data that equals its pool_key): only one row per item comes
    back, and only its first line's JSON is decoded. Entry ids are listed only when `with_ids`.

    The lines are read through the questions' index and each item's first line by a second query, so that the
    plan does not hinge on the table's statistics: once PostgreSQL had analysed the 300,000 lines of a BOLT
    upload, it walked every line of each run for the five questions of a batch, and joined the first lines back
    by scanning the whole primary key (0.25-0.55 s a batch instead of 0.05-0.09 s; benchmarks/bolt.py)."""
    entries = RunEntry._meta.db_table
    run_ids = list(
        Run.objects.filter(evaluation=evaluation, priority__in=list(judged_priorities)).values_list("pk", flat=True)
    )
    if not run_ids:
        return {}
    ids = ", array_agg(id)" if with_ids else ""
    # The lines are found by the (topic, run) index: "run_id + 0" keeps PostgreSQL from walking the run index
    # instead, every line of every run (its statistics see the lines stored in run order and prefer it). OFFSET 0
    # keeps the key a column of the inner query: computed once a line, not again for the filter.
    sql = f"""
        SELECT topic_id, k, count(*), (min(ARRAY[run_id, line_no, id]))[3]{ids}
        FROM (SELECT id, topic_id, run_id, line_no, ({module.POOL_KEY_SQL}) COLLATE "C" AS k
              FROM {entries} WHERE topic_id = ANY(%s) AND run_id + 0 = ANY(%s) OFFSET 0) e
        WHERE k IS NOT NULL GROUP BY topic_id, k"""
    with connection.cursor() as cursor:
        cursor.execute(sql, [list(question_ids), run_ids])
        grouped = cursor.fetchall()
        cursor.execute(
            f"SELECT id, line_no, docid, text, data FROM {entries} WHERE id = ANY(%s)", [[row[3] for row in grouped]]
        )
        first = {row[0]: row[1:] for row in cursor.fetchall()}
    groups = {}
    for topic_id, key, n, first_id, *entry_ids in grouped:
        line_no, docid, text, data = first[first_id]
        entry = ParsedEntry(topic=idents[topic_id], line=line_no, docid=docid, text=text, data=_decode(data))
        groups[(topic_id, key)] = [entry, entry_ids[0] if entry_ids else None, n]
    return groups


def build_unit(evaluation, question_ids, judged_priorities, module):
    """(Re)build the pool of some questions in one transaction; returns counts."""
    item_of = getattr(module, "pool_item", _default_item)
    # A format whose consumers find an item's run lines by its key (POOL_LINKS = False; BOLT) gets no link rows:
    # each one costs PostgreSQL two foreign-key checks, most of a first build's time.
    keeps_links = getattr(module, "POOL_LINKS", True)
    counts = {"created": 0, "kept": 0, "removed": 0, "unreturned": 0, "links": 0}
    with transaction.atomic():
        _relaxed_commit()
        idents = dict(Topic.objects.filter(pk__in=question_ids).values_list("pk", "ident"))
        if getattr(module, "POOL_KEY_SQL", None) and connection.vendor == "postgresql":
            groups = _groups_in_sql(evaluation, question_ids, judged_priorities, module, idents, keeps_links)
        else:
            groups = _groups(evaluation, question_ids, judged_priorities, module, idents)

        # data stays as read (JSON text on PostgreSQL): a rebuild reads every item but decodes few (`_flagged`).
        items = [
            Existing(*row)
            for row in _raw_rows(
                PoolItem.objects.select_for_update(of=("self",))
                .filter(topic_id__in=question_ids)
                .values_list("id", "topic_id", "key", "pool_id", "position", "origin", "data")
            )
        ]
        judged = judged_item_ids(question_ids)
        item_ids = {(i.topic_id, i.key): i.pk for i in items}
        items_of, fresh_of = {}, {}
        for item in items:
            items_of.setdefault(item.topic_id, []).append(item)
        for (topic_id, key), group in groups.items():
            if (topic_id, key) not in item_ids:
                fresh_of.setdefault(topic_id, []).append((key, group[0]))

        # New items go after the existing ones, sorted so a document's instances sit together.
        now = timezone.now()
        new = []
        for topic_id, fresh in fresh_of.items():
            mine = items_of.get(topic_id, [])
            number = _next_number([i.pool_id for i in mine])
            position = max((i.position for i in mine), default=-1) + 1
            for key, first in sorted(fresh, key=lambda kf: (kf[1].docid, kf[1].text, kf[0])):
                fields = item_of(first)
                new.append(
                    (
                        evaluation.pk,
                        topic_id,
                        key,
                        f"{idents[topic_id]}-{number}",
                        position,
                        fields.get("docid", ""),
                        fields.get("text", ""),
                        fields.get("data", {}),
                        PoolItem.RUNS,
                        now,
                    )
                )
                number += 1
                position += 1
        fields = [
            "evaluation_id",
            "topic_id",
            "key",
            "pool_id",
            "position",
            "docid",
            "text",
            "data",
            "origin",
            "created_at",
        ]
        ids = _new_ids(PoolItem, len(new))
        if ids:  # ids drawn first: no reading the keys back
            insert_rows(PoolItem, ["id"] + fields, [(pk,) + row for pk, row in zip(ids, new)])
            item_ids.update(((row[1], row[2]), pk) for pk, row in zip(ids, new))
        elif new:  # the new rows' ids, read back by their (topic, key)
            insert_rows(PoolItem, fields, new)
            item_ids.update(
                ((topic_id, key), pk)
                for pk, topic_id, key in PoolItem.objects.filter(topic_id__in=question_ids).values_list(
                    "id", "topic_id", "key"
                )
            )
        counts["created"] = len(new)

        stale, changed = [], []
        for item in items:
            if (item.topic_id, item.key) in groups:
                counts["kept"] += 1
                if _flagged(item.data):
                    changed.append((item.pk, {k: v for k, v in _decode(item.data).items() if k != "unreturned"}))
            elif item.origin == PoolItem.RUNS and item.pk not in judged:
                stale.append(item.pk)
            elif item.origin == PoolItem.RUNS:
                counts["unreturned"] += 1
                if not _flagged(item.data):
                    changed.append((item.pk, _decode(item.data) | {"unreturned": True}))
        for pk, data in changed:
            PoolItem.objects.filter(pk=pk).update(data=data)
        if stale:
            PoolItem.objects.filter(pk__in=stale).delete()
        counts["removed"] = len(stale)

        counts["links"] = sum(n for _, _, n in groups.values())
        if keeps_links:
            links_changed = _sync_links(groups, item_ids, [i.pk for i in items])
        else:  # rows a build from before the format said so may have left
            links_changed = _drop_links([i.pk for i in items])
        if new or stale or changed or links_changed:  # scores read the pools (and their links)
            mark_questions_stale(question_ids)
    return counts


def _sync_links(groups, item_ids, old_item_ids):
    """Sources: add the missing links, drop the ones whose run line is gone from the judged runs; whether any
    changed."""
    through = PoolItem.sources.through
    wanted = {(item_ids[tk], entry_id) for tk, (_, entry_ids, _) in groups.items() for entry_id in entry_ids}
    have = {(item_id, entry_id): pk for pk, item_id, entry_id in _links(old_item_ids)}
    extra = [pk for link, pk in have.items() if link not in wanted]
    if extra:
        through.objects.filter(pk__in=extra).delete()
    # In index order: the link table's indexes then grow at their right edge instead of at random pages,
    # which halves PostgreSQL's share of a first build.
    insert_rows(through, ["poolitem_id", "runentry_id"], sorted(link for link in wanted if link not in have))
    return bool(extra) or len(wanted) > len(have) - len(extra)


def _drop_links(item_ids):
    """Delete the items' link rows; whether there were any."""
    through = PoolItem.sources.through
    if not item_ids:
        return False
    if connection.vendor != "postgresql":
        return through.objects.filter(poolitem_id__in=item_ids).delete()[0] > 0
    with connection.cursor() as cursor:  # one array parameter: no query of thousands of placeholders to build
        cursor.execute(f"DELETE FROM {through._meta.db_table} WHERE poolitem_id = ANY(%s)", [item_ids])
        return cursor.rowcount > 0


def build_pools(evaluation, build=None):
    """Build or rebuild every pool of the evaluation, recording progress on `build` (a new PoolBuild if none)."""
    settings = effective_settings(evaluation)
    judged = list(settings.get("judged_priorities") or [1, 2])
    module = evaluation.track_spec.run_format
    units = pool_units(evaluation)
    totals = {"created": 0, "kept": 0, "removed": 0, "unreturned": 0, "links": 0}
    if build is None:
        build = PoolBuild.objects.create(evaluation=evaluation)
    _progress(build, status=PoolBuild.RUNNING, total=len(units), done=0, started_at=timezone.now())
    done = 0
    with rescoring_deferred():  # each batch marks its questions stale; rescoring starts once, at the end
        for start in range(0, len(units), SERIES_PER_TRANSACTION):
            chunk = units[start : start + SERIES_PER_TRANSACTION]
            counts = build_unit(evaluation, [q for _, questions in chunk for q in questions], judged, module)
            for name, value in counts.items():
                totals[name] += value
            done += len(chunk)
            _progress(build, done=done, counts=totals)
    PoolBuild.objects.filter(pk=build.pk).update(
        status=PoolBuild.DONE, finished_at=timezone.now(), counts=totals, message=_summary(totals)
    )
    if PoolItem.objects.filter(evaluation=evaluation).exists():  # something to judge: judging has begun
        start_judging(evaluation)
    return totals


def item_sources(evaluation, items):
    """{item id: [RunEntry, run selected]}: the run lines each item pools, in run and line order. Read from the
    link rows, or for a format without them (POOL_LINKS = False) found again by key among the judged runs."""
    module = evaluation.track_spec.run_format
    items = list(items)
    out = {item.pk: [] for item in items}
    if getattr(module, "POOL_LINKS", True):
        through = PoolItem.sources.through
        for link in (
            through.objects.filter(poolitem_id__in=out)
            .select_related("runentry__run")
            .order_by("runentry__run_id", "runentry__line_no")
        ):
            out[link.poolitem_id].append(link.runentry)
        return out
    judged = list(effective_settings(evaluation).get("judged_priorities") or [1, 2])
    by_key = {(item.topic_id, item.key): item.pk for item in items}
    idents = dict(Topic.objects.filter(pk__in={item.topic_id for item in items}).values_list("pk", "ident"))
    for e in (
        RunEntry.objects.filter(topic_id__in=idents, run__evaluation=evaluation, run__priority__in=judged)
        .select_related("run")
        .order_by("run_id", "line_no")
    ):
        key = module.pool_key(
            ParsedEntry(topic=idents[e.topic_id], line=e.line_no, docid=e.docid, text=e.text, data=e.data)
        )
        pk = by_key.get((e.topic_id, key)) if key is not None else None
        if pk is not None:
            out[pk].append(e)
    return out


def run_items(evaluation):
    """{run id: set of pool item ids}: the items that the lines of each judged run (priority among the judged
    ones) were pooled into; from the link rows, or for a format without them (POOL_LINKS = False) found again by
    key, in SQL where the format gives its key as SQL."""
    module = evaluation.track_spec.run_format
    judged = list(effective_settings(evaluation).get("judged_priorities") or [1, 2])
    out = {}
    if getattr(module, "POOL_LINKS", True):
        pairs = (
            PoolItem.sources.through.objects.filter(poolitem__evaluation=evaluation, runentry__run__priority__in=judged)
            .values_list("runentry__run_id", "poolitem_id")
            .distinct()
        )
    elif getattr(module, "POOL_KEY_SQL", None) and connection.vendor == "postgresql":
        entries, runs, items = RunEntry._meta.db_table, Run._meta.db_table, PoolItem._meta.db_table
        with connection.cursor() as cursor:  # the key computed beside the entry's own columns, then matched
            cursor.execute(
                f"""
                SELECT DISTINCT e.run_id, p.id
                FROM (SELECT run_id, topic_id, ({module.POOL_KEY_SQL}) AS k FROM {entries} WHERE run_id IN (
                        SELECT id FROM {runs} WHERE evaluation_id = %s AND priority = ANY(%s))) e
                JOIN {items} p ON p.topic_id = e.topic_id AND p.key = e.k""",
                [evaluation.pk, judged],
            )
            pairs = cursor.fetchall()
    else:
        item_of = {
            (topic_id, key): pk
            for pk, topic_id, key in PoolItem.objects.filter(evaluation=evaluation).values_list("pk", "topic_id", "key")
        }
        idents = dict(Topic.objects.filter(evaluation=evaluation).values_list("pk", "ident"))
        pairs = []
        for run_id, topic_id, line_no, docid, text, data in (
            RunEntry.objects.filter(run__evaluation=evaluation, run__priority__in=judged)
            .values_list("run_id", "topic_id", "line_no", "docid", "text", "data")
            .iterator()
        ):
            key = module.pool_key(ParsedEntry(topic=idents[topic_id], line=line_no, docid=docid, text=text, data=data))
            if (topic_id, key) in item_of:
                pairs.append((run_id, item_of[(topic_id, key)]))
    for run_id, item_id in pairs:
        out.setdefault(run_id, set()).add(item_id)
    return out


def _summary(totals):
    return (
        f"{totals['created']} new items, {totals['kept']} kept, {totals['removed']} removed, "
        f"{totals['unreturned']} judged items no longer returned; {totals['links']} run lines pooled"
    )


def start_pool_build(evaluation, user=None):
    """Queue a pool build (a Celery task) unless one is already queued or running; returns the PoolBuild."""
    from config.celery import run_here_or_send
    from pooling.tasks import build_pools_task

    with transaction.atomic():
        active = (
            PoolBuild.objects.select_for_update(of=("self",))
            .filter(evaluation=evaluation, status__in=[PoolBuild.QUEUED, PoolBuild.RUNNING])
            .first()
        )
        if active is not None:
            return active
        build = PoolBuild.objects.create(evaluation=evaluation, requested_by=user)
        transaction.on_commit(lambda: run_here_or_send(build_pools_task, build.pk))
    build.refresh_from_db()
    return build


def pools_out_of_date(evaluation):
    """True when a run was loaded after the last finished pool build (or no build has finished yet)."""
    last = evaluation.pool_builds.filter(status=PoolBuild.DONE).order_by("-finished_at").first()
    newest = evaluation.runs.order_by("-loaded_at").values_list("loaded_at", flat=True).first()
    if newest is None:
        return False
    return last is None or newest > last.finished_at
