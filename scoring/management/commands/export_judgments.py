import sys

from django.core.management.base import BaseCommand, CommandError

from pooling.models import Evaluation
from scoring import exports

WRITERS = {"jsonl": exports.export_jsonl, "list": exports.nist_list_judgments, "nuggets": exports.nist_nuggets,
           "matches": exports.nist_nugget_matches}


class Command(BaseCommand):
    help = "Write an evaluation's judgments: Assay's lossless JSON Lines (default), or a NIST format " \
           "(--format list|nuggets|matches). To stdout, or to --output FILE."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", choices=sorted(WRITERS), default="jsonl")
        parser.add_argument("--output", "-o")

    def handle(self, slug, **options):
        evaluation = Evaluation.objects.filter(slug=slug).first()
        if evaluation is None:
            raise CommandError(f"no evaluation with slug {slug!r}")
        out = open(options["output"], "w", encoding="utf-8") if options["output"] else sys.stdout
        try:
            for line in WRITERS[options["format"]](evaluation):
                out.write(line)
        finally:
            if options["output"]:
                out.close()
