"""A TREC RAG support save against a QA instance save, both through their views in this process (Django's test
client on the same PostgreSQL database, alternated so both see the same load), over a RAG evaluation of N answer
runs (default 20) x T topics (default 100) in the 2024 shape citing a collection of 3,000 MS MARCO V2.1-shaped
segments. The judging benchmark (`judging`) measures saves over HTTP with a worker; this one is the paired
in-process comparison BioGen's benchmark makes for its citations.

Goal (issue 31): a support save as fast as a QA save (median ratio <= 1.2)."""

import json
import os
import random
import statistics

from benchmarks.harness import Result, Timer, peak_rss_mb, percentile, setup_django

SEGMENTS = 3000
WORDS = "caffeine sleep leaves autumn compost soil adenosine chlorophyll nutrients garden study effect".split()


def add_arguments(parser):
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--saves", type=int, default=300, help="saves of each kind in the comparison")


def segid(n):
    return f"msmarco_v2.1_doc_00_{n // 10}#{n % 10}_{(n % 10) * 400}"


def run_file(tag, topics, rng):
    lines = []
    for t in range(1, topics + 1):
        refs = list(dict.fromkeys(segid(rng.randrange(SEGMENTS)) for _ in range(rng.randint(3, 8))))
        answer = [
            {"text": " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + ".",
             "citations": sorted(rng.sample(range(len(refs)), rng.randint(1, min(2, len(refs)))))}
            for _ in range(rng.randint(3, 6))
        ]  # fmt: skip
        lines.append(json.dumps({"run_id": tag, "topic_id": str(t), "topic": f"topic {t}", "references": refs,
                                 "response_length": 0, "answer": answer}))  # fmt: skip
    return ("\n".join(lines) + "\n").encode()


def run(args):
    load_before = os.getloadavg()[0]  # the machine is shared: say how busy it was
    setup_django("assay_bench_rag_support")
    import tempfile
    from pathlib import Path

    from django.conf import settings
    from django.contrib.auth.models import Group, User
    from django.test import Client

    from assess.models import Assignment
    from corpus.loading import load_collection
    from pooling.evaluations import create_evaluation
    from pooling.models import Evaluation, PoolItem, Topic
    from pooling.pools import build_pools
    from pooling.runs import RunFile, load_run_files
    from pooling.staleness import rescoring_deferred
    from pooling.topics import load_topics
    from tracks.rag import judging

    rng = random.Random(2024)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "segments.jsonl"
        with path.open("w") as f:
            for n in range(SEGMENTS):
                record = {"docid": segid(n), "url": "https://example.org", "title": f"Page {n // 10}",
                          "headings": "", "segment": "Text. " * 40, "start_char": 0, "end_char": 240}  # fmt: skip
                f.write(json.dumps(record) + "\n")
        load_collection("bench-segments", "msmarco-v2.1-segmented", [str(path)])
    evaluation = create_evaluation("bench-rag", judging.TRACK, ["bench-segments"])
    topics = "\n".join(json.dumps({"id": str(t), "title": f"Topic {t}"}) for t in range(1, args.topics + 1))
    load_topics(evaluation, topics.encode(), "topics.jsonl")
    with rescoring_deferred():
        files = [RunFile(f"team{n:02d}.jsonl", run_file(f"team{n:02d}", args.topics, rng), f"team{n:02d}")
                 for n in range(args.runs)]  # fmt: skip
        assert all(not r.problems for r in load_run_files(evaluation, files))
        build_pools(evaluation)

    group, _ = Group.objects.get_or_create(name="assessor")
    user = User.objects.create(username="bench-assessor")
    user.groups.add(group)
    topic = Topic.objects.get(evaluation=evaluation, ident="1")
    Assignment.objects.create(evaluation=evaluation, topic=topic, assessor=user)
    support = list(PoolItem.objects.filter(topic=topic, key__startswith="p:").values_list("id", flat=True))
    qa = Evaluation.objects.create(slug="bench-qa", title="QA", track="trec2007-qa")
    series = Topic.objects.create(evaluation=qa, ident="1", kind="series")
    question = Topic.objects.create(evaluation=qa, parent=series, ident="1.1", kind="FACTOID", text="Who?")
    Assignment.objects.create(evaluation=qa, topic=series, assessor=user)
    instances = [
        PoolItem.objects.create(evaluation=qa, topic=question, key=f"D{i}\tanswer", docid=f"D{i}", text="answer").pk
        for i in range(len(support))
    ]
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's host
    client = Client()
    client.force_login(user)
    support_labels, qa_labels = ("full_support", "partial_support"), ("incorrect", "globally-correct")
    versions, support_ms, qa_ms = {}, [], []
    # Without a broker a save would rescore in this process; deferred, each save is timed alone and the whole
    # evaluation is rescored once at the end (timed too: what a worker does after a save).
    deferred = rescoring_deferred()
    deferred.__enter__()
    for n in range(args.saves):
        s, q = support[n % len(support)], instances[n % len(instances)]
        value = {"label": support_labels[n // len(support) % 2], "nuggets": {}}
        body = json.dumps({"version": versions.get(s, 0), "value": value})
        with Timer() as t:
            r = client.post(f"/rag/item/{s}/judge", body, content_type="application/json")
        assert r.status_code == 200, (r.status_code, r.content[:300])
        versions[s] = r.json()["version"]
        support_ms.append(t.seconds * 1000)
        form = {"label": qa_labels[n // len(instances) % 2], "version": str(versions.get(q, 0))}
        with Timer() as t:
            r = client.post(f"/assess/item/{q}/judge", form, HTTP_HX_REQUEST="true")
        assert r.status_code == 200, r.content[:300]
        versions[q] = versions.get(q, 0) + 1
        qa_ms.append(t.seconds * 1000)
    with Timer() as rescore:
        deferred.__exit__(None, None, None)
    support_median, qa_median = statistics.median(support_ms), statistics.median(qa_ms)
    return [
        Result("support save median (RAG view)", support_median, "ms", extra={"support_items": len(support)}),
        Result("support save p99", percentile(support_ms, 99), "ms"),
        Result("QA instance save median (baseline)", qa_median, "ms"),
        Result("QA instance save p99", percentile(qa_ms, 99), "ms"),
        Result("support / QA save ratio", support_median / qa_median, "x", goal="<= 1.2"),
        Result(f"rescore the whole evaluation ({args.runs} runs x {args.topics} topics)", rescore.seconds, "s"),
        Result("load average before (1 min)", load_before, ""),
        Result("load average after (1 min)", os.getloadavg()[0], ""),
        Result("peak RSS", peak_rss_mb(), "MB"),
    ]
