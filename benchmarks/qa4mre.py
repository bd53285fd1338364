"""QA4MRE 2012 at full size: 4 topics x 4 reading tests x 10 questions (160 questions), N runs (default 40, about
the English runs of 2012). Times the pure checker (beside lxml parsing alone, as a ratio), loading a run (check,
store and score in one transaction), loading the gold standard (rescoring every run) and building a report."""

import random
import statistics

from lxml import etree

from benchmarks.harness import Result, Timer, peak_rss_mb, setup_django

TOPICS, TESTS, QUESTIONS = 4, 4, 10


def add_arguments(parser):
    parser.add_argument("--runs", type=int, default=40, help="runs to load (10 per team at most)")


def test_set(gold=None):
    lines = ["<test-set>"]
    for t in range(1, TOPICS + 1):
        lines.append(f'<topic t_id="{t}" t_name="Topic {t}">')
        for r in range(1, TESTS + 1):
            rid = (t - 1) * TESTS + r
            lines.append(
                f'<reading-test r_id="{rid}"><doc d_id="{rid}">' + "Some text of the document. " * 400 + "</doc>"
            )
            for q in range(1, QUESTIONS + 1):
                lines.append(f'<question q_id="{q}"><q_str>Question {q}?</q_str>')
                for a in range(1, 6):
                    mark = ' correct="Yes"' if gold and gold.get(f"{t}.{rid}.{q}") == a else ""
                    lines.append(f'<answer a_id="{a}"{mark}>answer {a}</answer>')
                lines.append("</question>")
            lines.append("</reading-test>")
        lines.append("</topic>")
    lines.append("</test-set>")
    return "\n".join(lines).encode()


def run_file(run_id, rng):
    lines = [f'<output run_id="{run_id}">']
    for t in range(1, TOPICS + 1):
        lines.append(f'<topic t_id="{t}">')
        for r in range(1, TESTS + 1):
            lines.append(f'<reading-test r_id="{(t - 1) * TESTS + r}">')
            for q in range(1, QUESTIONS + 1):
                kind = rng.random()
                if kind < 0.7:
                    lines.append(f'<question q_id="{q}" answered="YES"><answer a_id="{rng.randint(1, 5)}"/></question>')
                elif kind < 0.85:
                    lines.append(f'<question q_id="{q}" answered="NO"><answer a_id="{rng.randint(1, 5)}"/></question>')
                else:
                    lines.append(f'<question q_id="{q}" answered="NO"/>')
            lines.append("</reading-test>")
        lines.append("</topic>")
    lines.append("</output>")
    return "\n".join(lines).encode()


def run(args):
    setup_django("assay_bench_qa4mre")
    from pooling.evaluations import create_evaluation
    from pooling.formats.base import CheckContext
    from pooling.models import Run
    from pooling.runs import RunFile, load_run_files
    from pooling.topics import load_topics
    from scoring.models import Score
    from tracks.qa4mre.formats.run import check_run
    from tracks.qa4mre.loading import load_gold
    from tracks.qa4mre.report import run_report

    rng = random.Random(2012)
    evaluation = create_evaluation("bench-qa4mre", "qa4mre-2012")
    load_topics(evaluation, test_set(), "test_set.xml")
    teams = [f"{chr(97 + i)}eam" for i in range((args.runs + 9) // 10)]
    files = [(team, f"{team}12{n:02d}1enen") for team in teams for n in range(1, 11)][: args.runs]
    data = {tag: run_file(tag, rng) for _, tag in files}

    from pooling.runs import check_context

    context = check_context(evaluation)
    topics = dict(context.topics)
    parse_ms, check_ms = [], []
    for tag, body in data.items():
        with Timer() as t:
            etree.fromstring(body)
        parse_ms.append(t.seconds * 1000)
        with Timer() as t:
            problems, _ = check_run(body, f"{tag}.xml", CheckContext(topics=topics, settings={}))
        assert not problems, problems[:3]
        check_ms.append(t.seconds * 1000)

    questions = [i for i, k in topics.items() if k == "question"]
    gold = {q: rng.randint(1, 5) for q in questions}
    load_gold(evaluation, test_set(gold), "gold.xml")  # scored on load from here on

    load_ms = []
    for team, tag in files:
        with Timer() as t:
            [result] = load_run_files(evaluation, [RunFile(filename=f"{tag}.xml", data=data[tag], team=team)])
        assert not result.problems, result.problems[:3]
        load_ms.append(t.seconds * 1000)
    with Timer() as gold_timer:
        load_gold(evaluation, test_set(gold), "gold.xml")
    rows = Score.objects.filter(run__evaluation=evaluation).count()
    report_ms = []
    for run_obj in Run.objects.filter(evaluation=evaluation)[:10]:
        with Timer() as t:
            run_report(run_obj)
        report_ms.append(t.seconds * 1000)

    check_median, parse_median = statistics.median(check_ms), statistics.median(parse_ms)
    return [
        Result("check_run median (160 questions)", check_median, "ms"),
        Result("lxml parse alone median (baseline)", parse_median, "ms"),
        Result("check / parse ratio", check_median / parse_median, "x", notes="cost of checking beyond parsing"),
        Result("load one run median (check+store+score)", statistics.median(load_ms), "ms", goal="<= 1000"),
        Result("load one run max", max(load_ms), "ms"),
        Result(
            f"load_gold with {len(files)} runs (rescore all)",
            gold_timer.seconds,
            "s",
            goal="<= 10",
            extra={"score_rows": rows},
        ),
        Result("run report median", statistics.median(report_ms), "ms", goal="<= 1000"),
        Result("peak RSS", peak_rss_mb(), "MB"),
    ]
