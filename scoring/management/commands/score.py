import json

from django.core.management.base import BaseCommand, CommandError

from pooling.models import Evaluation
from scoring.formats.trec import RESULT_SHAPES, write_results
from scoring.rescore import freshness, rescore_evaluation
from scoring.results import evaluation_judging, result_rows, score_tree


def _fmt(value):
    return "–" if value is None else f"{value:.4f}"


def _series_values(stored):
    """A series' headline score; a group scored only by its measures (a QA4MRE topic's c@1) shows those."""
    if "score" in stored:
        return _fmt(stored["score"])
    return "  ".join(f"{m}={_fmt(v)}" for m, v in sorted(stored.items()) if m != "detail") or "–"


class Command(BaseCommand):
    help = (
        "Print an evaluation's stored scores per run, per series and per question (--json: keyed by run tag, "
        "series id and question id; --format trec_eval|ir_measures|4col: an IR tool's result file, docs/formats.md). "
        "--rescore recomputes everything first."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--json", action="store_true")
        parser.add_argument(
            "--format",
            choices=RESULT_SHAPES,
            help="the stored scores as an IR tool's result file: trec_eval -q, ir_measures or 4-column",
        )
        parser.add_argument("--rescore", action="store_true", help="recompute all scores first (in this process)")

    def handle(self, slug, rescore=False, **options):
        as_json = options["json"]
        evaluation = Evaluation.objects.filter(slug=slug).first()
        if evaluation is None:
            raise CommandError(f"no evaluation with slug {slug!r}")
        if rescore:
            rescore_evaluation(evaluation.id)
        if options.get("format"):
            try:
                self.stdout.write("".join(write_results(result_rows(evaluation), options["format"])), ending="")
            except ValueError as error:  # a run tag or measure name with white space in it
                raise CommandError(str(error)) from None
            return
        tree = score_tree(evaluation)
        fresh = freshness(evaluation)
        judging = evaluation_judging(evaluation)
        if as_json:
            out = {
                "evaluation": slug,
                "track": evaluation.track,
                "fresh_as_of": fresh["fresh_as_of"].isoformat() if fresh["fresh_as_of"] else None,
                "stale_questions": fresh["stale_questions"],
                "judging": judging.as_dict(),
                "runs": tree,
            }
            self.stdout.write(json.dumps(out, indent=1, sort_keys=True))
            return
        self.stdout.write(
            f"{evaluation.slug} ({evaluation.track}); fresh as of {fresh['fresh_as_of'] or 'never'}; "
            f"{fresh['stale_questions']} questions stale; {judging.describe()}; judging "
            f"{'complete' if judging.complete else 'incomplete: scores provisional'}"
        )
        for tag, node in tree.items():
            measures = "  ".join(f"{m}={_fmt(v)}" for m, v in sorted(node["run"].items()))
            self.stdout.write(f"\n{tag} ({node['team']}): {measures or 'not scored'}")
            for sid, s in node["series"].items():
                self.stdout.write(f"  series {sid}: {_series_values(s)}")
            for qid, s in node["questions"].items():
                self.stdout.write(f"    {qid}: {_fmt(s.get('score'))}")
