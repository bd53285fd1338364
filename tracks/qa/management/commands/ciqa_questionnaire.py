from django.core.management.base import BaseCommand

from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation, read_file
from tracks.qa.ciqa import questionnaire
from tracks.qa.formats.ciqa_questionnaire import as_text


class Command(BaseCommand):
    help = (
        "The ciQA exit questionnaire: --define FILE sets its questions ([interaction]/[overall] sections, "
        "'scale ID | QUESTION | LEFT | RIGHT', 'text ID | QUESTION'); --csv writes every answer as CSV; "
        "--summary prints the mean ratings per interaction; with no option, prints the definition."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--define")
        parser.add_argument("--csv", action="store_true")
        parser.add_argument("--summary", action="store_true")

    def handle(self, slug, define, csv, summary, **options):
        evaluation = get_evaluation(slug)
        if define:
            try:
                questionnaire.set_definition(evaluation, read_file(define).decode("utf-8", "replace"), define)
            except LoadError as exc:
                raise fail_with(exc.problems) from None
            self.stdout.write(f"{slug}: questionnaire defined from {define}")
        if csv:
            self.stdout.write(questionnaire.csv_text(evaluation), ending="")
        if summary:
            scales, rows = questionnaire.summary(evaluation)
            self.stdout.write("interaction\t" + "\t".join(q["id"] for q in scales))
            for url_file, means in rows:
                cells = [
                    f"{means[q['id']][0]:.2f} (n={means[q['id']][1]})" if q["id"] in means else "-" for q in scales
                ]
                self.stdout.write(url_file.tag + "\t" + "\t".join(cells))
        if not (define or csv or summary):
            self.stdout.write(as_text(questionnaire.definition(evaluation)), ending="")
