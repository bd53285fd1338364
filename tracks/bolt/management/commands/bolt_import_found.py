from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from pooling.management.commands._common import get_evaluation
from tracks.bolt import judging


class Command(BaseCommand):
    help = (
        "Turn the citations LDC found while developing the topics (<cite> elements of the loaded topic file) "
        "into assessor-found pool items with their judgments, recorded as --as USER. Idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--as", dest="username", required=True, help="the user the judgments are recorded as")

    def handle(self, slug, username, **options):
        try:
            user = get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise CommandError(f"no user {username!r}") from None
        created = judging.import_topic_citations(get_evaluation(slug), user)
        self.stdout.write(f"{created} citation(s) from the topic file added")
