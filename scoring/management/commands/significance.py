import json

from django.core.management.base import BaseCommand, CommandError

from pooling.models import Evaluation
from scoring.results import significance_of


class Command(BaseCommand):
    help = "Two-way ANOVA (run, series) of the judged runs' per-series scores and Tukey's HSD letter table " \
           "(runs sharing a letter are not significantly different)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--alpha", type=float, default=0.05)
        parser.add_argument("--json", action="store_true")

    def handle(self, slug, **options):
        evaluation = Evaluation.objects.filter(slug=slug).first()
        if evaluation is None:
            raise CommandError(f"no evaluation with slug {slug!r}")
        result, teams = significance_of(evaluation, alpha=options["alpha"])
        if result is None:
            raise CommandError("not enough scored runs and series (at least two of each)")
        if options["json"]:
            self.stdout.write(json.dumps({
                "mse": result.mse, "df_error": result.df_error, "q": result.q, "hsd": result.hsd,
                "p_run": result.p_run, "series": result.n_series, "anova": result.anova,
                "runs": [{"run": r, "team": teams.get(r), "mean": m, "letters": ltr} for r, m, ltr in result.runs]},
                indent=1))
            return
        self.stdout.write(f"MSE {result.mse:.5f}  df {result.df_error}  q {result.q:.3f}  HSD {result.hsd:.4f}  "
                          f"(p for runs {result.p_run:.3g}, {result.n_series} series)")
        for run, mean, letters in result.runs:
            self.stdout.write(f"{run:<20} {teams.get(run, ''):<30} {mean:.4f}  {letters}")
