from django.core.management.base import BaseCommand

from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation
from tracks.qa.ciqa.sessions import plan_sessions, progress_by_assessor, set_interaction_seconds


class Command(BaseCommand):
    help = (
        "Plan the ciQA interaction sessions from the primary assignments and URL files (training topic first, "
        "then each assigned topic, every system); idempotent. --seconds sets the time per interaction."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--seconds", type=int)

    def handle(self, slug, seconds, **options):
        evaluation = get_evaluation(slug)
        try:
            if seconds is not None:
                set_interaction_seconds(evaluation, seconds)
            created, removed = plan_sessions(evaluation)
        except LoadError as exc:
            raise fail_with(exc.problems) from None
        self.stdout.write(f"{slug}: {created} sessions added, {removed} removed")
        for name, done, total in progress_by_assessor(evaluation):
            self.stdout.write(f"  {name}: {done} of {total} done")
