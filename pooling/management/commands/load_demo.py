from django.core.management.base import BaseCommand
from django.db import transaction

from config.demo import run_all


class Command(BaseCommand):
    help = "Load the demo data: one user per role and a small evaluation of each track. Safe to run again."

    def handle(self, *args, **options):
        with transaction.atomic():
            run_all(out=self.stdout.write)
