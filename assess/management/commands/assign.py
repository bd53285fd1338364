from django.core.management.base import BaseCommand

from assess.assignments import assign, unassign
from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation


class Command(BaseCommand):
    help = (
        "Assign a series to an assessor (primary, or --second for double judging); --remove to take it back. An "
        "assessor of a team with runs in the series' pool is warned of, or refused when the evaluation's setting "
        "assessor_conflicts is 'refuse'."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("series", help="series (target) id, e.g. 1001")
        parser.add_argument("assessor", nargs="?", help="assessor's username")
        parser.add_argument("--second", action="store_true", help="the second assessor (double judging)")
        parser.add_argument("--remove", action="store_true")

    def handle(self, slug, series, assessor, second, remove, **options):
        evaluation = get_evaluation(slug)
        role = "second" if second else "primary"
        if remove:
            n = unassign(evaluation, series, second)
            self.stdout.write(f"{slug} series {series}: {role} assessor removed ({n})")
            return
        if not assessor:
            raise fail_with(["give the assessor's username (or --remove)"])
        try:
            assignment = assign(evaluation, series, assessor, second)
        except LoadError as exc:
            raise fail_with(exc.problems) from None
        self.stdout.write(f"{slug} series {series}: {assessor} is the {role} assessor")
        for warning in assignment.warnings:
            self.stdout.write(self.style.WARNING(f"Warning: {warning}."))
