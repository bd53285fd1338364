from django.core.management.base import BaseCommand

from assess import assist
from assess.management.commands._assist_common import user_named
from pooling.management.commands._common import fail_with, get_evaluation


class Command(BaseCommand):
    help = (
        "Draw the assisted-judging conditions of every pool item (docs/assist.md), per item or per topic, from a "
        "seed (a new random one, printed and recorded, if none is given). Refused once any judgment exists."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--unit", choices=["item", "topic"], default="item")
        parser.add_argument(
            "--conditions", default=",".join(assist.CONDITIONS), help="comma-separated, e.g. none,reveal_after"
        )
        parser.add_argument("--seed", type=int)
        parser.add_argument("--by", help="the organizer (for the audit log)")

    def handle(self, slug, unit, conditions, seed, by, **options):
        evaluation = get_evaluation(slug)
        try:
            design = assist.set_design(
                evaluation,
                unit=unit,
                conditions=[c.strip() for c in conditions.split(",") if c.strip()],
                seed=seed,
                by=user_named(by),
            )
        except assist.AssistError as e:
            raise fail_with(e.problems) from None
        split = ", ".join(f"{c} {n}" for c, n in assist.split_counts(evaluation).items())
        self.stdout.write(f"{slug}: conditions drawn per {design.unit} with seed {design.seed}: {split}")
