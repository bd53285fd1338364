import sys

from django.core.management.base import BaseCommand

from pooling import bolt
from pooling.formats.bolt_export import team_topics
from pooling.management.commands._common import get_evaluation


class Command(BaseCommand):
    help = "Write the topic file teams receive (number, query and language target only) to stdout."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--contact", default="", help="the contact attribute (default: none)")

    def handle(self, slug, contact, **options):
        evaluation = get_evaluation(slug)
        topics = [(t.ident, t.text, t.data.get("language_target", "none")) for t in bolt.bolt_topics(evaluation)]
        sys.stdout.buffer.write(team_topics(evaluation.setting("eval_id", "BOLT-IR-P2"), contact, topics))
