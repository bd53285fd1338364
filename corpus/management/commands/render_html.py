import sys

from django.core.management.base import BaseCommand, CommandError

from corpus.formats import charset
from corpus.render import sanitize_html


class Command(BaseCommand):
    help = (
        "Print the HTML the viewer would serve for a raw HTML file (its charset taken from a meta tag or "
        "detected), for previews and security tests."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="an HTML file, or - for standard input")
        parser.add_argument("--allow-images", action="store_true", help="keep http(s) image sources")
        parser.add_argument("--charset", help="the charset, as an HTTP header would give it")

    def handle(self, *args, **opts):
        try:
            data = sys.stdin.buffer.read() if opts["file"] == "-" else open(opts["file"], "rb").read()
        except OSError as e:
            raise CommandError(f"{opts['file']}: {e.strerror}") from None
        name, codec, source = charset.choose(data, opts["charset"])
        self.stdout.write(sanitize_html(charset.decode(data, codec), allow_images=opts["allow_images"]))
        self.stderr.write(f"charset {name} ({source})")
