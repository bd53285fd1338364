from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from api.tokens import create_token, revoke_token


class Command(BaseCommand):
    help = "Create (print once) or --revoke the API token of USERNAME; a new token replaces the old one."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--revoke", action="store_true")

    def handle(self, username, revoke, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        if revoke:
            self.stdout.write(f"{username}: token revoked" if revoke_token(user) else f"{username}: had no token")
        else:
            self.stdout.write(create_token(user))
