from django.core.management.base import BaseCommand
from django.db import transaction

from pooling.demo import run_all
from pooling.staleness import rescoring_deferred


class Command(BaseCommand):
    help = "Load the demo data: one user per role and a small evaluation of each track. Safe to run again."

    def handle(self, *args, **options):
        # Every step marks questions stale; scores are computed once per evaluation, after the whole load commits.
        with rescoring_deferred(), transaction.atomic():
            run_all(out=self.stdout.write)
