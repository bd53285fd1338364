from django.core.management.base import BaseCommand, CommandError

from corpus import viewer
from corpus.models import Document


class Command(BaseCommand):
    help = "Print a stored document as the viewer renders it (the frame's HTML), optionally with marks."

    def add_arguments(self, parser):
        parser.add_argument("name", help="collection name")
        parser.add_argument("docno")
        parser.add_argument("--mark", action="append", default=[], help="a string to highlight (repeatable)")
        parser.add_argument(
            "--span",
            action="append",
            default=[],
            metavar="POST:OFFSET:LENGTH",
            help="a BOLT citation span to highlight (repeatable)",
        )
        parser.add_argument("--allow-images", action="store_true")
        parser.add_argument("--text", action="store_true", help="print the stored viewable text instead")

    def handle(self, *args, **opts):
        doc = (
            Document.objects.select_related("collection")
            .filter(collection__name=opts["name"], docno=opts["docno"])
            .first()
        )
        if doc is None:
            raise CommandError(f"no document {opts['docno']!r} in collection {opts['name']!r}")
        if opts["text"]:
            self.stdout.write(doc.text)
            return
        html, count = viewer.frame_html(
            doc, marks=opts["mark"], spans=viewer.parse_spans(opts["span"]), allow_images=opts["allow_images"]
        )
        self.stdout.write(html)
        if opts["mark"] or opts["span"]:
            self.stderr.write(f"{count} mark(s)")
