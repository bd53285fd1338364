import os
import sys

from django.core.management.base import BaseCommand, CommandError

from corpus.formats import FORMAT_MODULES
from corpus.loading import load_collection, read_docnos


class Command(BaseCommand):
    help = (
        "Load collection files (gzip or plain) into collection NAME. Idempotent: documents already stored are "
        "left alone. Bad records are skipped and listed at the end. A file that decompresses to more than "
        "the setting CORPUS_MAX_FILE_BYTES (default 2 GiB) or holds a record longer than "
        "CORPUS_MAX_RECORD_BYTES (default 64 MiB) refuses the whole load (exit status 1): what it had stored "
        "is removed again."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("paths", nargs="+", metavar="PATH")
        parser.add_argument("--format", required=True, choices=sorted(FORMAT_MODULES))
        parser.add_argument("--docnos", metavar="FILE", help="load only the docnos listed in FILE (one per line)")
        parser.add_argument(
            "--workers", type=int, default=min(2, os.cpu_count() or 1), help="parsing processes (default: up to 2)"
        )
        parser.add_argument("--description", default="")
        parser.add_argument(
            "--search",
            choices=["now", "later", "none"],
            default="now",
            help="full-text index: build it after loading (now, default), hand it to a worker (later: the Celery "
            "task corpus.build_search_index, progress on the collection), or not at all (none; `search_index` "
            "builds it)",
        )

    def handle(self, *args, **opts):
        wanted = read_docnos(opts["docnos"]) if opts["docnos"] else None
        err = self.stderr
        tty = sys.stderr.isatty()

        last = [0.0]

        def progress(r):
            if r.seconds - last[0] < 1.0:  # at most one progress line a second
                return
            last[0] = r.seconds
            line = f"{r.files} file(s)  {r.seen} docs  {r.inserted} new  {len(r.bad)} bad  {r.rate:,.0f} docs/s"
            err.write(("\r" + line) if tty else line, ending="" if tty else "\n")
            err.flush()

        try:
            r = load_collection(
                opts["name"],
                opts["format"],
                opts["paths"],
                docnos=wanted,
                workers=max(1, opts["workers"]),
                progress=progress,
                description=opts["description"],
                search_index=opts["search"] == "now",
            )
        except (ValueError, FileNotFoundError) as e:
            raise CommandError(str(e)) from None
        if tty:
            err.write("")
        self.stdout.write(
            f"{r.collection}: {r.seen} records read from {r.files} file(s) in {r.seconds:.1f} s "
            f"({r.rate:,.0f} docs/s): {r.inserted} new, {r.already_present} already present, "
            f"{len(r.bad)} bad" + (f", {r.not_wanted} not in the docno list" if wanted else "")
        )
        if opts["search"] == "now":
            self.stdout.write(f"search index built in {r.index_seconds:.1f} s")
        elif opts["search"] == "later":
            from config.celery import run_here_or_send
            from corpus.models import Collection
            from corpus.tasks import build_search_index_task

            collection = Collection.objects.get(name=r.collection)
            Collection.objects.filter(pk=collection.pk).update(search_status="queued")
            run_here_or_send(build_search_index_task, collection.pk)
            self.stdout.write("search index build queued (see `search_index --status`)")
        if r.missing:
            self.stdout.write(
                f"{len(r.missing)} listed docno(s) not found: "
                + " ".join(r.missing[:20])
                + (" ..." if len(r.missing) > 20 else "")
            )
        if r.bad:
            self.stdout.write("Bad records (skipped):")
            for b in r.bad:
                self.stdout.write("  " + b.format())
