"""Recomputing stored scores from judgments: the stale questions of an evaluation, or all of it.

One recomputation per evaluation is in flight at a time: the evaluation's ScoringState row is locked
(select_for_update) for the whole recomputation, so a burst of judgments queues up behind it and the next task
finds every mark the burst left in one batch. A stale mark is cleared only if it has not changed since it was
read (same changed_at), so a judgment saved during a recomputation is picked up by the next one.
"""
import json
import time

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

import scoring.qa_scoring  # noqa: F401  (registers the QA scorers)
from pooling.models import Evaluation, Run
from scoring.models import Score, ScoringState, StaleTopic
from scoring.registry import get_scorer

BATCH = 2000


def _lock_state(evaluation_id):
    ScoringState.objects.get_or_create(evaluation_id=evaluation_id)
    return ScoringState.objects.select_for_update().get(evaluation_id=evaluation_id)


def store(evaluation, batch):
    """Upsert the batch's rows inside the caller's transaction: identical stored rows are kept, changed ones
    replaced, rows the batch's scopes no longer produce deleted. Returns the rows written."""
    # run ids rather than a join, and run-level rows through their partial unique index (topic IS NULL)
    run_ids = list(Run.objects.filter(evaluation=evaluation).order_by().values_list("id", flat=True))
    if connection.vendor == "postgresql":
        return _merge_postgresql(run_ids, batch)
    scores = Score.objects.filter(run_id__in=run_ids)
    if not batch.full:
        scope = Q(scope=Score.QUESTION, topic_id__in=batch.question_ids) | Q(scope=Score.SERIES,
                                                                             topic_id__in=batch.series_ids)
        if batch.run_level:
            scope |= Q(scope=Score.RUN, topic__isnull=True)
        scores = scores.filter(scope)
    scores.delete()
    Score.objects.bulk_create(
        [Score(run_id=r.run_id, scope=r.scope, topic_id=r.topic_id, measure=r.measure, value=r.value,
               detail=r.detail) for r in batch.rows],
        batch_size=BATCH,
    )
    return len(batch.rows)


# coalesce rather than IS NOT DISTINCT FROM, so PostgreSQL can hash-join the 30,000 rows of a full rescoring
_SAME_KEY = ("i.run_id = s.run_id AND i.scope = s.scope AND coalesce(i.topic_id, 0) = coalesce(s.topic_id, 0) "
             "AND i.measure = s.measure")


def _merge_postgresql(run_ids, batch):
    """COPY the rows into a temporary table and let PostgreSQL compare: most judgments change few stored
    numbers, so little is written and nothing is decoded in Python."""
    table = Score._meta.db_table
    if batch.full:
        where, params = "s.run_id = ANY(%s)", [run_ids]
    else:
        where = ("s.run_id = ANY(%s) AND ((s.scope = 'question' AND s.topic_id = ANY(%s)) "
                 "OR (s.scope = 'series' AND s.topic_id = ANY(%s))" +
                 (" OR (s.scope = 'run' AND s.topic_id IS NULL))" if batch.run_level else ")"))
        params = [run_ids, list(batch.question_ids), list(batch.series_ids)]
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE scoring_incoming (run_id bigint, scope varchar(10), topic_id bigint, "
                       "measure varchar(50), value double precision, detail jsonb) ON COMMIT DROP")
        with cursor.cursor.copy("COPY scoring_incoming FROM STDIN") as copy:
            for r in batch.rows:
                copy.write_row((r.run_id, r.scope, r.topic_id, r.measure, r.value, json.dumps(r.detail)))
        cursor.execute(
            f'DELETE FROM "{table}" s WHERE {where} AND NOT EXISTS (SELECT 1 FROM scoring_incoming i WHERE '
            f"{_SAME_KEY} AND i.value IS NOT DISTINCT FROM s.value AND i.detail = s.detail)", params)
        cursor.execute(
            f'INSERT INTO "{table}" (run_id, scope, topic_id, measure, value, detail, computed_at) '
            f"SELECT i.run_id, i.scope, i.topic_id, i.measure, i.value, i.detail, %s FROM scoring_incoming i "
            f'WHERE NOT EXISTS (SELECT 1 FROM "{table}" s WHERE {_SAME_KEY})', [timezone.now()])
        written = cursor.rowcount
        cursor.execute("DROP TABLE scoring_incoming")
    return written


def _clear(marks):
    """Delete the marks read at the start unless a judgment touched them since (changed_at moved on)."""
    for start in range(0, len(marks), 500):
        condition = Q()
        for pk, changed_at in marks[start:start + 500]:
            condition |= Q(pk=pk, changed_at=changed_at)
        StaleTopic.objects.filter(condition).delete()


def _recompute(evaluation_id, full):
    started = time.perf_counter()
    with transaction.atomic():
        state = _lock_state(evaluation_id)
        # Taken before the marks are read: every judgment committed before this instant is in this recomputation,
        # which is exactly what "scores fresh as of" promises.
        as_of = timezone.now()
        marks = list(StaleTopic.objects.filter(evaluation_id=evaluation_id).values_list("pk", "topic_id",
                                                                                         "changed_at"))
        if not marks and not full:  # a burst already handled by an earlier task: the scores are fresh
            if state.fresh_as_of is not None:  # (never scored stays "never" until a full rescoring)
                ScoringState.objects.filter(pk=state.pk).update(fresh_as_of=as_of)
            return 0
        evaluation = Evaluation.objects.get(pk=evaluation_id)
        scorer = get_scorer(evaluation.track)
        topic_ids = None if full else {t for _, t, _ in marks}
        if scorer is None:
            return 0  # the track registers no scorer (yet): the marks stay, the board shows them stale
        batch = scorer(evaluation, topic_ids)
        store(evaluation, batch)
        questions = len(batch.question_ids)
        _clear([(pk, changed) for pk, _, changed in marks])
        state.fresh_as_of = as_of
        if full:
            state.full_rescore_at = as_of
        state.last_seconds = time.perf_counter() - started
        state.questions_last = questions
        state.save()
    return questions


def rescore_stale_topics(evaluation_id):
    """Recompute the evaluation's stale questions for every run, then their series and the runs' scores.

    Returns the number of questions recomputed (0 when another task already took care of them).
    """
    return _recompute(evaluation_id, full=False)


def rescore_evaluation(evaluation_id):
    """Recompute every score of the evaluation in one transaction (and clear its stale marks)."""
    return _recompute(evaluation_id, full=True)


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
