from django.core.management.base import BaseCommand

from core.audit import as_csv, entries


class Command(BaseCommand):
    help = "Print the audit log of organizer actions as CSV (newest first), optionally filtered."

    def add_arguments(self, parser):
        parser.add_argument("--action", default="")
        parser.add_argument("--target", default="", help="entries whose target contains this")

    def handle(self, action, target, **options):
        self.stdout.write(as_csv(entries(action, target)), ending="")
