import sys

from django.core.management.base import BaseCommand

from pooling.loading import check_context, check_run_report
from pooling.management.commands._common import get_evaluation, read_file


class Command(BaseCommand):
    help = (
        "Check run files like the track's official checking routine: every problem as FILE:LINE: message; "
        "exit status 1 when there is any. Nothing is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, slug, files, **options):
        evaluation = get_evaluation(slug)
        context = check_context(evaluation)
        failed = False
        for path in files:
            problems, notes, parsed = check_run_report(evaluation, read_file(path), path, context)
            for line in notes + problems:
                self.stdout.write(line)
            if problems:
                failed = True
            else:
                self.stderr.write(f"{path}: OK, run {parsed.tag}, {len(parsed.entries)} lines")
        if failed:
            sys.exit(1)
