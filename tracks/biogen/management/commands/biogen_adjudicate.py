"""BioGen adjudication from the command line, as on the page /biogen/adjudicate/SLUG/.

  manage.py biogen_adjudicate SLUG                                  the queue, one disagreement a line
  manage.py biogen_adjudicate SLUG POOL_ID --by USER --adopt primary|secondary
  manage.py biogen_adjudicate SLUG POOL_ID --by USER --label LABEL

USER is an organizer or an invited adjudicator who judged neither side; the decision is saved (with history) as the
adjudicated judgment against the version shown in the queue, and it counts in the scores.
"""

from django.core.management.base import CommandError

from assess.adjudication import AdjudicateCommand
from tracks.biogen import judging


class Command(AdjudicateCommand):
    help = __doc__
    example = "1-7"

    def queue(self, evaluation):
        return judging.adjudication_queue(evaluation)

    def describe(self, row):
        item, first, second, decided = row
        state = f"decided {decided.value['label']} v{decided.version}" if decided else "open"
        return (
            f"{item.pool_id}\t{item.data.get('kind')}\t{first.assessor.username}: {first.value['label']}"
            f"\t{second.assessor.username}: {second.value['label']}\t{state}\t{item.text[:60]!r}"
        )

    def add_decision_arguments(self, parser):
        parser.add_argument("--label", help="the decided label (one of the item's labels)")

    def decision(self, options, primary, secondary):
        if not options["label"]:
            raise CommandError("give --label or --adopt")
        return {"label": options["label"], "evidence": list(primary.value.get("evidence") or [])}

    def decide(self, user, item, value, expected_version):
        return judging.adjudicate(user, item, value, expected_version)

    def decided(self, item, saved, user):
        return f"{item.pool_id}: decided {saved.judgment.value['label']} (version {saved.judgment.version})"
