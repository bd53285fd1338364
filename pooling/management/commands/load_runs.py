import os
import sys

from django.core.management.base import BaseCommand, CommandError

from pooling.evaluations import LoadError
from pooling.management.commands._common import fail_with, get_evaluation, read_file
from pooling.runs import RunFile, load_run_files, parse_manifest


class Command(BaseCommand):
    help = (
        "Check and load run files. Team and priority come from --team/--priority (priority defaults to the run "
        "tag's last digit) or from a --manifest with lines 'FILE TEAM PRIORITY [automatic|manual] "
        "[whole|partial]'. Each file that passes loads in one transaction and replaces an earlier run of its "
        "tag; a file with problems loads nothing. Exit status 1 when any file failed."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--team", help="team name (created when missing)")
        parser.add_argument("--priority", type=int)
        parser.add_argument("--manual", action="store_true", help="the runs are manual (default: automatic)")
        parser.add_argument(
            "--partial-collection",
            action="store_true",
            help="the runs searched only part of the collection (e.g. NIST's top documents)",
        )
        parser.add_argument("--manifest", help="file giving team and priority for each run file")
        parser.add_argument("--description", default="", help="the manual processing of manual runs")
        parser.add_argument("--kind", default="", choices=["", "initial", "final"], help="ciQA: initial or final run")
        parser.add_argument("--initial-tag", default="", help="ciQA: the initial run of a final run")
        parser.add_argument(
            "--override",
            default="",
            metavar="REASON",
            help="accept runs that break the track's submission rules (not its format), recording REASON in the "
            "audit log",
        )

    def handle(self, slug, files, team, priority, manual, partial_collection, manifest, **options):
        evaluation = get_evaluation(slug)
        rows = {}
        if manifest:
            try:
                rows = parse_manifest(read_file(manifest), manifest)
            except LoadError as exc:
                raise fail_with(exc.problems) from None
        elif not team:
            raise CommandError("give --team (and --priority, or run tags ending in the priority) or --manifest")
        run_files = []
        for path in files:
            row = rows.get(path) or rows.get(os.path.basename(path))
            if manifest and row is None:
                raise CommandError(f"{path} is not in the manifest {manifest}")
            row = row or {
                "team": team,
                "priority": priority,
                "manual": manual,
                "whole_collection": not partial_collection,
            }
            run_files.append(
                RunFile(
                    filename=path,
                    data=read_file(path),
                    description=options["description"],
                    kind=options["kind"],
                    initial_tag=options["initial_tag"],
                    **row,
                )
            )
        failed = False
        for result in load_run_files(evaluation, run_files, override_reason=options["override"]):
            if result.problems:
                failed = True
                for line in result.problems:
                    self.stdout.write(line)
                self.stderr.write(f"{result.filename}: NOT loaded")
            else:
                run = result.run
                self.stdout.write(
                    f"{result.filename}: {'replaced' if result.replaced else 'loaded'} run {run.tag} "
                    f"of {run.team.name}, priority {run.priority}, {run.data.get('lines')} lines, "
                    f"sha256 {result.submission.sha256}"
                    + (f" (rules overridden: {', '.join(result.overridden)})" if result.overridden else "")
                )
        if failed:
            sys.exit(1)
