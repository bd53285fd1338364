import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """StaleTopic's model arrives from scoring: state only, on its existing table scoring_staletopic."""

    dependencies = [
        ("pooling", "0004_track_choices_from_registry"),
        ("scoring", "0003_stale_topic_moves_to_pooling"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="StaleTopic",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("since", models.DateTimeField()),
                        ("changed_at", models.DateTimeField()),
                        ("evaluation", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                                         related_name="stale_topics", to="pooling.evaluation")),
                        ("topic", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE,
                                                       related_name="stale_mark", to="pooling.topic")),
                    ],
                    options={"db_table": "scoring_staletopic"},
                ),
            ],
            database_operations=[],
        ),
    ]
