"""A run upload through the REST API against the same upload by `manage.py load_runs` (issue 18: "as fast as the
management command").

A TREC 2007-sized question set and --runs run files are generated as `python -m benchmarks pooling` makes them (not
timed). Each round loads every file once by the command and once by `POST /api/evaluations/SLUG/runs/` (multipart,
token authentication, through Django's full request handling in this process), alternating which goes first;
both replace the run stored by the other (same tags), so each does the same work. Reported: the median seconds
per file of each, and their ratio (goal <= 1.1: the API adds at most a tenth).
"""

import io
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Result, setup_django


def add_arguments(parser):
    parser.add_argument("--runs", type=int, default=6, help="run files (each loaded in every round)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--docs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=2007)


def run(args):
    setup_django("assay_bench_api")
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from accounts.people import ensure_user
    from api.tokens import create_token
    from benchmarks.pooling import candidate_answers, question_plan, questions_xml, run_file
    from corpus.models import Collection, Document
    from pooling.evaluations import create_evaluation
    from pooling.models import RunEntry
    from pooling.topics import load_topics

    rng = random.Random(args.seed)
    plan = question_plan(70, 515, 85)
    docnos = [f"BENCH-{i:08d}" for i in range(args.docs)]
    candidates = candidate_answers(plan, docnos, args.seed)
    collection = Collection.objects.create(name="bench-qa", format="blog06")
    Document.objects.bulk_create([Document(collection=collection, docno=d, raw=b"") for d in docnos], batch_size=5000)
    evaluation = create_evaluation("bench-api", "trec2007-qa", ["bench-qa"])
    load_topics(evaluation, questions_xml(plan), "questions.xml")
    ensure_user("bench-organizer", "organizer", "a-long-benchmark-password-1")
    client = APIClient(SERVER_NAME="localhost")  # an allowed host of the settings
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(User.objects.get(username='bench-organizer'))}")

    tmp = Path(tempfile.mkdtemp(prefix="assay-bench-api-"))
    paths = []
    for r in range(args.runs):
        tag = f"team{r:02d}run1"
        path = tmp / f"{tag}.txt"
        path.write_bytes(run_file(tag, plan, candidates, rng))
        paths.append(path)

    def by_command(path):
        call_command("load_runs", "bench-api", str(path), "--team", path.name[:6], "--priority", "1", verbosity=0)

    def by_api(path):
        f = io.BytesIO(path.read_bytes())
        f.name = path.name
        r = client.post(
            "/api/evaluations/bench-api/runs/", {"files": [f], "team": path.name[:6], "priority": 1}, format="multipart"
        )
        assert r.status_code == 201, r.content[:500]

    times = {"command": [], "api": []}
    for rnd in range(args.rounds):
        for i, path in enumerate(paths):
            order = [("command", by_command), ("api", by_api)]
            if (rnd + i) % 2:
                order.reverse()
            for name, load in order:
                t = time.perf_counter()
                load(path)
                times[name].append(time.perf_counter() - t)
    lines = RunEntry.objects.filter(run__evaluation=evaluation).count() // max(1, args.runs)
    command, api = statistics.median(times["command"]), statistics.median(times["api"])
    load = os.getloadavg()
    return [
        Result("run upload by the API (median per file)", api, "s", "", f"{lines} lines a file, token auth"),
        Result("run upload by load_runs (baseline)", command, "s", "", f"{len(times['command'])} loads"),
        Result("API / command", api / command, "ratio", "<= 1.1", f"{args.rounds} rounds, order alternating"),
        Result("load average (1 min)", load[0], "", "", f"5 min {load[1]:.2f}", {"loadavg": load}),
    ]
