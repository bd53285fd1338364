"""The demo's small BioGen evaluation: 24 PubMed abstracts, 3 topics, Team Alpha's run and Team Beta's two (one
refused with its check report, one loaded), pools built, topics assigned (topic 1 double-judged), topic 1 judged
by its primary assessor and partly by the second one, scored and the reports released to both teams.
Idempotent: files and runs load again as no-ops, assignments and judgments are reused."""

from pathlib import Path

from django.contrib.auth import get_user_model

from accounts.models import Team
from assess.models import Assignment, Judgment
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.models import Evaluation
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from scoring.release import ever_released, release
from scoring.rescore import rescore_evaluation
from tracks.biogen import judging

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "biogen"
COLLECTION = "biogen-demo-pubmed"
SLUG = "biogen-demo"
RUNS = [("alpha-run1.json", "Team Alpha"), ("beta-run1-bad.json", "Team Beta"), ("beta-run2.json", "Team Beta")]
PLAN = [("1", "assessor", Assignment.PRIMARY), ("1", "assessor2", Assignment.SECONDARY),
        ("2", "assessor", Assignment.PRIMARY), ("3", "assessor2", Assignment.PRIMARY)]  # fmt: skip


def _label(item, second=False):
    """A plausible judgment of a demo item; the second assessor differs on a few, for the adjudication queue."""
    kind, text = item.data.get("kind"), item.text
    if kind == "answer":
        return "accurate" if "cures" not in text else "not_accurate"
    if kind == "sentence":
        if "cures" in text or "all fractures" in text:
            return "inappropriate"
        if second and "tolerated" in text:
            return "required"
        return "unnecessary" if "tolerated" in text else "required"
    if item.docid in ("31000102",):
        return "supports" if second else "contradicts"
    return "neutral" if item.docid == "31000106" else "supports"


def load_biogen_demo(out):
    report = load_collection(
        COLLECTION, "pubmed", [FIXTURES / "pubmed.jsonl"],
        description="Demo: PubMed abstracts on metformin, vitamin D and statins (BioGen).",
    )  # fmt: skip
    out(f"Collection {COLLECTION}: {report.inserted} new, {report.already_present} already present")
    evaluation = Evaluation.objects.filter(slug=SLUG).first()
    if evaluation is None:
        evaluation = create_evaluation(SLUG, judging.TRACK, [COLLECTION], title="TREC BioGen 2024 demo")
    load_topics(evaluation, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    files = [RunFile(filename=name, data=(FIXTURES / name).read_bytes(), team=team) for name, team in RUNS]
    for result in load_run_files(evaluation, files) if evaluation.state == Evaluation.OPEN else []:  # frozen later
        if result.problems:  # the demo's bad run, there to show a check report
            out(f"  {result.filename} refused, as intended (it shows the check report):")
            for line in result.problems:
                out(f"    {line}")
    totals = build_pools(evaluation)
    out(f"BioGen demo {SLUG}: pools {totals['created']} new / {totals['kept']} kept")
    users = {u.username: u for u in get_user_model().objects.filter(username__in=[p[1] for p in PLAN])}
    topics = {t.ident: t for t in evaluation.topics.all()}
    for ident, username, role in PLAN:
        if username in users and ident in topics:
            Assignment.objects.get_or_create(
                evaluation=evaluation, topic=topics[ident], assessor=users[username], defaults={"role": role}
            )
    if "assessor" in users and "1" in topics:
        _judge(users["assessor"], judging.topic_items(topics["1"]), second=False)
    if "assessor2" in users and "1" in topics:
        _judge(users["assessor2"], judging.topic_items(topics["1"])[:8], second=True)
    rescore_evaluation(evaluation.id)
    if not ever_released(evaluation):
        for team in Team.objects.filter(runs__evaluation=evaluation).distinct():
            release(evaluation, team, by="demo")
    out("  assessor judged topic 1 (assessor2 second, partly), topic 2 open; assessor2 has topic 3; reports released")


def _judge(user, items, second):
    done = set(Judgment.objects.filter(assessor=user, item__in=items).values_list("item_id", flat=True))
    for item in items:
        if item.pk not in done:
            judging.judge_item(user, item, {"label": _label(item, second), "evidence": []}, 0)
