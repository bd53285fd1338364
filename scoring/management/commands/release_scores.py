from django.core.management.base import BaseCommand, CommandError

from accounts.models import Team
from pooling.models import Evaluation
from scoring.release import ReleaseRefused, release, withdraw


class Command(BaseCommand):
    help = (
        "Release an evaluation's per-run reports to its participants (--team NAME: to that team only; "
        "--withdraw hides them again). Reports say whether they are provisional or --final (refused while "
        "judging is incomplete); --freeze-comparison keeps best/median/worst over the runs compared now, "
        "where otherwise runs loaded later join them. Releasing again replaces the earlier release's terms."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--team", help="release (or withdraw) only this team's reports")
        parser.add_argument("--withdraw", action="store_true")
        parser.add_argument(
            "--final",
            action="store_true",
            help="the scores are final (every pool item judged, nothing waiting for rescoring)",
        )
        parser.add_argument(
            "--freeze-comparison",
            action="store_true",
            help="best/median/worst stay over the runs compared at this release",
        )

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
            withdraw(evaluation, team, by="manage.py")
            self.stdout.write(f"{slug}: reports withdrawn for {who} (state {evaluation.state})")
            return
        try:
            record = release(
                evaluation, team, final=options["final"], freeze=options["freeze_comparison"], by="manage.py"
            )
        except ReleaseRefused as e:
            raise CommandError(f"{slug}: not released as final: {e}") from None
        self.stdout.write(
            f"{slug}: reports released to {who} as {'final' if record['final'] else 'provisional'} "
            f"scores, comparison {record['comparison']} (state {evaluation.state})"
        )
