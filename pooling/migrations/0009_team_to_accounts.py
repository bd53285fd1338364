"""Team moved to accounts (issue 27): the foreign keys to it now name accounts.Team and pooling's state drops it.
State only: the table (pooling_team) and the foreign-key constraints to it are unchanged, so no row moves and no
constraint is rebuilt. A track's foreign key to Team is altered in its own migration, which runs before this one
(run_before: tracks.qa 0003)."""

import django.db.models.deletion
from django.db import migrations, models


def team_fk(related_name, on_delete=django.db.models.deletion.CASCADE):
    return models.ForeignKey(on_delete=on_delete, related_name=related_name, to="accounts.team")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_team_from_pooling"),
        ("pooling", "0008_runentry_no_db_constraints"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField("run", "team", team_fk("runs", on_delete=django.db.models.deletion.PROTECT)),
                migrations.AlterField("participation", "team", team_fk("participations")),
                migrations.AlterField("submission", "team", team_fk("submissions")),
                migrations.AlterField("download", "team", team_fk("downloads")),
                migrations.DeleteModel(name="Team"),
            ],
            database_operations=[],
        ),
    ]
