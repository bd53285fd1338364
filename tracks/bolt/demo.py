"""The demo's small BOLT IR evaluation: three forum threads with quotes and entities, two topics, three citation
runs from two teams (with near-duplicates from quoted posts), a grouping run, pools built and topics assigned
(topic 1.001 double-judged). Idempotent: files and runs load again as no-ops, assignments are reused."""

from pathlib import Path

from django.contrib.auth import get_user_model

from assess.models import Assignment
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.models import Evaluation
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tracks.bolt import judging

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "bolt"
COLLECTION = "bolt-demo-forum"
SLUG = "bolt-demo"
RUNS = [
    ("alpha1.xml", "Team Alpha"),
    ("alpha2.xml", "Team Alpha"),
    ("beta1.xml", "Team Beta"),
    ("alpha1-groups.xml", "Team Alpha"),
]


def load_bolt_demo(out):
    report = load_collection(
        COLLECTION,
        "bolt-forum",
        [FIXTURES / "forum.xml"],
        description="Demo: BOLT forum threads about the Cairo metro and a charity, with quotes.",
    )
    out(f"Collection {COLLECTION}: {report.inserted} new, {report.already_present} already present")
    evaluation = Evaluation.objects.filter(slug=SLUG).first()
    if evaluation is None:
        evaluation = create_evaluation(SLUG, judging.TRACK, [COLLECTION], title="BOLT IR phase 2 demo")
    load_topics(evaluation, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    files = [RunFile(filename=name, data=(FIXTURES / name).read_bytes(), team=team, priority=1) for name, team in RUNS]
    for result in load_run_files(evaluation, files) if evaluation.state == Evaluation.OPEN else []:  # frozen later
        for line in result.problems:
            out(f"  {line}")
    totals = build_pools(evaluation)
    out(f"BOLT demo {SLUG}: {len(files)} runs, pools {totals['created']} new / {totals['kept']} kept")
    users = get_user_model().objects
    topics = {t.ident: t for t in judging.bolt_topics(evaluation)}
    plan = [
        ("1.001", "assessor", Assignment.PRIMARY),
        ("1.001", "assessor2", Assignment.SECONDARY),
        ("1.002", "assessor2", Assignment.PRIMARY),
    ]
    for ident, username, role in plan:
        user = users.filter(username=username).first()
        if user is not None and ident in topics:
            Assignment.objects.get_or_create(
                evaluation=evaluation, topic=topics[ident], role=role, defaults={"assessor": user}
            )
    organizer = users.filter(username="organizer").first()
    if organizer is not None:
        judging.import_topic_citations(evaluation, organizer)
    out(
        "  assessor judges topic 1.001 (assessor2 second), assessor2 judges 1.002; "
        "export: .venv/bin/python manage.py bolt_export bolt-demo alpha1"
    )
