"""The rest of what QA's rows repeat in every run moves out (issue 32): how far each question's judging has got.

A question row held its answers of judged runs not pooled yet ("unpooled") and whether it is unjudged; a series row
and a run's "score" row (and its "sums" counts) held their sums ("unpooled", "questions_judged"). The same in every
run, they changed when a question became fully judged, so the live pass of that save rewrote every run's rows of
the question and its series. PoolCount holds them since 0008 (unjudged is judged < items or unpooled > 0), and
scoring.pool_counts shows them where they were.

Forward: the keys leave QA's rows (those whose detail holds "unpooled"). Backward: they are put back from PoolCount.
"""

from django.db import migrations

QUESTION_KEYS, SUM_KEYS = ("unpooled", "unjudged"), ("unpooled", "questions_judged")  # (a series' and a run's)

MOVE_SQL = """
    UPDATE scoring_score SET detail = detail - 'unpooled' - 'unjudged'
    WHERE scope = 'question' AND measure = 'score' AND detail ? 'unpooled';
    UPDATE scoring_score SET detail = detail - 'unpooled' - 'questions_judged'
    WHERE scope = 'series' AND measure = 'score' AND detail ? 'unpooled';
    UPDATE scoring_score SET detail = detail - 'unpooled' - 'questions_judged'
        #- '{sums,counts,unpooled}' #- '{sums,counts,questions_judged}'
    WHERE scope = 'run' AND measure = 'score' AND detail ? 'unpooled'
"""


def _drop(detail, keys):
    for key in keys:
        detail.pop(key, None)


def move_out(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in filter(str.strip, MOVE_SQL.split(";")):
            schema_editor.execute(statement, None)
        return
    # (elsewhere, the demo's SQLite: small, row by row)
    Score = apps.get_model("scoring", "Score")
    for score in Score.objects.filter(measure="score").order_by("id"):
        detail = score.detail
        if not isinstance(detail, dict) or "unpooled" not in detail:
            continue
        _drop(detail, QUESTION_KEYS if score.scope == "question" else SUM_KEYS)
        if score.scope == "run" and isinstance(detail.get("sums"), dict):
            _drop(detail["sums"].get("counts") or {}, SUM_KEYS)
        Score.objects.filter(pk=score.pk).update(detail=detail)


def put_back(apps, schema_editor):
    """Each QA row's keys again, from the questions' PoolCount rows (row by row: a step back is rare)."""
    Score = apps.get_model("scoring", "Score")
    PoolCount = apps.get_model("scoring", "PoolCount")
    Topic = apps.get_model("pooling", "Topic")
    flags = {
        tid: (unpooled, judged < items or unpooled > 0, evaluation)
        for tid, judged, items, unpooled, evaluation in PoolCount.objects.values_list(
            "topic_id", "judged", "items", "unpooled", "evaluation_id"
        )
    }
    sums = {}  # ("series", id) or ("evaluation", id) -> [unpooled, questions judged]
    parents = dict(Topic.objects.filter(id__in=list(flags)).values_list("id", "parent_id"))
    for tid, (unpooled, unjudged, evaluation) in flags.items():
        for key in (("series", parents.get(tid) or tid), ("evaluation", evaluation)):
            found = sums.setdefault(key, [0, 0])
            found[0] += unpooled
            found[1] += not unjudged
    rows = Score.objects.filter(measure="score").exclude(detail__has_key="unpooled").order_by("id")
    for score in rows.select_related("run"):
        detail = score.detail
        if not isinstance(detail, dict):
            continue
        if score.scope == "question" and score.topic_id in flags:
            unpooled, unjudged, _ = flags[score.topic_id]
            detail |= {"unpooled": unpooled, "unjudged": unjudged}
        elif score.scope in ("series", "run") and "questions" in detail:
            key = ("series", score.topic_id) if score.scope == "series" else ("evaluation", score.run.evaluation_id)
            if key not in sums:
                continue
            added = dict(zip(SUM_KEYS, sums[key]))
            detail |= added
            if score.scope == "run" and isinstance(detail.get("sums"), dict):
                detail["sums"].get("counts", {}).update(added)
        else:
            continue
        Score.objects.filter(pk=score.pk).update(detail=detail)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0008_pool_count_flags")]

    operations = [migrations.RunPython(move_out, put_back)]
