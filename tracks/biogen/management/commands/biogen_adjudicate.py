"""BioGen adjudication from the command line, as on the page /biogen/adjudicate/SLUG/.

  manage.py biogen_adjudicate SLUG                                  the queue, one disagreement a line
  manage.py biogen_adjudicate SLUG POOL_ID --by USER --adopt primary|secondary
  manage.py biogen_adjudicate SLUG POOL_ID --by USER --label LABEL

USER is an organizer or an invited adjudicator who judged neither side; the decision is saved (with history) as the
adjudicated judgment against the version shown in the queue, and it counts in the scores.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from assess import judging as generic
from pooling.management.commands._common import get_evaluation
from tracks.biogen import judging


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("pool_id", nargs="?", help="the item to decide (its pool id, e.g. 1-7)")
        parser.add_argument("--by", help="the organizer or invited adjudicator deciding (recorded in the history)")
        parser.add_argument("--adopt", choices=["primary", "secondary"], help="take that judgment as it is")
        parser.add_argument("--label", help="the decided label (one of the item's labels)")

    def handle(self, slug, pool_id=None, by=None, **options):
        evaluation = get_evaluation(slug)
        rows = judging.adjudication_queue(evaluation)
        if pool_id is None:
            for item, first, second, decided in rows:
                state = f"decided {decided.value['label']} v{decided.version}" if decided else "open"
                self.stdout.write(
                    f"{item.pool_id}\t{item.data.get('kind')}\t{first.assessor.username}: {first.value['label']}"
                    f"\t{second.assessor.username}: {second.value['label']}\t{state}\t{item.text[:60]!r}"
                )
            return
        row = next((r for r in rows if r[0].pool_id == pool_id), None)
        if row is None:
            raise CommandError(f"{pool_id} is not among the disagreements of {slug}")
        if not by:
            raise CommandError("--by: who decides is needed")
        user = get_user_model().objects.filter(username=by).first()
        if user is None:
            raise CommandError(f"--by: no user {by!r}")
        item, first, second, decided = row
        item.evaluation = evaluation
        if options["adopt"]:
            value = dict((first if options["adopt"] == "primary" else second).value)
        elif options["label"]:
            value = {"label": options["label"], "evidence": list(first.value.get("evidence") or [])}
        else:
            raise CommandError("give --label or --adopt")
        try:
            saved = judging.adjudicate(user, item, value, decided.version if decided else 0)
        except generic.JudgingError as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(f"{pool_id}: decided {saved.judgment.value['label']} (version {saved.judgment.version})")
