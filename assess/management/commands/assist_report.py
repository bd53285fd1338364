from django.core.management.base import BaseCommand, CommandError

from assess import assist_report
from pooling.management.commands._common import get_evaluation


class Command(BaseCommand):
    help = "Print the assisted-judging report (docs/assist.md) of one judgment kind as CSV."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--kind", help="default: the evaluation's first assisted kind")
        parser.add_argument("--facts", action="store_true", help="one line per judgment instead of the summary")

    def handle(self, slug, kind, facts, **options):
        evaluation = get_evaluation(slug)
        kinds = assist_report.assisted_kinds(evaluation)
        kind = kind or (kinds[0] if kinds else None)
        if kind not in kinds:
            raise CommandError(f"kind must be one of {', '.join(kinds) or 'none'}")
        if facts:
            self.stdout.write(assist_report.facts_csv(assist_report.facts(evaluation, kind), kind), ending="")
        else:
            self.stdout.write(assist_report.as_csv(assist_report.report(evaluation, kind), kind), ending="")
