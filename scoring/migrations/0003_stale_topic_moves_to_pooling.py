from django.db import migrations


class Migration(migrations.Migration):
    """StaleTopic's model moves to pooling (pooling/migrations/0005): state only, the table stays as it is."""

    dependencies = [
        ("scoring", "0002_detail_and_state"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="StaleTopic")],
            database_operations=[],
        ),
    ]
