from django.core.management.base import BaseCommand

from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation, read_file
from tracks.qa4mre.loading import load_gold


class Command(BaseCommand):
    help = (
        'Load a QA4MRE gold standard (the test set\'s XML with correct="Yes" on the right answer) into an '
        "evaluation whose test set is loaded, and rescore every run; nothing changes when the file has any "
        "problem."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument(
            "--reason", default="", help="why gold answers change once runs are frozen (required then; logged)"
        )

    def handle(self, slug, file, **options):
        evaluation = get_evaluation(slug)
        try:
            questions, without = load_gold(evaluation, read_file(file), file, reason=options["reason"])
        except LoadError as exc:
            raise fail_with(exc.problems) from None
        runs = evaluation.runs.count()
        self.stdout.write(
            f"{slug}: gold answers of {questions} questions loaded from {file} "
            f"({without} without a correct answer); {runs} runs rescored"
        )
