"""A run's report as its page builds it (scoring.reports.build_report and report_status: every table, note and the
difference plot) for a QA run of a TREC 2007-sized evaluation (70 series, 515 questions, 51 runs, all judged and
scored), and of one `--scale` times larger in series and questions. The baseline of the same run is reading that
run's own stored rows with their details, the least a report can read; the ratio says what the comparison with the
other runs, the notes and the pool counts add. Goal (issue 32's spirit: what a participant waits for): the report
in at most 0.5 s at TREC 2007's size.

History: before the report read only its own run's details (issue 32), it decoded every run's JSON details to use
one run's: 425-451 ms at 1x and 4.5-4.8 s at 10x against 138-144 ms and 1.2-1.3 s after (two alternations, load
average 1.0-1.2, CPU probe 0.25 s)."""

import os

from benchmarks.harness import Result, median_seconds, setup_django


def add_arguments(parser):
    parser.add_argument("--scale", type=int, default=10, help="the larger evaluation: series and questions times this")
    parser.add_argument("--repeat", type=int, default=7, help="timings taken per size; the median is reported")
    parser.add_argument("--reuse", action="store_true", help="keep the database and evaluations of an earlier run")


def _evaluation(scale):
    from django.db import connection

    from pooling.models import Evaluation
    from scoring.rescore import rescore_evaluation
    from tracks.qa.synthetic import trec2007_sized

    slug = f"bench-report-x{scale}"
    ev = Evaluation.objects.filter(slug=slug).first()
    if ev is None:
        ev = trec2007_sized(slug=slug, series=70 * scale, questions=515 * scale, runs=51)
        rescore_evaluation(ev.pk)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # (as autovacuum would have by now)
    return ev


def run(args):
    setup_django("assay_bench_reports", fresh=not args.reuse)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from benchmarks.judging import cpu_probe
    from pooling.models import Run
    from scoring.models import Score
    from scoring.reports import build_report, report_status

    probe, results = cpu_probe(), []
    for scale in sorted({1, args.scale}):
        ev = _evaluation(scale)
        run_id = Run.objects.filter(evaluation=ev).order_by("tag").values_list("id", flat=True).first()

        def report(run_id=run_id):
            run = Run.objects.select_related("evaluation", "team").get(pk=run_id)
            return build_report(run), report_status(run)

        def own_rows(run_id=run_id):
            rows = Score.objects.filter(run_id=run_id).values_list("scope", "topic_id", "measure", "value", "detail")
            return list(rows)

        with CaptureQueriesContext(connection) as queries:
            report()  # (counted, and untimed: it fills Django's and PostgreSQL's caches)
        took = median_seconds(report, args.repeat)
        base = median_seconds(own_rows, args.repeat, warm=True)
        load = os.getloadavg()[0]
        tag = f"{scale}x ({70 * scale} series, {515 * scale} questions, 51 runs)"
        results += [
            Result(f"{tag}: report and status", took, "s", "<= 0.5" if scale == 1 else "", f"load {load:.2f}"),
            Result(f"{tag}: baseline, the run's own rows read", base, "s", notes=f"{len(own_rows())} rows"),
            Result(f"{tag}: ratio report / baseline", took / base if base else float("inf"), "x"),
            Result(f"{tag}: queries", len(queries), "count"),
        ]
    return results + [Result("CPU probe", probe, "s"), Result("load average (1 min)", os.getloadavg()[0], "")]
