"""Evaluations left "open for runs" while they were being judged (before the state followed the work: issue 12)
move to "judging": those with a pool to judge, as pooling.pools.build_pools now does when it leaves items."""
from django.db import migrations


def open_to_judging(apps, schema_editor):
    Evaluation = apps.get_model("pooling", "Evaluation")
    PoolItem = apps.get_model("pooling", "PoolItem")
    pooled = PoolItem.objects.values("evaluation_id")
    Evaluation.objects.filter(state="open", pk__in=pooled).update(state="judging")


class Migration(migrations.Migration):
    dependencies = [("pooling", "0002_pool_build")]
    operations = [migrations.RunPython(open_to_judging, migrations.RunPython.noop)]
