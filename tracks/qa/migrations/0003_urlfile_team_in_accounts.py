"""Team moved from pooling to accounts (issue 27): ciQA's URL files name accounts.Team. State only: the table and
its foreign-key constraint are unchanged. Before pooling 0009, which drops Team from pooling's state."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_team_from_pooling"),
        ("qa", "0002_ciqa_run_kind"),
    ]
    run_before = [("pooling", "0009_team_to_accounts")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="urlfile",
                    name="team",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="ciqa_url_files", to="accounts.team"
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
