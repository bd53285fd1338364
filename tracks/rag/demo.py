"""The demo's small TREC RAG evaluation: 300 MS MARCO V2.1-shaped segments, 3 topics (two 2024 titles, one 2025
narrative), answer runs of the 2024, 2025 and shared shapes and a retrieval run, pools built, topics assigned
(2024-145 double-judged), machine-proposed nuggets loaded; topic 2024-145 judged whole by its primary assessor
(relevance, support segment by segment, nuggets taken from the suggestions, assignments) and partly by the second,
2024-212's relevance graded; scored and the reports released to both teams. Two machine judgment sets beside the
assessors (issue 29; provenance "demo machine judge"): UMBRELA-style grades of every pooled segment and nuggetizer
assignments of the judged topic's answers, drawn deterministically from the demo's own grades with every fourth
label moved one step, so the agreement and the rankings under each set show numbers.
Idempotent: files and runs load again as no-ops, assignments, nuggets, judgments and sets are reused."""

import json
from pathlib import Path

from django.contrib.auth import get_user_model

from accounts.models import Team
from assess.models import Assignment, Judgment, Nugget
from corpus.loading import load_collection
from corpus.models import Document
from pooling.evaluations import create_evaluation
from pooling.models import Evaluation, PoolItem
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from scoring import agreement_store, judgment_sets, rankings
from scoring.models import JudgmentSet
from scoring.release import ever_released, release
from scoring.rescore import rescore_evaluation
from tracks.rag import exports, judging
from tracks.rag.suggestions import load_suggestions

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "rag"
COLLECTION = "rag-demo-segments"
SLUG = "rag-demo"
RUNS = [("alpha-2024.jsonl", "Team Alpha"), ("beta-2025.jsonl", "Team Beta"), ("beta-shared.jsonl", "Team Beta"),
        ("alpha-r.txt", "Team Alpha")]  # fmt: skip
PLAN = [("2024-145", "assessor", Assignment.PRIMARY), ("2024-145", "assessor2", Assignment.SECONDARY),
        ("2024-212", "assessor", Assignment.PRIMARY), ("2025-31", "assessor2", Assignment.PRIMARY)]  # fmt: skip


def words(text):
    return {w.strip(".,;:()").lower() for w in text.split() if len(w.strip(".,;:()")) > 3}


def overlap(a, b):
    """Share of the content words of `a` found in `b`: the demo's stand-in for an assessor's reading."""
    mine = words(a)
    return len(mine & words(b)) / len(mine) if mine else 0.0


def grade(docid):
    """The demo's relevance: a topic's first document perfectly relevant, its second highly, its third related;
    the filler pages irrelevant."""
    doc = int(docid.split("#")[0].rsplit("_", 1)[1]) - 1000
    return "0" if doc >= 9 else ("3", "2", "1")[doc % 3]


def support(sentence, segment):
    share = overlap(sentence, segment)
    return "full_support" if share >= 0.5 else "partial_support" if share >= 0.25 else "no_support"


def assignment(nugget, answer):
    share = overlap(nugget, answer)
    return "support" if share >= 0.5 else "partial_support" if share >= 0.25 else "not_support"


def load_rag_demo(out):
    report = load_collection(
        COLLECTION, "msmarco-v2.1-segmented", [FIXTURES / "segments.jsonl"],
        description="Demo: 300 segments in MS MARCO V2.1 shape (caffeine, autumn leaves, composting, filler).",
    )  # fmt: skip
    out(f"Collection {COLLECTION}: {report.inserted} new, {report.already_present} already present")
    evaluation = Evaluation.objects.filter(slug=SLUG).first()
    if evaluation is None:
        evaluation = create_evaluation(SLUG, judging.TRACK, [COLLECTION], title="TREC RAG 2024/2025 demo")
    load_topics(evaluation, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    files = [RunFile(filename=name, data=(FIXTURES / name).read_bytes(), team=team) for name, team in RUNS]
    for result in load_run_files(evaluation, files) if evaluation.state == Evaluation.OPEN else []:  # frozen later
        if result.problems:
            out(f"  {result.filename} refused:")
            for line in result.problems:
                out(f"    {line}")
    totals = build_pools(evaluation)
    out(f"RAG demo {SLUG}: pools {totals['created']} new / {totals['kept']} kept")
    users = {u.username: u for u in get_user_model().objects.filter(username__in=[p[1] for p in PLAN])}
    topics = {t.ident: t for t in evaluation.topics.all()}
    for ident, username, role in PLAN:
        if username in users and ident in topics:
            Assignment.objects.get_or_create(
                evaluation=evaluation, topic=topics[ident], assessor=users[username], defaults={"role": role}
            )
    if not any(judging.suggestions(t) or Nugget.objects.filter(topic=t).exists() for t in topics.values()):
        load_suggestions(
            evaluation, (FIXTURES / "nuggets-suggested.jsonl").read_bytes(), "nuggets-suggested.jsonl", None
        )
        topics = {t.ident: t for t in evaluation.topics.all()}  # with their suggestions
    texts = dict(Document.objects.filter(collection__name=COLLECTION).values_list("docno", "text"))
    if "assessor" in users and "2024-145" in topics:
        _judge_topic(users["assessor"], topics["2024-145"], texts)
        _judge(users["assessor"], judging.topic_items(topics["2024-212"], "relevance"), texts)
    if "assessor2" in users and "2024-145" in topics:
        _judge(users["assessor2"], judging.topic_items(topics["2024-145"])[:6], texts, second=True)
    rescore_evaluation(evaluation.id)
    _machine_sets(evaluation, out)
    if not ever_released(evaluation):
        for team in Team.objects.filter(runs__evaluation=evaluation).distinct():
            release(evaluation, team, by="demo")
    out("  assessor judged topic 2024-145 (assessor2 second, partly) and graded 2024-212; reports released")


def _value(item, texts, nuggets, second=False):
    kind = judging.item_kind(item.key)
    if kind == "relevance":
        label = grade(item.docid)
        return {"label": "2" if second and label == "3" else label, "nuggets": {}}  # the second is stricter
    if kind == "support":
        return {"label": support(item.text, texts.get(item.docid, "")), "nuggets": {}}
    return {"label": "assigned", "nuggets": {str(n.pk): assignment(n.text, item.text) for n, _ in nuggets}}


def _judge_topic(user, topic, texts):
    """The primary's whole topic: relevance and support first, then the nuggets from the suggestions (the third
    edited, the last rejected), then each answer's assignment."""
    _judge(user, judging.topic_items(topic, "relevance") + judging.topic_items(topic, "support"), texts)
    if not Nugget.objects.filter(topic=topic).exists():
        pending = judging.suggestions(topic)
        for n in range(len(pending) - 1):
            text = "Caffeine stays active for hours (half-life about five hours)" if n == 2 else None
            judging.accept_suggestion(user, topic, 0, text)
        judging.reject_suggestion(user, topic, 0)
    _judge(user, judging.topic_items(topic, "answer"), texts)


def _judge(user, items, texts, second=False):
    done = set(Judgment.objects.filter(assessor=user, item__in=items).values_list("item_id", flat=True))
    nuggets = judging.nuggets_of(items[0].topic) if items else []
    for item in items:
        if item.pk not in done:
            judging.judge_item(user, item, _value(item, texts, nuggets, second), 0)


MACHINE = {"producer": "demo machine judge", "model": "demo-judge-1", "prompt": "UMBRELA / AutoNuggetizer style",
           "note": "drawn from the demo's own grades, every fourth label moved one step"}  # fmt: skip
UMBRELA, NUGGETIZER = "UMBRELA (demo machine judge)", "AutoNuggetizer (demo machine judge)"
NEXT_GRADE = {"0": "1", "1": "2", "2": "3", "3": "2"}
NEXT_ASSIGNMENT = {"support": "partial_support", "partial_support": "support", "not_support": "partial_support"}


def machine_qrels(evaluation):
    """Every segment pooled for relevance, graded as the demo's assessor grades (`grade`), every fourth (by topic
    and segment) one grade off: an UMBRELA qrels file."""
    segments = sorted(
        PoolItem.objects.filter(evaluation=evaluation, key__startswith="r:").values_list("topic__ident", "docid")
    )
    lines = []
    for n, (ident, docid) in enumerate(segments):
        label = grade(docid)
        lines.append(f"{ident} 0 {docid} {NEXT_GRADE[label] if n % 4 == 1 else label}\n")
    return "".join(lines).encode()


def machine_assignments(evaluation):
    """The official assignments of every answer of a topic with nuggets (nuggetizer's file), every fourth nugget
    assignment one step off; empty when no answer is assigned yet."""
    lines, n = [], 0
    for line in exports.nuggetizer_assignments(evaluation):
        record = json.loads(line)
        for nugget in record["nuggets"]:
            if n % 4 == 1:
                nugget["assignment"] = NEXT_ASSIGNMENT[nugget["assignment"]]
            n += 1
        lines.append(json.dumps(record) + "\n")
    return "".join(lines).encode() if n else b""


def _machine_sets(evaluation, out):
    """Load the two machine sets once (an organizer must exist to own them; assignments once some answer is
    assigned), then the agreement and the rankings under each, as a set's load asks of the worker."""
    organizer = get_user_model().objects.filter(username="organizer").first()
    if organizer is None or JudgmentSet.objects.filter(evaluation=evaluation, name__in=(UMBRELA, NUGGETIZER)).exists():
        return
    made = [judgment_sets.load_set(evaluation, machine_qrels(evaluation), "umbrela-demo.qrels", "qrels", UMBRELA,
                                   by=organizer, provenance=MACHINE)]  # fmt: skip
    assigned = machine_assignments(evaluation)
    if assigned:
        made.append(judgment_sets.load_set(evaluation, assigned, "nuggetizer-demo.jsonl", "nuggetizer", NUGGETIZER,
                                           by=organizer, provenance=MACHINE))  # fmt: skip
    agreement_store.refresh(evaluation.id)
    rankings.refresh(evaluation.id)
    out(f"  judgment sets: {', '.join(f'{s.name} ({s.loaded_count} judgments)' for s in made)}; agreement and rankings")
