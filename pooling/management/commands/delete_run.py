from django.core.management.base import BaseCommand

from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation
from pooling.runs import delete_run


class Command(BaseCommand):
    help = (
        "Delete a run (its lines and scores) from an evaluation; its questions are rescored. Once runs are frozen "
        "(judging started, or the run is pooled) give --reason: it goes to the audit log and the released reports."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("tag")
        parser.add_argument("--reason", default="", help="why the run is deleted (required once runs are frozen)")

    def handle(self, slug, tag, **options):
        evaluation = get_evaluation(slug)
        try:
            delete_run(evaluation, tag, reason=options["reason"])
        except LoadError as exc:
            raise fail_with(exc.problems) from None
        self.stdout.write(f"{slug}: run {tag} deleted")
