"""Team moves from pooling to accounts (issue 27). State only: the table keeps its name (pooling_team, and its
members table pooling_team_members), so no row moves. Runs after pooling's migration that last changed the table,
and before pooling's migration that drops Team from pooling's state."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("pooling", "0008_runentry_no_db_constraints"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Team",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        ("name", models.CharField(max_length=100, unique=True)),
                        (
                            "members",
                            models.ManyToManyField(blank=True, related_name="teams", to=settings.AUTH_USER_MODEL),
                        ),
                    ],
                    options={"ordering": ["name"], "db_table": "pooling_team"},
                ),
            ],
            database_operations=[],
        ),
    ]
