"""QA4MRE 2012 scorer for scoring.registry: every run against the gold standard, computed by tracks.qa4mre.measures.

Stored scores (scoring.models.Score, written by scoring.rescore):
  scope run       measures c_at_1, accuracy_answered, self_validation (detail: the counts behind them)
  scope series    the same per reading test and per topic (topic = the Topic row of that reading test/topic)
  scope question  the same over the one question (c_at_1 1 or 0), detail: answered, a_id, gold
and "score" = c@1 for the run, each reading test and each question: the headline the shared scoreboard, `score`
command and significance test read (reading tests play the part of the QA tracks' series; topics are left out of
"score" so that no question counts twice there).
"""

from pooling.models import Run, RunEntry, Topic
from scoring.models import Score
from scoring.registry import ScoreBatch, ScoreRow
from tracks.qa4mre import measures as c_at_1
from tracks.qa4mre.formats.test_set import QUESTION, READING_TEST, TOPIC
from tracks.qa4mre.loading import has_gold


def structure(evaluation):
    """(questions in order, {reading test or topic Topic: [question pks]}) of an evaluation."""
    topics = list(Topic.objects.filter(evaluation=evaluation).order_by("position"))
    by_pk = {t.pk: t for t in topics}
    questions = [t for t in topics if t.kind == QUESTION]
    groups = {t.pk: [] for t in topics if t.kind in (READING_TEST, TOPIC)}
    for q in questions:
        test = by_pk.get(q.parent_id)
        if test is not None:
            groups[test.pk].append(q.pk)
            if test.parent_id in groups:
                groups[test.parent_id].append(q.pk)
    return questions, groups


def _detail(outcomes):
    counts = c_at_1.count(outcomes)
    return {
        "n": counts.n,
        "right": counts.right,
        "wrong": counts.wrong,
        "unanswered": counts.unanswered,
        "candidates": counts.candidates,
        "candidates_right": counts.candidates_right,
    }


def compute_rows(evaluation):
    """ScoreRow list for every run of the evaluation; empty while no gold standard is loaded."""
    if not has_gold(evaluation):
        return []
    questions, groups = structure(evaluation)
    gold = {q.pk: (q.data or {}).get("correct") for q in questions}
    reading_tests = {q.parent_id for q in questions}
    responses = {}
    run_ids = list(Run.objects.filter(evaluation=evaluation).values_list("pk", flat=True))
    entries = RunEntry.objects.filter(run_id__in=run_ids).values_list("run_id", "topic_id", "data")
    for run_id, topic_id, data in entries:
        responses.setdefault(run_id, {})[topic_id] = data or {}
    rows = []
    for run_id in run_ids:
        outcomes = {}
        for q in questions:
            response = responses.get(run_id, {}).get(q.pk, {})  # a missing question counts as unanswered
            answered, a_id = bool(response.get("answered")), response.get("a_id")
            outcomes[q.pk] = c_at_1.outcome(answered, a_id, gold[q.pk])
            detail = {"answered": answered, "a_id": a_id, "gold": gold[q.pk]}
            measures = c_at_1.measures([outcomes[q.pk]])
            rows += [ScoreRow(run_id, Score.QUESTION, q.pk, m, v, detail) for m, v in measures.items()]
            rows.append(ScoreRow(run_id, Score.QUESTION, q.pk, "score", measures["c_at_1"], detail))
        for group_pk, measures in c_at_1.grouped(outcomes, groups).items():
            detail = _detail(outcomes[q] for q in groups[group_pk])
            rows += [ScoreRow(run_id, Score.SERIES, group_pk, m, v, detail) for m, v in measures.items()]
            if group_pk in reading_tests:
                rows.append(ScoreRow(run_id, Score.SERIES, group_pk, "score", measures["c_at_1"], detail))
        everything = list(outcomes.values())
        detail = _detail(everything)
        run_measures = c_at_1.measures(everything)
        rows += [ScoreRow(run_id, Score.RUN, None, m, v, detail) for m, v in run_measures.items()]
        # "score" is the headline every shared board ranks runs by; for this track it is c@1.
        rows.append(ScoreRow(run_id, Score.RUN, None, "score", run_measures["c_at_1"], detail | {"is": "c_at_1"}))
    return rows


def score(evaluation, topic_ids=None):
    """The track's scorer: always every run and every question (there is no judging, so nothing is ever partly
    stale, and a whole evaluation is a few thousand rows)."""
    return ScoreBatch(rows=compute_rows(evaluation), full=True)
