from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.people import invite_user
from config.roles import ROLES


class Command(BaseCommand):
    help = (
        "Invite a user: the account is made without a password, and a one-time link to set one is printed (and "
        "mailed when --email is given). The link's host comes from --base-url."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", action="append", choices=ROLES, required=True, help="repeat for several")
        parser.add_argument("--team", action="append", default=[], help="team name (repeat for several)")
        parser.add_argument("--email", default="")
        parser.add_argument("--base-url", default="http://localhost:8000")

    def handle(self, username, role, team, email, base_url, **options):
        try:
            user, link = invite_user(username, email, role, team, base_url=base_url)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self.stdout.write(f"{user.username} invited; link to set the password:\n{link}")
