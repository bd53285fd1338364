"""Load and check QA runs over a TREC 2007-sized question set, then build the pools.

Defaults follow TREC 2007: 70 series, 515 questions (360 factoid, 85 list, 70 Other), 50 runs (25 teams,
priorities 1 and 2, all judged), answer strings of realistic lengths (factoids ~15, list items ~20, Other
nuggets ~150 characters). Files are generated into a temporary folder first (not timed). Goal: <= 20 s for
loading and checking all runs plus building the pools. The baseline is the pure checker alone on the same files
(docids looked up in a Python set), so `ratio` shows what the database adds.
"""

import random
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Result, Timer, peak_rss_mb, setup_django

WORDS = (
    "opinion market senator company election museum record film phone reason people growth policy team "
    "island station report energy science music history airline council treaty bridge"
).split()


def add_arguments(parser):
    parser.add_argument("--series", type=int, default=70)
    parser.add_argument("--questions", type=int, default=515, help="questions in all (incl. one Other per series)")
    parser.add_argument("--lists", type=int, default=85)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--docs", type=int, default=20000, help="documents in the scratch collection")
    parser.add_argument("--seed", type=int, default=2007)


def question_plan(n_series, n_questions, n_lists):
    """[(series id, [(qid, type), ...])] with one Other last in each series, lists spread evenly."""
    per_series = [1] * n_series  # the Other question
    rest = n_questions - n_series
    for i in range(rest):
        per_series[i % n_series] += 1
    lists_left = n_lists
    plan = []
    for s in range(n_series):
        sid = str(216 + s)
        n = per_series[s] - 1
        n_list = min(n, -(-lists_left // (n_series - s))) if lists_left else 0
        lists_left -= n_list
        types = ["FACTOID"] * (n - n_list) + ["LIST"] * n_list
        questions = [(f"{sid}.{i + 1}", t) for i, t in enumerate(types)] + [(f"{sid}.{n + 1}", "OTHER")]
        plan.append((sid, questions))
    return plan


def questions_xml(plan):
    parts = ['<trecqa year="2007" task="main">']
    for sid, questions in plan:
        parts.append(f'<target id="{sid}" text="target {sid}">')
        parts += [f'<qa><q id="{qid}" type="{t}">Question {qid}?</q></qa>' for qid, t in questions]
        parts.append("</target>")
    parts.append("</trecqa>")
    return "\n".join(parts).encode()


def phrase(rng, n_words):
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def candidate_answers(plan, docnos, seed):
    """Per question, the answers all systems draw from (so runs overlap as real ones do)."""
    rng = random.Random(seed)
    out = {}
    for _, questions in plan:
        for qid, t in questions:
            # pools of real runs overlap little on Other and list questions (many distinct strings)
            n, words = {"FACTOID": (20, 2), "LIST": (80, 3), "OTHER": (400, 22)}[t]
            out[qid] = [
                (rng.choice(docnos), phrase(rng, rng.randint(max(1, words // 2), words + words // 2))) for _ in range(n)
            ]
    return out


def run_file(tag, plan, candidates, rng):
    lines = []
    for _, questions in plan:
        for qid, t in questions:
            if t == "FACTOID":
                picks = [("NIL", "")] if rng.random() < 0.05 else [rng.choice(candidates[qid])]
            elif t == "LIST":
                picks = rng.sample(candidates[qid], rng.randint(3, 15))
            else:
                picks = rng.sample(candidates[qid], rng.randint(8, 25))
            for docid, answer in picks:
                lines.append(f"{qid} {tag} {docid} {answer}".rstrip())
    return ("\n".join(lines) + "\n").encode()


def run(args):
    setup_django("assay_bench_pooling")
    from corpus.models import Collection, Document
    from pooling.evaluations import create_evaluation, effective_settings
    from pooling.formats.base import CheckContext
    from pooling.models import PoolItem, RunEntry
    from pooling.pools import build_pools
    from pooling.runs import RunFile, load_run_files
    from pooling.topics import answerable_topics, load_topics
    from tracks.qa.formats.runs import check_run

    rng = random.Random(args.seed)
    plan = question_plan(args.series, args.questions, args.lists)
    docnos = [f"BENCH-{i:08d}" for i in range(args.docs)]
    candidates = candidate_answers(plan, docnos, args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="assay-bench-pooling-"))
    (tmp / "questions.xml").write_bytes(questions_xml(plan))
    paths = []
    for r in range(args.runs):
        tag = f"team{r // 2:02d}run{r % 2 + 1}"
        path = tmp / f"{tag}.txt"
        path.write_bytes(run_file(tag, plan, candidates, rng))
        paths.append(path)

    collection = Collection.objects.create(name="bench-qa", format="blog06")
    Document.objects.bulk_create([Document(collection=collection, docno=d, raw=b"") for d in docnos], batch_size=5000)
    evaluation = create_evaluation("bench-trec2007", "trec2007-qa", ["bench-qa"])

    with Timer() as t_topics:
        load_topics(evaluation, (tmp / "questions.xml").read_bytes(), "questions.xml")

    # Baseline: the pure checker on the same files, documents looked up in memory.
    known = set(docnos)
    context = CheckContext(
        topics=answerable_topics(evaluation),
        settings=effective_settings(evaluation),
        known_docids=lambda ids: ids & known,
    )
    with Timer() as t_pure:
        for path in paths:
            problems, _ = check_run(path.read_bytes(), path.name, context)
            assert not problems, problems[:3]

    files = [RunFile(filename=p.name, data=p.read_bytes(), team=p.name.split("run")[0]) for p in paths]
    started = time.perf_counter()
    with Timer() as t_load:
        results = load_run_files(evaluation, files)
    failed = [r for r in results if r.problems]
    assert not failed, failed[0].problems[:3]
    with Timer() as t_pool:
        totals = build_pools(evaluation)
    total = time.perf_counter() - started + t_topics.seconds
    lines = RunEntry.objects.filter(run__evaluation=evaluation).count()
    items = PoolItem.objects.filter(evaluation=evaluation).count()
    with Timer() as t_rebuild:
        build_pools(evaluation)  # nothing new: every item is found again by key

    size = f"{args.runs} runs, {args.questions} questions, {lines} lines"
    return [
        Result("total (topics + check/load runs + pools)", total, "s", "<= 20", size),
        Result("check + load runs", t_load.seconds, "s", notes=f"{lines / t_load.seconds:.0f} lines/s"),
        Result("  rows/s check + load", lines / t_load.seconds, "rows/s"),
        Result("  baseline: pure checker only", t_pure.seconds, "s"),
        Result("  ratio load / pure check", t_load.seconds / t_pure.seconds, "x"),
        Result("build pools", t_pool.seconds, "s", notes=f"{items} items, {totals['links']} links"),
        Result("  rows/s pooled", lines / t_pool.seconds, "rows/s"),
        Result("rebuild pools (no change)", t_rebuild.seconds, "s"),
        Result("pool items", items, "items"),
        Result("peak memory", peak_rss_mb(), "MB"),
    ]
