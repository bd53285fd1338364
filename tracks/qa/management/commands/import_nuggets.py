"""Nuggets in from a nuggetizer nuggets file (docs/formats.md), for the questions that have none yet.

  manage.py import_nuggets SLUG FILE --by USER

Each line `{"qid": ..., "query": ..., "nuggets": [{"text": ..., "importance": "vital"|"okay"}]}` gives a nugget
question its nuggets in that order, each importance recorded as USER's primary vote. The whole file is refused,
every bad line named, for an unknown qid, a question that is not a nugget question or already has nuggets.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from pooling.management.commands._common import get_evaluation, read_file
from tracks.qa.nugget_import import NuggetImportError, import_nuggets


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--by", required=True, help="the organizer importing (the nuggets' creator and voter)")

    def handle(self, slug, file, by, **options):
        evaluation = get_evaluation(slug)
        user = get_user_model().objects.filter(username=by).first()
        if user is None:
            raise CommandError(f"no user {by!r}")
        try:
            questions, nuggets = import_nuggets(evaluation, read_file(file), file, user)
        except NuggetImportError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{nuggets} nuggets imported for {questions} questions of {slug}")
