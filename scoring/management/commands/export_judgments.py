import sys

from django.core.management.base import BaseCommand, CommandError

from pooling.models import Evaluation
from scoring.judgments_jsonl import export_jsonl
from scoring.registry import get_exports


class Command(BaseCommand):
    help = (
        "Write an evaluation's judgments: Assay's lossless JSON Lines (default), or a format of its track's own "
        "(QA: NIST's, --format list|nuggets|matches). To stdout, or to --output FILE."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", default="jsonl")
        parser.add_argument("--output", "-o")

    def handle(self, slug, **options):
        evaluation = Evaluation.objects.filter(slug=slug).first()
        if evaluation is None:
            raise CommandError(f"no evaluation with slug {slug!r}")
        writers = {"jsonl": export_jsonl} | {e.kind: e.writer for e in get_exports(evaluation)[0]}
        if options["format"] not in writers:
            raise CommandError(
                f"no {options['format']!r} export for track {evaluation.track}; choose from "
                f"{', '.join(sorted(writers))}"
            )
        out = open(options["output"], "w", encoding="utf-8") if options["output"] else sys.stdout
        try:
            for line in writers[options["format"]](evaluation):
                out.write(line)
        finally:
            if options["output"]:
                out.close()
