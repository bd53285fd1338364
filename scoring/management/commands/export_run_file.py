import sys

from django.core.management.base import BaseCommand, CommandError

from core import extension_points as ep
from pooling.models import Run
from scoring.qrels import run_file_lines


class Command(BaseCommand):
    help = (
        "Write a run's ranked documents as a TREC run file (topic Q0 docno rank score tag), to score with trec_eval "
        "or ir_measures against `export_judgments SLUG --format qrels` (tracks with a ranking: BOLT, BioGen). To "
        "stdout, or to --output FILE."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("tag")
        parser.add_argument("--output", "-o")

    def handle(self, slug, tag, **options):
        run = Run.objects.filter(evaluation__slug=slug, tag=tag).select_related("evaluation").first()
        if run is None:
            raise CommandError(f"no run {tag!r} in evaluation {slug!r}")
        if ep.ranked_documents.get(run.evaluation.track) is None:
            raise CommandError(f"track {run.evaluation.track} ranks no documents: it has no run files")
        out = open(options["output"], "w", encoding="utf-8") if options["output"] else sys.stdout
        try:
            for line in run_file_lines(run):
                out.write(line)
        finally:
            if options["output"]:
                out.close()
