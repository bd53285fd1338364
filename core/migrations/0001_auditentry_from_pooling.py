"""AuditEntry moves from pooling to core (issue 27). State only: the table keeps its name (pooling_auditentry), so
no row moves. After pooling's migrations that made the table, before pooling 0010 drops it from pooling's state."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("pooling", "0009_team_to_accounts"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEntry",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        ("at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("username", models.CharField(blank=True, max_length=150)),
                        ("action", models.CharField(max_length=60)),
                        ("target", models.CharField(blank=True, max_length=255)),
                        ("before", models.JSONField(blank=True, null=True)),
                        ("after", models.JSONField(blank=True, null=True)),
                        ("reason", models.TextField(blank=True)),
                        (
                            "user",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={"ordering": ["-at", "-id"], "db_table": "pooling_auditentry"},
                ),
            ],
            database_operations=[],
        ),
    ]
