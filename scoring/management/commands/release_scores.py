from django.core.management.base import BaseCommand, CommandError

from pooling.models import Evaluation, Team
from scoring.release import release, withdraw


class Command(BaseCommand):
    help = "Release an evaluation's per-run reports to its participants (--team NAME: to that team only; " \
           "--withdraw hides them again)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--team", help="release (or withdraw) only this team's reports")
        parser.add_argument("--withdraw", action="store_true")

    def handle(self, slug, **options):
        evaluation = Evaluation.objects.filter(slug=slug).first()
        if evaluation is None:
            raise CommandError(f"no evaluation with slug {slug!r}")
        team = None
        if options["team"]:
            team = Team.objects.filter(name=options["team"]).first()
            if team is None:
                raise CommandError(f"no team named {options['team']!r}")
        who = f"team {team.name}" if team else "all teams"
        if options["withdraw"]:
            withdraw(evaluation, team)
            self.stdout.write(f"{slug}: reports withdrawn for {who} (state {evaluation.state})")
        else:
            release(evaluation, team)
            self.stdout.write(f"{slug}: reports released to {who} (state {evaluation.state})")
