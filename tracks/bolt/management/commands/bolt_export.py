import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from pooling.management.commands._common import get_evaluation
from tracks.bolt import judging
from tracks.bolt.formats.export import validate_export


class Command(BaseCommand):
    help = (
        "Export the assessed citations of BOLT citation runs in the seed's DTD form (rel, chksrc, trans, "
        "relspan elements, pooling ids), each validated against the DTD. One run to stdout, or every run "
        "(or the named ones) as RUN.xml files into --out."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("runs", nargs="*", metavar="RUN", help="run tags (default: every citation run)")
        parser.add_argument("--out", help="directory for RUN.xml files")

    def handle(self, slug, runs, out, **options):
        evaluation = get_evaluation(slug)
        if evaluation.track != judging.TRACK:
            raise CommandError(f"{slug} is not a {judging.TRACK} evaluation")
        chosen = judging.runs_of(evaluation)
        if runs:
            known = {r.tag: r for r in chosen}
            missing = [t for t in runs if t not in known]
            if missing:
                raise CommandError(f"no citation run {', '.join(missing)} in {slug}")
            chosen = [known[t] for t in runs]
        if not out and len(chosen) != 1:
            raise CommandError("give one run to write to stdout, or --out DIR for several")
        for run in chosen:
            xml = judging.export_run(run)
            problems = validate_export(xml)
            if problems:
                raise CommandError("\n".join(p.format(f"{run.tag}.xml") for p in problems))
            if out:
                path = Path(out) / f"{run.tag}.xml"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(xml)
                self.stderr.write(f"{path}: valid against bolt-ir-cite-schema.dtd")
            else:
                sys.stdout.buffer.write(xml)
