"""Each question's pool counts (judged items, items) move out of its runs' score rows into PoolCount (issue 32).

Forward: every QA question row's "pool" (the same in each run's row: its question's count) fills PoolCount, and
"pool" leaves the question rows, "pool_judged"/"pool_items" the series rows and the runs' "score" rows (and those
rows' "sums" counts). QA's rows are those whose detail holds "unpooled" (no other scorer writes it); other tracks'
rows keep their counts. scoring.pool_counts shows the counts where the details showed them, so every page, report,
export and API answer reads as before. Backward: the table goes and the details stay without the counts: the
older code shows the judged share as unknown until the evaluation is rescored (`rescore`).
"""

import django.db.models.deletion
from django.db import migrations, models

MOVE_SQL = """
    INSERT INTO scoring_poolcount (topic_id, evaluation_id, judged, items)
    SELECT DISTINCT ON (s.topic_id) s.topic_id, t.evaluation_id, (s.detail->'pool'->>0)::int,
           (s.detail->'pool'->>1)::int
    FROM scoring_score s JOIN pooling_topic t ON t.id = s.topic_id
    WHERE s.scope = 'question' AND s.measure = 'score' AND s.detail ? 'pool' AND s.detail ? 'unpooled'
    ORDER BY s.topic_id, s.id
    ON CONFLICT DO NOTHING;
    UPDATE scoring_score SET detail = detail - 'pool'
    WHERE scope = 'question' AND measure = 'score' AND detail ? 'pool' AND detail ? 'unpooled';
    UPDATE scoring_score SET detail = detail - 'pool_items' - 'pool_judged'
    WHERE scope = 'series' AND measure = 'score' AND detail ? 'pool_items' AND detail ? 'unpooled';
    UPDATE scoring_score SET detail = detail - 'pool_items' - 'pool_judged'
        #- '{sums,counts,pool_items}' #- '{sums,counts,pool_judged}'
    WHERE scope = 'run' AND measure = 'score' AND detail ? 'pool_items' AND detail ? 'unpooled';
"""


def move_counts(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in filter(str.strip, MOVE_SQL.split(";")):
            schema_editor.execute(statement, None)
        return
    # (elsewhere, the demo's SQLite: small, row by row)
    Score = apps.get_model("scoring", "Score")
    PoolCount = apps.get_model("scoring", "PoolCount")
    counts = {}
    for score in Score.objects.filter(measure="score").order_by("id").select_related("topic"):
        detail = score.detail
        if not isinstance(detail, dict) or "unpooled" not in detail:
            continue
        if score.scope == "question" and "pool" in detail:
            judged, items = detail.pop("pool")
            if score.topic_id not in counts:
                counts[score.topic_id] = PoolCount(
                    topic_id=score.topic_id, evaluation_id=score.topic.evaluation_id, judged=judged, items=items
                )
        elif score.scope in ("series", "run") and "pool_items" in detail:
            for key in ("pool_items", "pool_judged"):
                detail.pop(key, None)
                if score.scope == "run" and isinstance(detail.get("sums"), dict):
                    detail["sums"].get("counts", {}).pop(key, None)
        else:
            continue
        Score.objects.filter(pk=score.pk).update(detail=detail)
    PoolCount.objects.bulk_create(counts.values(), ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [
        ("pooling", "0010_auditentry_to_core"),
        ("scoring", "0006_ranking_state"),
    ]

    operations = [
        migrations.CreateModel(
            name="PoolCount",
            fields=[
                (
                    "topic",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="pooling.topic",
                    ),
                ),
                ("judged", models.PositiveIntegerField()),
                ("items", models.PositiveIntegerField()),
                (
                    "evaluation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="pooling.evaluation"
                    ),
                ),
            ],
        ),
        migrations.RunPython(move_counts, migrations.RunPython.noop),
    ]
