from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.people import add_user
from config.roles import ROLES


class Command(BaseCommand):
    help = "Create a user (or add a role to an existing one), optionally as a member of a team."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=ROLES)
        parser.add_argument(
            "--password",
            help="required when the user is new; must pass the password validators "
            "(AUTH_PASSWORD_VALIDATORS); an existing user's is not changed",
        )
        parser.add_argument("--team", help="team name; the team is created when missing")

    def handle(self, username, role, password, team, **options):
        exists = User.objects.filter(username=username).exists()
        if not exists and not password:
            raise CommandError(f"user {username!r} is new: give --password")
        try:
            add_user(username, role, password, team)
        except ValidationError as e:  # AUTH_PASSWORD_VALIDATORS: nothing was stored
            raise CommandError(f"password refused for {username!r}: " + " ".join(e.messages)) from None
        self.stdout.write(
            f"{username}: {role}{' of ' + team if team else ''}"
            + (" (existing user: password not changed)" if exists and password else "")
        )
