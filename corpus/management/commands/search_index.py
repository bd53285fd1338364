from django.core.management.base import BaseCommand, CommandError

from corpus.models import Collection
from corpus.search import SearchError, build_index, check_language, drop_index


class Command(BaseCommand):
    help = (
        "Build the full-text search index of collection NAME (the documents not indexed yet; idempotent), "
        "optionally setting its text search configuration first (--language; changing it rebuilds the index), "
        "or show where the builds stand (--status)."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", nargs="?")
        parser.add_argument("--language", help="PostgreSQL text search configuration (english, simple, ...)")
        parser.add_argument("--status", action="store_true", help="list each collection's index state")

    def handle(self, *args, name=None, language=None, status=False, **opts):
        if status or not name:
            for c in Collection.objects.all():
                self.stdout.write(
                    f"{c.name}: {c.search_status or 'not built'} {c.search_done}/{c.search_total} ({c.search_language})"
                )
            return
        collection = Collection.objects.filter(name=name).first()
        if collection is None:
            raise CommandError(f"no collection {name!r}")
        try:
            if language and language != collection.search_language:
                check_language(language)
                collection.search_language = language
                collection.save(update_fields=["search_language"])
                drop_index(collection)
            n = build_index(
                collection, progress=lambda done, total: self.stderr.write(f"{done}/{total} documents indexed")
            )
        except SearchError as e:
            raise CommandError(str(e)) from None
        self.stdout.write(f"{collection.name}: {n} document(s) indexed")
