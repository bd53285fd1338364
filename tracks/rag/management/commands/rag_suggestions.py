"""Machine-proposed nuggets for a TREC RAG evaluation, from a nuggetizer nuggets file (docs/formats.md).

  manage.py rag_suggestions SLUG FILE --by USER

Each line `{"qid": ..., "query": ..., "nuggets": [{"text": ..., "importance": "vital"|"okay"}]}` becomes the
suggestions shown on topic qid's nugget page, where its primary assessor accepts (as proposed or edited) or rejects
each. A topic's earlier pending suggestions are replaced; its nuggets stay. The whole file is refused, every bad line
named, for an unknown qid or a malformed line.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from pooling.management.commands._common import get_evaluation, read_file
from tracks.rag.suggestions import SuggestionError, load_suggestions


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--by", required=True, help="the organizer loading them (in the audit log)")

    def handle(self, slug, file, by, **options):
        evaluation = get_evaluation(slug)
        user = get_user_model().objects.filter(username=by).first()
        if user is None:
            raise CommandError(f"no user {by!r}")
        try:
            topics, count = load_suggestions(evaluation, read_file(file), file, user)
        except SuggestionError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{count} suggested nuggets loaded for {topics} topics of {slug}")
