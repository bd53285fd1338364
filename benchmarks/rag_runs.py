"""TREC RAG at full size: 300 topics, N answer runs (default 50: a third each of the 2024, 2025 and shared shapes,
each answer 4-8 sentences citing 1-3 of its 20 references) over a collection of 30,000 MS MARCO V2.1-shaped
segments (100 candidates a topic). Times checking every run (the pure checker with the database's docid lookup,
beside json.loads of every line alone as the paired baseline), then loading them (check, store in one transaction
per run: load_run_files, what the page, the API and `load_runs` call) and building the pools.

Goal (issue 31): load and check 50 runs x 300 topics <= 10 s.

Last measured (issue 31, 2 cores shared with six other sessions, load average 10-17): load_run_files 28-41 s wall
for 11.7-12.1 CPU seconds in all (this process 5.1-5.5 s, the two check workers 3.6 s, the database backend
2.9-3.1 s), 435,000 run entries stored; the pure check 3.0-3.3 CPU seconds (about 60 ms a run of 300 topics).
Wall time followed the neighbours' load, not the code: compare the CPU seconds."""

import cProfile
import json
import os
import random
import resource
import time
from pathlib import Path

from benchmarks.harness import Result, Timer, peak_rss_mb, setup_django

TOPICS, CANDIDATES = 300, 100
WORDS = (
    "trauma therapist exposure stress symptoms clients burnout support risk care nurses workers research "
    "studies emotional secondary empathy fatigue signs coping treatment health people often may can"
).split()


def add_arguments(parser):
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--profile", help="write a cProfile of the load to this file")


def segid(topic, n):
    return f"msmarco_v2.1_doc_{topic % 60:02d}_{topic * 1000 + n // 4}#{n % 4}_{n * 997}"


def segment_line(topic, n, rng):
    text = " ".join(rng.choice(WORDS) for _ in range(60))
    return json.dumps(
        {
            "docid": segid(topic, n),
            "url": f"https://example.org/{topic}/{n // 4}",
            "title": f"Page {topic}-{n // 4}",
            "headings": "Page",
            "segment": text,
            "start_char": 0,
            "end_char": len(text),
        }
    )


def answer(topic, rng):
    refs = [segid(topic, n) for n in rng.sample(range(CANDIDATES), 20)]
    sentences = []
    for _ in range(rng.randint(4, 8)):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 22)))
        sentences.append({"text": words.capitalize() + ".", "citations": rng.sample(range(20), rng.randint(1, 3))})
    return refs, sentences


def run_file(index, rng):
    lines = []
    shape = ("2024", "2025", "shared")[index % 3]
    run_id, team = f"team{index:02d}-run", f"team{index:02d}"
    for t in range(1, TOPICS + 1):
        refs, sentences = answer(t, rng)
        if shape == "2024":
            line = {"run_id": run_id, "topic_id": str(t), "topic": f"question {t}", "references": refs}
            line |= {"response_length": sum(len(s["text"].split()) for s in sentences), "answer": sentences}
        elif shape == "2025":
            meta = {"team_id": team, "run_id": run_id, "narrative_id": str(t), "type": "automatic"}
            line = {"metadata": meta, "references": refs, "answer": sentences}
        else:
            responses = [{"text": s["text"], "citations": [refs[i] for i in s["citations"]]} for s in sentences]
            meta = {"team_id": team, "run_id": run_id, "topic_id": str(t)}
            line = {"metadata": meta, "responses": responses, "references": refs}
        lines.append(json.dumps(line))
    return team, ("\n".join(lines) + "\n").encode()


def backend_cpu():
    """CPU seconds so far of this connection's PostgreSQL backend (same machine: /proc), or nan elsewhere."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def all_cpu():
    """CPU seconds of (this process, its finished children: the check workers, its database backend)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), children.ru_utime + children.ru_stime, backend_cpu()


def run(args):
    load_before = os.getloadavg()[0]  # the machine is shared: say how busy it was
    setup_django("assay_bench_rag")
    import tempfile

    from corpus.loading import load_collection
    from pooling.evaluations import create_evaluation
    from pooling.formats.base import CheckContext
    from pooling.models import PoolItem
    from pooling.pools import build_pools
    from pooling.runs import RunFile, check_context, load_run_files
    from pooling.staleness import rescoring_deferred
    from pooling.topics import load_topics
    from tracks.rag.formats.runs import check_run
    from tracks.rag.judging import TRACK

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "segments.jsonl"
        with path.open("w") as f:
            for t in range(1, TOPICS + 1):
                for n in range(CANDIDATES):
                    f.write(segment_line(t, n, rng) + "\n")
        load_collection("bench-marco", "msmarco-v2.1-segmented", [str(path)], search_index=False)
    evaluation = create_evaluation("bench-rag", TRACK, ["bench-marco"])
    topics = "".join(json.dumps({"id": str(t), "title": f"question {t}"}) + "\n" for t in range(1, TOPICS + 1))
    load_topics(evaluation, topics.encode(), "topics.jsonl")
    files = [run_file(i, rng) for i in range(args.runs)]
    megabytes = sum(len(data) for _, data in files) / 1e6

    context = check_context(evaluation)
    pure = CheckContext(topics=context.topics, settings=context.settings, known_docids=context.known_docids)
    with Timer() as parse:
        for _, data in files:
            for line in data.splitlines():
                json.loads(line)
    cpu = time.process_time()
    with Timer() as check:
        for i, (_, data) in enumerate(files):
            problems, parsed = check_run(data, f"run{i}.jsonl", pure)
            assert parsed is not None, [p.format(f"run{i}.jsonl") for p in problems][:3]
    check_cpu = time.process_time() - cpu
    deferred = rescoring_deferred()  # the rescoring a load asks for is a worker's job: timed apart
    deferred.__enter__()
    batch = [RunFile(filename=f"run{i}.jsonl", data=data, team=team) for i, (team, data) in enumerate(files)]
    profile = cProfile.Profile() if args.profile else None
    before = all_cpu()
    with Timer() as load:
        if profile:
            profile.enable()
        results = load_run_files(evaluation, batch)
        if profile:
            profile.disable()
            profile.dump_stats(args.profile)
    here, workers, database = (b - a for a, b in zip(before, all_cpu(), strict=True))
    assert all(not r.problems for r in results), [r.problems[:3] for r in results if r.problems][:2]
    with Timer() as rescore:
        deferred.__exit__(None, None, None)
    with Timer() as pools:
        build_pools(evaluation)
    items = PoolItem.objects.filter(evaluation=evaluation).count()
    return [
        Result(f"json.loads of every line ({megabytes:.1f} MB, baseline)", parse.seconds, "s"),
        Result(
            f"check {args.runs} runs x {TOPICS} topics (pure checker, docids from the database)", check.seconds, "s"
        ),
        Result("  its CPU in this process", check_cpu, "s"),
        Result(f"load and check {args.runs} runs x {TOPICS} topics (load_run_files)", load.seconds, "s", goal="<= 10"),
        Result("  its CPU: this process + check workers + database backend", here + workers + database, "s"),
        Result("    this process (storing, and checking what the workers gave back)", here, "s"),
        Result("    the check workers", workers, "s"),
        Result("    the database backend", database, "s"),
        Result("rescore after the load (a worker's job)", rescore.seconds, "s"),
        Result("build pools", pools.seconds, "s", extra={"items": items}),
        Result("load average before (1 min)", load_before, ""),
        Result("load average after (1 min)", os.getloadavg()[0], ""),
        Result("peak RSS", peak_rss_mb(), "MB"),
    ]
