"""Recomputing stored scores from judgments: the stale questions of an evaluation, or all of it.

One recomputation per evaluation is in flight at a time: the evaluation's ScoringState row is locked
(select_for_update) for the whole recomputation, so a burst of judgments queues up behind it and the next task
finds every mark the burst left in one batch. A stale mark is cleared only if it has not changed since it was
read (same changed_at), so a judgment saved during a recomputation is picked up by the next one; the marks are
cleared once the scores have committed, so no save waits on a recomputation's locks.
"""

import gc
import json
import time

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from core import extension_points as ep
from core.bulk import insert_rows
from core.locks import key_shared
from pooling.models import Evaluation, Run, StaleTopic, Topic
from scoring import pool_counts
from scoring.models import Score, ScoringState

BATCH = 2000
SCORE_COLUMNS = ["run_id", "scope", "topic_id", "measure", "value", "detail", "computed_at"]


def _lock_state(evaluation_id):
    ScoringState.objects.get_or_create(evaluation_id=evaluation_id)
    return ScoringState.objects.select_for_update(of=("self",)).get(evaluation_id=evaluation_id)


def store(evaluation, batch):
    """Upsert the batch's rows inside the caller's transaction: identical stored rows are kept (with their
    computed_at), changed ones replaced, rows the batch's scopes no longer produce deleted; and the batch's pool
    counts, once per question (scoring.pool_counts). Returns the rows written.

    The comparison is made here, against the stored rows of the batch's scopes read in one query: most judgments
    change few stored numbers, so only those few rows are written (a full comparison in the database meant
    sending every row of the batch over first)."""
    # run ids rather than a join, and run-level rows through their partial unique index (topic IS NULL)
    run_ids = list(Run.objects.filter(evaluation=evaluation).order_by().values_list("id", flat=True))
    scores = Score.objects.filter(run_id__in=run_ids)
    known = {} if batch.full or batch.stored is None else dict(batch.stored)
    if not batch.full:
        questions, series = set(batch.question_ids), set(batch.series_ids)
        if batch.stored is not None:  # (rows the scorer read already: not again)
            questions -= batch.stored_question_ids
            series -= batch.stored_series_ids
        scope = Q(scope=Score.QUESTION, topic_id__in=questions) | Q(scope=Score.SERIES, topic_id__in=series)
        if batch.run_level:
            scope |= Q(scope=Score.RUN, topic__isnull=True)
        scores = scores.filter(scope)
    stored = known | {
        (run_id, scope, topic_id, measure): (pk, value, detail)
        for pk, run_id, scope, topic_id, measure, value, detail in scores.order_by().values_list(
            "pk", "run_id", "scope", "topic_id", "measure", "value", "detail"
        )
    }
    fresh, gone = [], []
    for r in batch.rows:
        old = stored.pop((r.run_id, r.scope, r.topic_id, r.measure), None)
        if old is not None:
            if old[1] == r.value and (
                old[2] == r.detail
                or (not _surely_differs(old[2], r.detail) and old[2] == json.loads(json.dumps(r.detail)))
            ):
                continue  # (the second test: tuples and non-text keys come back from JSON as lists and text)
            gone.append(old[0])
        fresh.append(r)
    gone.extend(pk for pk, _, _ in stored.values())
    counts = batch.pool_counts
    fresh, topics = _still_there(fresh, counts or ())
    _delete(gone)
    if counts is not None:
        if topics is not None:  # (a question deleted since the scorer read it gets no count either)
            counts = {tid: pair for tid, pair in counts.items() if tid in topics}
        pool_counts.store(evaluation, counts, batch.question_ids, batch.full)
    now = timezone.now()  # (what auto_now gives rows saved one by one)
    insert_rows(
        Score, SCORE_COLUMNS, [(r.run_id, r.scope, r.topic_id, r.measure, r.value, r.detail, now) for r in fresh]
    )
    return len(fresh)


def _delete(pks):
    """Delete Score rows by id. On PostgreSQL one array parameter: with an IN list of thousands of placeholders,
    psycopg's parsing of the query text on the client cost more than the statement."""
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(Score._meta.db_table)
        with connection.cursor() as cursor:
            for start in range(0, len(pks), BATCH):
                cursor.execute(f"DELETE FROM {table} WHERE id = ANY(%s)", [pks[start : start + BATCH]])
        return
    for start in range(0, len(pks), BATCH):
        Score.objects.filter(pk__in=pks[start : start + BATCH]).delete()


_PLAIN = (int, float, str, bool, type(None))


def _surely_differs(stored, detail):
    """Whether a new detail differs from the stored one in a top-level number, text or list of them, which JSON
    keeps as they are: then the JSON round trip that would tell tuples and non-text keys apart is not needed. Most
    changed rows differ so (a judged answer's label, a count): the round trip cost ~20 µs each, for thousands of
    rows a pass."""
    for key, value in detail.items():
        kind = type(value)
        if kind in _PLAIN or (kind is list and all(type(v) in _PLAIN for v in value)):
            if stored.get(key, _MISSING) != value:
                return True
    return False


_MISSING = object()


def _still_there(rows, counted=()):
    """(The rows whose run and topic still exist, the topics of them and of `counted` (questions whose pool counts
    are stored) that still exist, or None when all do), those runs and topics locked FOR KEY SHARE until the
    transaction ends (Score has no foreign-key constraints: this is what their checks took, once per run and topic
    instead of per row). A run or topic deleted before the lock gets no rows; one being deleted waits for this
    commit, as the deleters (pooling.runs, pooling.topics: a run replaced or deleted, a topic file reloaded) lock it
    FOR UPDATE first."""
    if not rows and not counted:
        return rows, None
    run_ids = sorted({r.run_id for r in rows})
    topic_ids = sorted({r.topic_id for r in rows if r.topic_id is not None} | set(counted))
    found = [
        {pk for (pk,) in key_shared(model.objects.filter(id__in=ids).order_by("id"), "id")} if ids else set()
        for model, ids in ((Run, run_ids), (Topic, topic_ids))
    ]
    runs, topics = found
    if len(runs) == len(run_ids) and len(topics) == len(topic_ids):
        return rows, None
    return [r for r in rows if r.run_id in runs and (r.topic_id is None or r.topic_id in topics)], topics


def _clear(marks):
    """Delete the marks read at the start unless a judgment touched them since (changed_at moved on)."""
    if connection.vendor == "postgresql" and marks:
        # (two array parameters: the ORM's OR of one (id, changed_at) pair per mark cost the worker more Python to
        # build and compile than the statement took)
        table = connection.ops.quote_name(StaleTopic._meta.db_table)
        ids, times = zip(*marks)
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {table} t USING unnest(%s::bigint[], %s::timestamptz[]) AS m(id, changed_at)"
                " WHERE t.id = m.id AND t.changed_at = m.changed_at",
                [list(ids), list(times)],
            )
        return
    for start in range(0, len(marks), 500):
        condition = Q()
        for pk, changed_at in marks[start : start + 500]:
            condition |= Q(pk=pk, changed_at=changed_at)
        StaleTopic.objects.filter(condition).delete()


def _recompute(evaluation_id, full):
    # A pass allocates hundreds of thousands of short-lived, acyclic tuples and dicts; reference counting frees
    # them, and the cyclic collector's repeated scans of the whole heap meanwhile cost about a quarter of the time.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _recompute_locked(evaluation_id, full)
    finally:
        if was_enabled:
            gc.enable()


def _tune_transaction():
    """PostgreSQL settings for a recomputation that is its own transaction. Its commit need not wait for the WAL
    flush: scores are derived data, and the stale marks are cleared in the same transaction, so a crash that lost
    it would lose both together and the next task would recompute. And no parallel workers: a pass's queries are
    small, and on a busy machine starting workers costs more than it saves."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit TO OFF")
        cursor.execute("SET LOCAL max_parallel_workers_per_gather TO 0")


def _recompute_locked(evaluation_id, full):
    started = time.perf_counter()
    # (not inside a caller's transaction, e.g. a gold standard load: its commit must stay durable)
    own_transaction = not connection.in_atomic_block and connection.vendor == "postgresql"
    with transaction.atomic():
        if own_transaction:
            _tune_transaction()
        state = _lock_state(evaluation_id)
        # Taken before the marks are read: every judgment committed before this instant is in this recomputation,
        # which is exactly what "scores fresh as of" promises.
        as_of = timezone.now()
        marks = list(StaleTopic.objects.filter(evaluation_id=evaluation_id).values_list("pk", "topic_id", "changed_at"))
        if not marks and not full:  # a burst already handled by an earlier task: the scores are fresh
            if state.fresh_as_of is not None:  # (never scored stays "never" until a full rescoring)
                ScoringState.objects.filter(pk=state.pk).update(fresh_as_of=as_of)
            return 0
        evaluation = Evaluation.objects.get(pk=evaluation_id)
        scorer = ep.scorer.get(evaluation.track)
        topic_ids = None if full else {t for _, t, _ in marks}
        if scorer is None:
            return 0  # the track registers no scorer (yet): the marks stay, the board shows them stale
        batch = scorer(evaluation, topic_ids)
        store(evaluation, batch)
        questions = len(batch.question_ids)
        read = [(pk, changed) for pk, _, changed in marks]
        if not own_transaction:
            _clear(read)
        state.fresh_as_of = as_of
        if full:
            state.full_rescore_at = as_of
        state.last_seconds = time.perf_counter() - started
        state.questions_last = questions
        state.save()
    if own_transaction:
        # After the commit, as a statement of its own: a DELETE holds the marks' row locks until its transaction
        # ends, and a save of one of these questions upserts its mark. Inside the pass they were held from here to
        # the commit by the worker's Python, which runs at WORKER_NICE and waits long for a core when saves keep
        # it busy, so saves of the question just rescored waited on it (a list question's next item, mostly).
        # A crash before this line leaves the marks: the next pass recomputes what is already stored, no more.
        _clear(read)
    return questions


def rescore_stale_topics(evaluation_id):
    """Recompute the evaluation's stale questions for every run, then their series and the runs' scores.

    Returns the number of questions recomputed (0 when another task already took care of them).
    """
    return _recompute(evaluation_id, full=False)


def has_stale(evaluation_id):
    return StaleTopic.objects.filter(evaluation_id=evaluation_id).exists()


def rescore_evaluation(evaluation_id):
    """Recompute every score of the evaluation in one transaction (and clear its stale marks); then its rankings
    under every reading of the judgments follow (scoring.rankings, after the caller's transaction commits)."""
    from scoring.rankings import request_refresh

    done = _recompute(evaluation_id, full=True)
    transaction.on_commit(lambda: request_refresh(evaluation_id))
    return done


def freshness(evaluation):
    """What the organizer sees: when scores were last brought up to date and what is still waiting."""
    state = ScoringState.objects.filter(evaluation=evaluation).first()
    stale = StaleTopic.objects.filter(evaluation=evaluation)
    oldest = stale.order_by("since").values_list("since", flat=True).first()
    return {
        "fresh_as_of": state.fresh_as_of if state else None,
        "full_rescore_at": state.full_rescore_at if state else None,
        "last_seconds": state.last_seconds if state else None,
        "stale_questions": stale.count(),
        "stale_since": oldest,
    }
