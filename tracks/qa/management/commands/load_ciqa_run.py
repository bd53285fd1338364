from django.core.management.base import BaseCommand

from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation, read_file
from tracks.qa.ciqa.submissions import load_run


class Command(BaseCommand):
    help = (
        "Load a ciQA run (QA run format) as an initial run or as a final run naming its initial run; the pairing "
        "and the per-team limits (2 initial, 2 final runs) are checked, nothing is stored on any problem."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--team", required=True)
        parser.add_argument("--stage", choices=("initial", "final"), required=True)
        parser.add_argument("--initial", default="", help="a final run: the tag of its initial run")
        parser.add_argument("--manual", action="store_true")
        parser.add_argument(
            "--override",
            default="",
            metavar="REASON",
            help="accept a file that breaks the campaign's rules (the submission window), recording REASON in the "
            "audit log; never a problem of the file or the ciQA limits",
        )

    def handle(self, slug, file, team, stage, initial, manual, **options):
        evaluation = get_evaluation(slug)
        try:
            run, replaced = load_run(
                evaluation, read_file(file), file, team, stage, initial, manual, override_reason=options["override"]
            )
        except LoadError as exc:
            raise fail_with(exc.problems) from None
        self.stdout.write(f"{slug}: {'replaced' if replaced else 'loaded'} {stage} run {run.tag} of {team}")
