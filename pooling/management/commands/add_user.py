from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from config.demo import ensure_user
from config.roles import ROLES


class Command(BaseCommand):
    help = "Create a user (or add a role to an existing one), optionally as a member of a team."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=ROLES)
        parser.add_argument("--password", help="required when the user is new")
        parser.add_argument("--team", help="team name; the team is created when missing")

    def handle(self, username, role, password, team, **options):
        if not User.objects.filter(username=username).exists() and not password:
            raise CommandError(f"user {username!r} is new: give --password")
        ensure_user(username, role, password, team)
        self.stdout.write(f"{username}: {role}{' of ' + team if team else ''}")
