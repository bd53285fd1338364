from django.core.management.base import BaseCommand

from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation
from pooling.models import Run
from tracks.qa.ciqa.baseline import baseline_interaction, make_final_run


class Command(BaseCommand):
    help = (
        "Make a loaded run the sentence-retrieval baseline (its interaction: relevant / not relevant / no opinion "
        "per sentence); with --final TAG, store the baseline's final run: the sentences judged not relevant removed."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("run")
        parser.add_argument("--final", default="", help="tag of the final run to make from the judgments")

    def handle(self, slug, run, final, **options):
        evaluation = get_evaluation(slug)
        baseline = Run.objects.filter(evaluation=evaluation, tag=run).first()
        if baseline is None:
            raise fail_with([f"{slug} has no run {run!r}"])
        try:
            url_file = baseline_interaction(evaluation, baseline)
            self.stdout.write(f"{slug}: {run} is the baseline; interaction {url_file.tag}")
            if final:
                final_run, removed = make_final_run(evaluation, baseline, final)
                self.stdout.write(f"{slug}: final run {final_run.tag}: {removed} sentences judged not relevant removed")
        except LoadError as exc:
            raise fail_with(exc.problems) from None
