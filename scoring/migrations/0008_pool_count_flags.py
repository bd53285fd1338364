"""What QA's series and run rows repeat in every run moves into PoolCount (issue 32).

Each series' and each run's "score" row held the lists of the unjudged and left-out questions ("unjudged_questions",
"left_out_questions"), the same in every run (a run's with one entry per question of the evaluation), so every
live pass read, rewrote and stored them for every run whatever the size of its change. Now PoolCount keeps, per
question, what the lists are made of (its answers of judged runs not pooled yet, "unpooled", and whether its score
is left out, "left_out"; unjudged is judged < items or unpooled > 0), and scoring.pool_counts shows the lists where
they were.

Forward: the flags from each question's stored row (the same in every run's), then the lists leave QA's series and
run rows (those whose detail holds "unpooled"). Backward: the columns go; the older code's lists are incomplete
until the evaluation is rescored (`rescore`).
"""

from django.db import migrations, models

MOVE_SQL = """
    UPDATE scoring_poolcount p SET unpooled = coalesce((q.detail->>'unpooled')::int, 0),
                                   left_out = coalesce((q.detail->>'left_out')::boolean, false)
    FROM (SELECT DISTINCT ON (topic_id) topic_id, detail FROM scoring_score
          WHERE scope = 'question' AND measure = 'score' AND detail ? 'unpooled'
          ORDER BY topic_id, id) q
    WHERE q.topic_id = p.topic_id;
    UPDATE scoring_score SET detail = detail - 'unjudged_questions' - 'left_out_questions'
    WHERE scope IN ('series', 'run') AND measure = 'score' AND detail ? 'unpooled'
"""


def move_flags(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in filter(str.strip, MOVE_SQL.split(";")):
            schema_editor.execute(statement, None)
        return
    # (elsewhere, the demo's SQLite: small, row by row)
    Score = apps.get_model("scoring", "Score")
    PoolCount = apps.get_model("scoring", "PoolCount")
    seen = set()
    for score in Score.objects.filter(measure="score").order_by("id"):
        detail = score.detail
        if not isinstance(detail, dict) or "unpooled" not in detail:
            continue
        if score.scope == "question":
            if score.topic_id not in seen:
                seen.add(score.topic_id)
                PoolCount.objects.filter(topic_id=score.topic_id).update(
                    unpooled=detail.get("unpooled") or 0, left_out=bool(detail.get("left_out"))
                )
        elif "unjudged_questions" in detail or "left_out_questions" in detail:
            detail.pop("unjudged_questions", None)
            detail.pop("left_out_questions", None)
            Score.objects.filter(pk=score.pk).update(detail=detail)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0007_pool_counts")]

    operations = [
        migrations.AddField(model_name="poolcount", name="unpooled", field=models.PositiveIntegerField(db_default=0)),
        migrations.AddField(model_name="poolcount", name="left_out", field=models.BooleanField(db_default=False)),
        migrations.RunPython(move_flags, migrations.RunPython.noop),
    ]
