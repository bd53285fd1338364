from django.core.management.base import BaseCommand

from assess import assist
from assess.formats.suggestion_files import SuggestionFileError, parse_grades
from assess.management.commands._assist_common import user_named
from pooling.management.commands._common import fail_with, get_evaluation, read_file


class Command(BaseCommand):
    help = (
        "Load machine suggestions from a file (docs/assist.md): Assay JSON Lines, graded qrels (UMBRELA; give "
        "--kind and --grades 0=...,1=...) or a nuggetizer assignments file. All or nothing; every problem is named "
        "FILE:LINE."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--format", choices=assist.FORMATS, default="jsonl")
        parser.add_argument("--kind", help="qrels: the judgment kind whose labels the grades become")
        parser.add_argument("--grades", help="qrels: GRADE=LABEL,..., e.g. 0=no,1=maybe,2=yes")
        parser.add_argument("--by", help="the organizer loading it")

    def handle(self, slug, file, format, kind, grades, by, **options):
        evaluation = get_evaluation(slug)
        try:
            mapping = parse_grades(grades) if grades else None
            stored = assist.load_suggestions(
                evaluation, format, read_file(file), file, kind=kind, grades=mapping, by=user_named(by)
            )
        except SuggestionFileError as e:
            raise fail_with(e.problems) from None
        except assist.AssistError as e:
            raise fail_with(e.problems) from None
        self.stdout.write(f"{slug}: {len(stored)} suggestions stored from {file}")
