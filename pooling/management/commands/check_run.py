import sys

from django.core.management.base import BaseCommand

from pooling.management.commands._common import get_evaluation, read_file
from pooling.runs import RunFile, check_context, check_run_report


class Command(BaseCommand):
    help = (
        "Check run files like the track's official checking routine: every problem as FILE:LINE: message; "
        "exit status 1 when there is any. With --team, the track's submission rules too (against the team's "
        "stored runs). Nothing is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--team", help="check the submission rules for this team")
        parser.add_argument("--priority", type=int, help="default: from the run (TAC: the tag's last digit)")
        parser.add_argument("--manual", action="store_true")
        parser.add_argument("--description", default="", help="the manual processing of a manual run")

    def handle(self, slug, files, team, priority, manual, description, **options):
        evaluation = get_evaluation(slug)
        context = check_context(evaluation)
        failed = False
        for path in files:
            data = read_file(path)
            submission = (
                RunFile(path, data, team, priority=priority, manual=manual, description=description) if team else None
            )
            problems, notes, parsed = check_run_report(evaluation, data, path, context, submission)
            for line in notes + problems:
                self.stdout.write(line)
            if problems:
                failed = True
            else:
                self.stderr.write(f"{path}: OK, run {parsed.tag}, {len(parsed.entries)} lines")
        if failed:
            sys.exit(1)
