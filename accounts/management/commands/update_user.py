from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.people import state_of, update_user
from config.roles import ROLES


class Command(BaseCommand):
    help = "Change a user's roles (--role, repeated: the full set), teams (--team, repeated), e-mail, or deactivate."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", action="append", choices=ROLES)
        parser.add_argument("--team", action="append")
        parser.add_argument("--no-teams", action="store_true", help="remove the user from every team")
        parser.add_argument("--email")
        active = parser.add_mutually_exclusive_group()
        active.add_argument("--deactivate", dest="active", action="store_false", default=None)
        active.add_argument("--activate", dest="active", action="store_true")

    def handle(self, username, role, team, no_teams, email, active, **options):
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        try:
            update_user(user, roles=role, teams=[] if no_teams else team, active=active, email=email)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self.stdout.write(f"{username}: {state_of(user)}")
