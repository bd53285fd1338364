import json

from django.core.management.base import BaseCommand

from pooling.management.commands._common import get_evaluation
from tracks.bolt import judging


class Command(BaseCommand):
    help = "Agreement of the two assessors on double-judged BOLT topics (percent agreement, Cohen's kappa), as JSON."

    def add_arguments(self, parser):
        parser.add_argument("slug")

    def handle(self, slug, **options):
        self.stdout.write(json.dumps(judging.agreement(get_evaluation(slug)), indent=2))
