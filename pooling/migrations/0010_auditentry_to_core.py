"""AuditEntry moved to core (issue 27): pooling's state drops it. State only: the table (pooling_auditentry) stays,
now core's, so no row moves."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_auditentry_from_pooling"),
        ("pooling", "0009_team_to_accounts"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="AuditEntry")],
            database_operations=[],
        ),
    ]
