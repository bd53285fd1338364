import json

from django.core.management.base import BaseCommand, CommandError

from pooling.models import Evaluation
from scoring import rankings


def _num(value, digits=4):
    return "–" if value is None else f"{value:.{digits}f}"


class Command(BaseCommand):
    help = (
        "The runs' rankings under every reading of the judgments (official, primary assessors only, second "
        "assessors, each judgment set) with Kendall's tau, tau_AP and top-k overlap between them, and each run's "
        "rank interval and bounds for unjudged answers, as the rescoring worker last stored them. --refresh "
        "recomputes them now (the board's 'as of' moves). A track with run groups (TREC RAG: answer and retrieval "
        "runs) is ranked group by group, each line naming its group."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--refresh", action="store_true", help="recompute now instead of reading the stored ones")
        parser.add_argument("--json", action="store_true")

    def handle(self, slug, **options):
        evaluation = Evaluation.objects.filter(slug=slug).first()
        if evaluation is None:
            raise CommandError(f"no evaluation with slug {slug!r}")
        if options["refresh"]:
            rankings.refresh(evaluation.pk)
        shown = rankings.present(evaluation)
        if shown is None:
            raise CommandError(f"no rankings of {slug} yet: run it with --refresh, or wait for the rescoring worker")
        if options["json"]:
            self.stdout.write(json.dumps(shown, default=str, indent=1))
            return
        self.stdout.write(f"Rankings of {slug} as of {shown['as_of']:%Y-%m-%d %H:%M:%S}")
        grouped = bool(shown["groups"])  # one ranking per run group (the track scores each on its own measure)
        lead = "runs compared | " if grouped else ""
        self.stdout.write(f"{lead}reading | against | runs | tau | tau_AP | top-k overlap")
        for p in shown["headline"]:
            self.stdout.write(
                (f"{p['group']} | " if grouped else "")
                + f"{p['b_label']} | {p['a_label']} | {p['runs']} | {_num(p['tau'], 3)} | {_num(p['tau_ap'], 3)} | "
                f"{_num(p['top_k'], 3)} (k={p['k']})"
            )
        self.stdout.write("")
        self.stdout.write(f"{lead}rank | run | score | rank interval | if unjudged wrong | if unjudged right | judged")
        for row in shown["robustness"]["runs"]:
            interval = "–" if not row["interval"] else f"{row['interval'][0]}-{row['interval'][1]}"
            self.stdout.write(
                (f"{row['group']} | " if grouped else "")
                + f"{row['rank'] or '–'} | {row['tag']} | {_num(row['score'])} | {interval} | {_num(row['worst'])} | "
                f"{_num(row['best'])} | {_num(row['judged'], 3)}"
            )
