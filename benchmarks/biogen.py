"""TREC BioGen at full size: 65 topics, N runs (default 50) of 2024 answers with PubMed citations over a
collection of 5,000 abstracts. Times checking every run (the pure checker with spaCy's sentencizer, beside
json.loads alone as the paired baseline), loading them (check, store in one transaction per run) and building the
pools; then a citation judgment save against a QA instance save, both through their views in this process
(Django's test client on the same PostgreSQL database, alternated so both see the same load).

Goals (issue 15): checking and loading 50 runs x 65 topics <= 10 s; a citation save as fast as a QA save
(median ratio <= 1.2)."""

import json
import os
import random
import statistics

from benchmarks.harness import Result, Timer, peak_rss_mb, percentile, setup_django

TOPICS, DOCS = 65, 5000
WORDS = (
    "metformin statin vitamin patients risk trial reduced increased associated cohort dose therapy outcomes "
    "mortality randomized placebo adults events fracture muscle pain cardiovascular kidney insulin"
).split()


def add_arguments(parser):
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--saves", type=int, default=300, help="saves of each kind in the save comparison")


def sentence(rng, pmids):
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16)))
    return f"{words.capitalize()} [{', '.join(pmids)}]."


def run_file(tag, rng):
    results = []
    for t in range(1, TOPICS + 1):
        cited, parts = [], []
        for _ in range(rng.randint(3, 6)):
            pmids = [str(30000000 + rng.randrange(DOCS)) for _ in range(rng.randint(1, 3))]
            pmids = list(dict.fromkeys(pmids))
            cited += [p for p in pmids if p not in cited]
            parts.append(sentence(rng, pmids))
        results.append({"topic_id": str(t), "answer": " ".join(parts), "references": cited})
    return json.dumps({"team_id": tag[:-1], "run_name": tag, "contact_email": "x@example.org", "results": results})


def run(args):
    load_before = os.getloadavg()[0]  # the machine is shared: say how busy it was
    setup_django("assay_bench_biogen")
    import tempfile
    from pathlib import Path

    from django.contrib.auth.models import Group, User
    from django.test import Client

    from assess.models import Assignment
    from corpus.loading import load_collection
    from pooling.evaluations import create_evaluation
    from pooling.formats.base import CheckContext
    from pooling.models import Evaluation, PoolItem, Topic
    from pooling.pools import build_pools
    from pooling.runs import RunFile, check_context, load_run_files
    from pooling.staleness import rescoring_deferred
    from pooling.topics import load_topics
    from tracks.biogen import judging
    from tracks.biogen.formats.runs import check_run

    rng = random.Random(2024)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pubmed.jsonl"
        with path.open("w") as f:
            for n in range(DOCS):
                f.write(
                    json.dumps({"pmid": str(30000000 + n), "title": f"Study {n}", "abstract": "Text. " * 40}) + "\n"
                )
        load_collection("bench-pubmed", "pubmed", [str(path)])
    evaluation = create_evaluation("bench-biogen", judging.TRACK, ["bench-pubmed"])
    topics = "\n".join(json.dumps({"id": str(t), "question": f"Question {t}?"}) for t in range(1, TOPICS + 1))
    load_topics(evaluation, topics.encode(), "topics.jsonl")
    tags = [f"team{n:02d}a" for n in range(args.runs)]
    data = {tag: run_file(tag, rng).encode() for tag in tags}

    context = check_context(evaluation)
    pure = CheckContext(topics=context.topics, settings=context.settings, known_docids=context.known_docids)
    check_run(data[tags[0]], "warm.json", pure)  # spaCy's pipeline is built once per process
    with Timer() as parse:
        for body in data.values():
            json.loads(body)
    with Timer() as check:
        for tag, body in data.items():
            problems, _ = check_run(body, f"{tag}.json", pure)
            assert not [p for p in problems if not p.warning], problems[:3]
    # Loading asks for one rescoring at the end; without a broker it would run here, inside the timing: deferred
    # by an outer block, it is timed apart (what a worker does after the load).
    deferred = rescoring_deferred()
    deferred.__enter__()
    with Timer() as load:
        results = load_run_files(
            evaluation, [RunFile(filename=f"{tag}.json", data=body, team=tag[:-1]) for tag, body in data.items()]
        )
    with Timer() as rescore_load:
        deferred.__exit__(None, None, None)
    assert all(not r.problems for r in results), [r.problems[:3] for r in results if r.problems][:2]
    with Timer() as pools:
        build_pools(evaluation)
    items = PoolItem.objects.filter(evaluation=evaluation).count()

    # the save comparison: one assessor, BioGen citations vs TREC 2007 factoid instances
    group, _ = Group.objects.get_or_create(name="assessor")
    user = User.objects.create(username="bench-assessor")
    user.groups.add(group)
    Assignment.objects.create(
        evaluation=evaluation, topic=Topic.objects.get(evaluation=evaluation, ident="1"), assessor=user
    )
    citations = list(
        PoolItem.objects.filter(topic__evaluation=evaluation, topic__ident="1", key__startswith="c:").values_list(
            "id", flat=True
        )
    )
    qa = Evaluation.objects.create(slug="bench-qa", title="QA", track="trec2007-qa")
    series = Topic.objects.create(evaluation=qa, ident="1", kind="series")
    question = Topic.objects.create(evaluation=qa, parent=series, ident="1.1", kind="FACTOID", text="Who?")
    Assignment.objects.create(evaluation=qa, topic=series, assessor=user)
    instances = [
        PoolItem.objects.create(evaluation=qa, topic=question, key=f"D{i}\tanswer", docid=f"D{i}", text="answer").pk
        for i in range(len(citations))
    ]
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's host
    client = Client()
    client.force_login(user)
    cite_labels, qa_labels = ("supports", "neutral"), ("incorrect", "globally-correct")
    versions = {}
    cite_ms, qa_ms = [], []
    # Without a broker a save would rescore in this process; deferred, each save is timed alone and the whole
    # evaluation is rescored once at the end (timed too: what a worker does after a save).
    deferred = rescoring_deferred()
    deferred.__enter__()
    for n in range(args.saves):
        c, q = citations[n % len(citations)], instances[n % len(instances)]
        body = json.dumps({"version": versions.get(c, 0), "value": {"label": cite_labels[n // len(citations) % 2]}})
        with Timer() as t:
            r = client.post(f"/biogen/item/{c}/judge", body, content_type="application/json")
        assert r.status_code == 200, (r.status_code, r.content[:300])
        versions[c] = r.json()["version"]
        cite_ms.append(t.seconds * 1000)
        form = {"label": qa_labels[n // len(instances) % 2], "version": str(versions.get(q, 0))}
        with Timer() as t:
            r = client.post(f"/assess/item/{q}/judge", form, HTTP_HX_REQUEST="true")
        assert r.status_code == 200, r.content[:300]
        versions[q] = versions.get(q, 0) + 1
        qa_ms.append(t.seconds * 1000)
    with Timer() as rescore:
        deferred.__exit__(None, None, None)
    cite_median, qa_median = statistics.median(cite_ms), statistics.median(qa_ms)
    return [
        Result("json.loads of every run (baseline)", parse.seconds, "s"),
        Result(f"check {args.runs} runs x {TOPICS} topics (pure, spaCy)", check.seconds, "s"),
        Result(f"check and load {args.runs} runs (load_run_files)", load.seconds, "s", goal="<= 10"),
        Result("rescore after the load (a worker's job)", rescore_load.seconds, "s"),
        Result("build pools", pools.seconds, "s", extra={"items": items}),
        Result("citation save median (BioGen view)", cite_median, "ms"),
        Result("citation save p99", percentile(cite_ms, 99), "ms"),
        Result("QA instance save median (baseline)", qa_median, "ms"),
        Result("QA instance save p99", percentile(qa_ms, 99), "ms"),
        Result("citation / QA save ratio", cite_median / qa_median, "x", goal="<= 1.2"),
        Result(f"rescore the whole evaluation ({args.runs} runs, in process)", rescore.seconds, "s"),
        Result("load average before (1 min)", load_before, ""),
        Result("load average after (1 min)", os.getloadavg()[0], ""),
        Result("peak RSS", peak_rss_mb(), "MB"),
    ]
