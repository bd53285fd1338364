from django.core.management.base import BaseCommand

from accounts.people import unlock


class Command(BaseCommand):
    help = "Lift the lock that failed logins put on a user name."

    def add_arguments(self, parser):
        parser.add_argument("username")

    def handle(self, username, **options):
        removed = unlock(username)
        self.stdout.write(f"{username}: {'unlocked' if removed else 'was not locked'}")
