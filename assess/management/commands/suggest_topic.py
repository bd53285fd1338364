from django.core.management.base import BaseCommand, CommandError

from assess import assist_client, assist_nuggets
from assess.management.commands._assist_common import user_named
from pooling.management.commands._common import get_evaluation
from pooling.models import Topic


class Command(BaseCommand):
    help = (
        "Run one suggestion pass of the evaluation's model server (setting assist_model, docs/assist.md) over one "
        "topic, here and now, and print every row it stored (suggestions and failed calls)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("topic", help="the topic's (or series') id")
        parser.add_argument(
            "--kind",
            required=True,
            help="the judgment kind, e.g. instance, citation, biogen, rag; or nugget_proposals (a topic's nugget list)",
        )
        parser.add_argument("--all", action="store_true", help="also items that have a suggestion already")
        parser.add_argument("--by", help="the organizer")

    def handle(self, slug, topic, kind, all, by, **options):
        evaluation = get_evaluation(slug)
        found = Topic.objects.filter(evaluation=evaluation, ident=topic).first()
        if found is None:
            raise CommandError(f"{slug} has no topic {topic!r}")
        try:
            rows = assist_client.suggest_topic(evaluation, found, kind, by=user_named(by), only_missing=not all)
        except assist_client.Off as e:
            raise CommandError(str(e)) from None
        for row in rows:
            where = (row.item.pool_id or row.item.key) if row.item_id else f"topic {row.topic.ident}"
            if row.error:
                self.stdout.write(f"{where}: error: {row.error}")
            elif row.kind == assist_nuggets.KIND:
                listed = "; ".join(f"{n['text'][:60]} ({n['importance']})" for n in row.value["nuggets"])
                self.stdout.write(f"{where}: {len(row.value['nuggets'])} nuggets ({row.seconds} s): {listed}")
            else:
                self.stdout.write(f"{where}: {row.value} ({row.seconds} s) {row.rationale[:100]}")
        good = sum(not r.error for r in rows)
        model = (evaluation.setting("assist_model") or {}).get("model")
        self.stdout.write(f"{slug} topic {topic}: {good} suggestions stored, {len(rows) - good} errors (model {model})")
