"""BOLT adjudication from the command line, as on the page /bolt/adjudicate/SLUG/.

  manage.py bolt_adjudicate SLUG                                     the queue, one disagreement a line
  manage.py bolt_adjudicate SLUG POOL_ID --by USER --adopt primary|secondary
  manage.py bolt_adjudicate SLUG POOL_ID --by USER --rel yes|maybe|no [--trans T] [--chksrc]
                                        [--spans whole|primary|secondary]

USER is an organizer or an invited adjudicator who judged neither side; the decision is saved (with history) as the
adjudicated judgment against the version shown in the queue, and it counts in the scores.
"""

from django.core.management.base import CommandError

from assess.adjudication import AdjudicateCommand
from tracks.bolt import adjudication


def _describe(judgment):
    value = judgment.value
    part = " (part)" if value.get("relspans") else ""
    return f"{judgment.assessor.username}: {value.get('rel')}{part}"


class Command(AdjudicateCommand):
    help = __doc__
    example = "1.001-3"

    def queue(self, evaluation):
        return adjudication.adjudication_queue(evaluation)

    def describe(self, row):
        item, first, second, decided = row
        state = f"decided {_describe(decided)} v{decided.version}" if decided else "open"
        return f"{item.pool_id}\t{item.reason}\t{_describe(first)}\t{_describe(second)}\t{state}\t{item.text[:60]!r}"

    def add_decision_arguments(self, parser):
        parser.add_argument("--rel", choices=["yes", "maybe", "no"])
        parser.add_argument("--trans", choices=["accept", "problematic", "notaccept", "na"])
        parser.add_argument("--chksrc", action="store_true", help="the source was checked")
        parser.add_argument(
            "--spans",
            choices=["whole", "primary", "secondary"],
            default="whole",
            help="the relevant part: the whole passage or as one assessor marked it",
        )

    def decision(self, options, primary, secondary):
        if not options["rel"]:
            raise CommandError("give --rel (and --trans, --chksrc, --spans) or --adopt")
        form = {name: options[name] for name in ("rel", "trans", "chksrc", "spans")}
        return adjudication.decision_value(form, primary, secondary)

    def decide(self, user, item, value, expected_version):
        return adjudication.adjudicate_citation(user, item, value, expected_version)

    def decided(self, item, saved, user):
        judgment = saved.judgment
        return f"{item.pool_id}: decided {judgment.value['rel']} (version {judgment.version}) by {user.username}"
