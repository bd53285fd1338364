from django.core.management.base import BaseCommand

from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation, read_file
from tracks.qa.ciqa.submissions import add_screenshot, load_url_file


class Command(BaseCommand):
    help = (
        "Load a team's ciQA URL file (lines 'tag NAME', 'screenshot URL', 'TOPIC URL' for every topic; http(s) "
        "only), optionally with screenshot images (PNG, JPEG, GIF)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--team", required=True)
        parser.add_argument("--manual", action="store_true")
        parser.add_argument(
            "--override",
            default="",
            metavar="REASON",
            help="accept a file that breaks the campaign's rules (the submission window), recording REASON in the "
            "audit log; never a problem of the file or the ciQA limits",
        )
        parser.add_argument("--screenshot", action="append", default=[], help="an image file; may be repeated")

    def handle(self, slug, file, team, manual, screenshot, **options):
        evaluation = get_evaluation(slug)
        try:
            url_file, replaced = load_url_file(
                evaluation, read_file(file), file, team, manual, override_reason=options["override"]
            )
            for image in screenshot:
                add_screenshot(url_file, read_file(image), image)
        except LoadError as exc:
            raise fail_with(exc.problems) from None
        self.stdout.write(
            f"{slug}: {'replaced' if replaced else 'loaded'} URL file {url_file.tag} of {team} "
            f"({len(url_file.urls)} topics, {len(screenshot)} screenshots added)"
        )
