import sys

from django.core.management.base import BaseCommand

from pooling.management.commands._common import get_evaluation
from tracks.bolt import judging
from tracks.bolt.formats.export import team_topics


class Command(BaseCommand):
    help = "Write the topic file teams receive (number, query and language target only) to stdout."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--contact", default="", help="the contact attribute (default: none)")

    def handle(self, slug, contact, **options):
        evaluation = get_evaluation(slug)
        topics = [(t.ident, t.text, t.data.get("language_target", "none")) for t in judging.bolt_topics(evaluation)]
        sys.stdout.buffer.write(team_topics(evaluation.setting("eval_id", "BOLT-IR-P2"), contact, topics))
