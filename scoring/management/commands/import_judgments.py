from django.core.management.base import BaseCommand, CommandError

from pooling.models import Evaluation
from scoring.judgments_jsonl import ImportFailed, import_jsonl


class Command(BaseCommand):
    help = (
        "Load judgments exported by export_judgments into an evaluation with the same questions and pools. "
        "All or nothing: a bad line is named (FILE:LINE) and nothing is stored; a record repeating an "
        "earlier one's id (or judging the same thing again) names both lines."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")

    def handle(self, slug, file, **options):
        evaluation = Evaluation.objects.filter(slug=slug).first()
        if evaluation is None:
            raise CommandError(f"no evaluation with slug {slug!r}")
        try:
            with open(file, encoding="utf-8") as fh:
                counts = import_jsonl(evaluation, fh, filename=file)
        except OSError as e:
            raise CommandError(f"{file}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise CommandError(f"{file}: not UTF-8 ({e.reason})") from None
        except ImportFailed as e:
            raise CommandError(str(e)) from None
        self.stdout.write(f"{slug}: imported " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
