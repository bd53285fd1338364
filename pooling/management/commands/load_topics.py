from django.core.management.base import BaseCommand

from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation, read_file
from pooling.topics import load_top_docs, load_topics


class Command(BaseCommand):
    help = (
        "Load an evaluation's questions (series) with its track's topic format; nothing is loaded when the file "
        "has any problem. With --top-docs, load NIST's per-target top-documents lists (qnum rank docid rsv)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--top-docs", action="store_true", help="FILE is a top-documents list")

    def handle(self, slug, file, top_docs, **options):
        evaluation = get_evaluation(slug)
        data = read_file(file)
        try:
            if top_docs:
                n = load_top_docs(evaluation, data, file)
                self.stdout.write(f"{slug}: {n} ranked documents loaded from {file}")
            else:
                n = load_topics(evaluation, data, file)
                self.stdout.write(f"{slug}: {n} series and questions loaded from {file}")
        except LoadError as exc:
            raise fail_with(exc.problems) from None
