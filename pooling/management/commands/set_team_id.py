from django.core.management.base import BaseCommand

from pooling.campaign import set_team_id
from pooling.management.commands._common import get_evaluation


class Command(BaseCommand):
    help = "Record a team's ID for an evaluation (the submission rules check run tags against it)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("team")
        parser.add_argument("ident")

    def handle(self, slug, team, ident, **options):
        taking_part = set_team_id(get_evaluation(slug), team, ident)
        self.stdout.write(f"{taking_part.team.name}: team ID {taking_part.ident or '(none)'} in {slug}")
