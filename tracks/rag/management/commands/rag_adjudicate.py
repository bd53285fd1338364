"""TREC RAG adjudication from the command line, as on the page /rag/adjudicate/SLUG/.

  manage.py rag_adjudicate SLUG                                  the queue, one disagreement a line
  manage.py rag_adjudicate SLUG POOL_ID --by USER --adopt primary|secondary
  manage.py rag_adjudicate SLUG POOL_ID --by USER --label LABEL  (a grade 0-3 or a support label)

USER is an organizer or an invited adjudicator who judged neither side; the decision is saved (with history) as the
adjudicated judgment against the version shown in the queue, and it counts in the scores. An answer's nugget
assignments are decided by adopting one side.
"""

from django.core.management.base import CommandError

from assess.adjudication import AdjudicateCommand
from tracks.rag import judging
from tracks.rag.labels import item_kind


class Command(AdjudicateCommand):
    help = __doc__
    example = "2024-145-3"

    def queue(self, evaluation):
        return judging.adjudication_queue(evaluation)

    def describe(self, row):
        item, first, second, decided = row
        state = f"decided {decided.value['label']} v{decided.version}" if decided else "open"
        return (
            f"{item.pool_id}\t{item_kind(item.key)}\t{item.docid}\t{first.assessor.username}: {first.value['label']}"
            f"\t{second.assessor.username}: {second.value['label']}\t{state}\t{item.text[:60]!r}"
        )

    def add_decision_arguments(self, parser):
        parser.add_argument("--label", help="the decided label (a grade 0-3, or full/partial/no_support)")

    def decision(self, options, primary, secondary):
        if not options["label"]:
            raise CommandError("give --label or --adopt")
        return {"label": options["label"], "nuggets": {}}

    def decide(self, user, item, value, expected_version):
        return judging.adjudicate(user, item, value, expected_version)

    def decided(self, item, saved, user):
        return f"{item.pool_id}: decided {saved.judgment.value['label']} (version {saved.judgment.version})"
