import os
import sys

from django.core.management.base import BaseCommand, CommandError

from corpus.formats import format_names
from corpus.loading import load_collection, read_docnos, wanted_from_runs


class Command(BaseCommand):
    help = (
        "Load collection files (gzip or plain) into collection NAME. Idempotent: documents already stored are "
        "left alone. Bad records are skipped and listed at the end. A file that decompresses to more than "
        "the setting CORPUS_MAX_FILE_BYTES (default 2 GiB) or holds a record longer than "
        "CORPUS_MAX_RECORD_BYTES (default 64 MiB) refuses the whole load (exit status 1): what it had stored "
        "is removed again. --only-cited RUN_FILE… loads only what the runs would have judged (for a collection too "
        "large to load whole: MS MARCO V2.1 segments), scanning every shard but storing only those documents."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("paths", nargs="+", metavar="PATH")
        parser.add_argument("--format", required=True, choices=format_names())
        parser.add_argument("--docnos", metavar="FILE", help="load only the docnos listed in FILE (one per line)")
        parser.add_argument(
            "--only-cited",
            nargs="+",
            metavar="RUN_FILE",
            help="load only the documents these run files name: those they cite or rank within the pool depth with "
            "their neighbours, the others alone (formats that read runs: msmarco-v2.1-segmented)",
        )
        parser.add_argument(
            "--neighbours",
            type=int,
            metavar="K",
            help="with --only-cited: also the segments of the same document numbered within ±K of a cited one "
            "(default: the format's, 1 for msmarco-v2.1-segmented; 0 for none)",
        )
        parser.add_argument(
            "--pool-depth",
            type=int,
            metavar="D",
            help="with --only-cited: the ranks of a retrieval run that are pooled (default: the format's, 20)",
        )
        parser.add_argument(
            "--workers", type=int, default=min(2, os.cpu_count() or 1), help="parsing processes (default: up to 2)"
        )
        parser.add_argument("--description", default="")
        parser.add_argument(
            "--search",
            choices=["now", "later", "none"],
            default="now",
            help="full-text index: with the load (now, default: each batch's entries are written with its documents "
            "on PostgreSQL, anything left unindexed is built at the end), hand it to a worker (later: the Celery "
            "task corpus.build_search_index, progress on the collection), or not at all (none; `search_index` "
            "builds it)",
        )

    def handle(self, *args, **opts):
        if opts["docnos"] and opts["only_cited"]:
            raise CommandError("--docnos and --only-cited each say what to load: give one of them")
        if (opts["neighbours"] is not None or opts["pool_depth"] is not None) and not opts["only_cited"]:
            raise CommandError("--neighbours and --pool-depth go with --only-cited")
        if opts["neighbours"] is not None and opts["neighbours"] < 0:
            raise CommandError("--neighbours must be 0 or more")
        if opts["pool_depth"] is not None and opts["pool_depth"] < 1:
            raise CommandError("--pool-depth must be 1 or more")
        wanted = read_docnos(opts["docnos"]) if opts["docnos"] else None
        if opts["only_cited"]:
            try:
                wanted = wanted_from_runs(
                    opts["format"], opts["only_cited"], neighbours=opts["neighbours"], pool_depth=opts["pool_depth"]
                )
            except (ValueError, FileNotFoundError) as e:
                raise CommandError(str(e)) from None
            self.stdout.write(f"{len(wanted)} document(s) named by {len(opts['only_cited'])} run file(s)")
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
            f"{len(r.bad)} bad"
            + (f", {r.not_wanted} not {'wanted' if opts['only_cited'] else 'in the docno list'}" if wanted else "")
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
                f"{len(r.missing)} {'named' if opts['only_cited'] else 'listed'} docno(s) not found: "
                + " ".join(r.missing[:20])
                + (" ..." if len(r.missing) > 20 else "")
            )
        if r.bad:
            self.stdout.write("Bad records (skipped):")
            for b in r.bad:
                self.stdout.write("  " + b.format())
