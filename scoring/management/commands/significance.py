import json

from django.core.management.base import BaseCommand, CommandError

from config import params
from pooling.models import Evaluation
from scoring.measures import randomization
from scoring.results import UnknownGroup, significance_of


class Command(BaseCommand):
    help = (
        "Two-way ANOVA (run, series) of the judged runs' per-series scores and Tukey's HSD letter table "
        "(runs sharing a letter are not significantly different). --best-per-team: only each team's best "
        "judged run, as TREC overviews compare them. Then the paired two-sided randomization test of every pair of "
        "runs (--permutations, --seed; p-values not corrected for multiple comparisons). Warns while judging is "
        "incomplete."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--alpha", type=float, default=0.05)
        parser.add_argument(
            "--best-per-team", action="store_true", help="only the judged run with the highest score of each team"
        )
        parser.add_argument(
            "--permutations",
            default=randomization.DEFAULT_PERMUTATIONS,
            help=f"sign patterns drawn for the randomization test (1 to {randomization.MAX_PERMUTATIONS}; all of "
            f"them, exactly, when a pair's 2^series is no more; default {randomization.DEFAULT_PERMUTATIONS})",
        )
        parser.add_argument(
            "--seed", default=randomization.DEFAULT_SEED, help=f"its seed (default {randomization.DEFAULT_SEED})"
        )
        parser.add_argument("--group", help="the run group to compare (a track's run groups, e.g. TREC RAG's)")
        parser.add_argument("--json", action="store_true")

    def handle(self, slug, **options):
        evaluation = Evaluation.objects.filter(slug=slug).first()
        if evaluation is None:
            raise CommandError(f"no evaluation with slug {slug!r}")
        try:
            permutations = params.integer(
                options["permutations"], "--permutations", minimum=1, maximum=randomization.MAX_PERMUTATIONS
            )
            seed = params.integer(options["seed"], "--seed")
        except params.BadParameter as e:
            raise CommandError(str(e)) from None
        try:
            analysis = significance_of(
                evaluation,
                alpha=options["alpha"],
                best_per_team=options["best_per_team"],
                permutations=permutations,
                seed=seed,
                group=options["group"],
            )
        except UnknownGroup as e:
            raise CommandError(str(e)) from None
        result, teams = analysis.result, analysis.teams
        if result is None:
            raise CommandError(f"not enough scored runs and series (at least two of each) among {analysis.over}")
        if options["json"]:
            self.stdout.write(json.dumps(analysis.as_dict(), indent=1))
            return
        if analysis.warning:
            self.stderr.write(f"WARNING: {analysis.warning}")
        self.stdout.write(f"Over {analysis.over}: {', '.join(analysis.runs)}")
        self.stdout.write(
            f"MSE {result.mse:.5f}  df {result.df_error}  q {result.q:.3f}  HSD {result.hsd:.4f}  "
            f"(p for runs {result.p_run:.3g}, {result.n_series} series)"
        )
        for run, mean, letters in result.runs:
            self.stdout.write(f"{run:<20} {teams.get(run, ''):<30} {mean:.4f}  {letters}")
        test = analysis.randomization
        self.stdout.write(
            f"Paired two-sided randomization test: {test.permutations} permutations, seed {test.seed}, "
            f"significant at p <= {analysis.alpha} (not corrected for multiple comparisons)"
        )
        for pair in test.pairs:
            self.stdout.write(
                f"{pair.a:<20} {pair.b:<20} {pair.n_series:>4} series  diff {pair.mean_difference:+.4f}  "
                f"p {pair.p:.4g}{' (exact)' if pair.exact else ''}  {'*' if analysis.significant(pair) else ''}"
            )
