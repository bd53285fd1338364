from django.core.management.base import BaseCommand

from core.tracks import TRACKS
from pooling.evaluations import LoadError, create_evaluation
from pooling.management.commands._common import fail_with
from pooling.management.commands.update_evaluation import add_settings_arguments, settings_from_options


class Command(BaseCommand):
    help = "Create an evaluation of a track over one or more collections; settings start from the track's defaults."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--track", required=True, choices=sorted(TRACKS))
        parser.add_argument(
            "--collection",
            action="append",
            default=[],
            dest="collections",
            metavar="NAME",
            help="a corpus collection name; repeat for several",
        )
        parser.add_argument("--title", default="")
        add_settings_arguments(parser)

    def handle(self, slug, track, collections, title, **options):
        try:
            evaluation = create_evaluation(slug, track, collections, title, settings_from_options(options, track))
        except LoadError as exc:
            raise fail_with(exc.problems) from None
        self.stdout.write(
            f"created {evaluation.slug} ({evaluation.track}) over "
            f"{', '.join(collections) or 'no collection'}; settings {evaluation.settings}"
        )
