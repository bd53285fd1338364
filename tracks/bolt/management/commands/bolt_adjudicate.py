"""BOLT adjudication from the command line, as on the page /bolt/adjudicate/SLUG/.

  manage.py bolt_adjudicate SLUG                                     the queue, one disagreement a line
  manage.py bolt_adjudicate SLUG POOL_ID --by USER --adopt primary|secondary
  manage.py bolt_adjudicate SLUG POOL_ID --by USER --rel yes|maybe|no [--trans T] [--chksrc]
                                        [--spans whole|primary|secondary]

USER is an organizer or an invited adjudicator who judged neither side; the decision is saved (with history) as the
adjudicated judgment against the version shown in the queue, and it counts in the scores.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from assess import judging as generic
from pooling.management.commands._common import get_evaluation
from tracks.bolt import adjudication


def _describe(judgment):
    value = judgment.value
    part = " (part)" if value.get("relspans") else ""
    return f"{judgment.assessor.username}: {value.get('rel')}{part}"


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("pool_id", nargs="?", help="the citation to decide (its pool id, e.g. 1.001-3)")
        parser.add_argument("--by", help="the organizer or invited adjudicator deciding (recorded in the history)")
        parser.add_argument("--adopt", choices=["primary", "secondary"], help="take that judgment as it is")
        parser.add_argument("--rel", choices=["yes", "maybe", "no"])
        parser.add_argument("--trans", choices=["accept", "problematic", "notaccept", "na"])
        parser.add_argument("--chksrc", action="store_true", help="the source was checked")
        parser.add_argument(
            "--spans",
            choices=["whole", "primary", "secondary"],
            default="whole",
            help="the relevant part: the whole passage or as one assessor marked it",
        )

    def handle(self, slug, pool_id=None, by=None, **options):
        evaluation = get_evaluation(slug)
        rows = adjudication.adjudication_queue(evaluation)
        if pool_id is None:
            for item, first, second, decided in rows:
                state = f"decided {_describe(decided)} v{decided.version}" if decided else "open"
                self.stdout.write(
                    f"{item.pool_id}\t{item.reason}\t{_describe(first)}\t{_describe(second)}\t{state}"
                    f"\t{item.text[:60]!r}"
                )
            return
        row = next((r for r in rows if r[0].pool_id == pool_id), None)
        if row is None:
            raise CommandError(f"{pool_id} is not among the disagreements of {slug}")
        if not by:
            raise CommandError("--by: who decides is needed")
        try:
            user = get_user_model().objects.get(username=by)
        except get_user_model().DoesNotExist:
            raise CommandError(f"--by: no user {by!r}") from None
        item, first, second, decided = row
        item.evaluation = evaluation
        if not options["adopt"] and not options["rel"]:
            raise CommandError("give --rel (and --trans, --chksrc, --spans) or --adopt")
        form = {
            "adopt": options["adopt"],
            "rel": options["rel"],
            "trans": options["trans"],
            "chksrc": options["chksrc"],
            "spans": options["spans"],
        }
        try:
            value = adjudication.decision_value(form, first, second)
            saved = adjudication.adjudicate_citation(user, item, value, decided.version if decided else 0)
        except generic.JudgingError as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(
            f"{item.pool_id}: decided {saved.judgment.value['rel']} "
            f"(version {saved.judgment.version}) by {user.username}"
        )
