"""ciQA runs keep their stage under the generic run-data keys every loading path writes (pooling.runs.RunFile:
"kind", "initial_tag") instead of "ciqa_stage" / "ciqa_initial", so a run a team submits on its own page and one
an organizer loads read the same."""

from django.db import migrations

RENAMED = {"ciqa_stage": "kind", "ciqa_initial": "initial_tag"}


def forwards(apps, schema_editor):
    Run = apps.get_model("pooling", "Run")
    for run in Run.objects.filter(evaluation__track="trec2007-ciqa").only("id", "data").iterator():
        data = dict(run.data or {})
        if not any(old in data for old in RENAMED):
            continue
        for old, new in RENAMED.items():
            if old in data:
                data[new] = data.pop(old)
        Run.objects.filter(pk=run.pk).update(data=data)


def backwards(apps, schema_editor):
    Run = apps.get_model("pooling", "Run")
    for run in Run.objects.filter(evaluation__track="trec2007-ciqa").only("id", "data").iterator():
        data = dict(run.data or {})
        for old, new in RENAMED.items():
            if new in data:
                data[old] = data.pop(new)
        Run.objects.filter(pk=run.pk).update(data=data)


class Migration(migrations.Migration):
    dependencies = [("qa", "0001_ciqa"), ("pooling", "0008_runentry_no_db_constraints")]

    operations = [migrations.RunPython(forwards, backwards)]
