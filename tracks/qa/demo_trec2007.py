"""Demo step: a TREC 2007 QA main-task evaluation (factoid, list and Other questions) over the demo Blog06
collection, which the 2007 task searched beside AQUAINT-2.

2 series, 6 questions (tests/fixtures/qa/demo_trec2007_questions.xml); 2 runs, Team Alpha and Team Beta, whose
answer strings really occur in the documents; pools built; both series assigned to "assessor3", so the demo shows
factoid, list and Other judging without changing what "assessor" has to do. Idempotent like the TAC demo.
"""

from assess.assignments import assign
from pooling.loading import RunFile, create_evaluation, load_run_files, load_topics
from tracks.qa.demo_evaluation import COLLECTION, FIXTURES, _documents, run_file_bytes

SLUG = "demo-trec2007"
QUESTIONS = FIXTURES / "demo_trec2007_questions.xml"
ALPHA = [
    ("301.1", "Naomi Watts"),
    ("301.2", "Naomi Watts"),
    ("301.2", "Andy Serkis"),
    ("301.3", "King Kong is too long at three hours"),
    ("302.1", "Nokia"),
    ("302.2", "thin design"),
    ("302.2", "etched metal keypad"),
    ("302.3", "the battery life is terrible"),
]
BETA = [
    ("301.1", "Jack Black"),
    ("301.2", "Jack Black"),
    ("301.2", "Peter Jackson"),
    ("301.3", "The dinosaur stampede in King Kong looked fake to me"),
    ("302.1", "my old Nokia"),
    ("302.2", "fits in any pocket"),
    ("302.3", "dropped calls constantly"),
    ("302.3", "the screen scratches easily"),
]
RUNS = [("AlphaQA07", "Team Alpha", ALPHA), ("BetaQA07", "Team Beta", BETA)]


def load_trec2007_demo(out=print):
    from corpus.models import Collection
    from pooling.models import Evaluation
    from pooling.pools import build_pools

    if not Collection.objects.filter(name=COLLECTION).exists():
        out(f"TREC 2007 demo skipped: collection {COLLECTION} is not loaded")
        return
    evaluation = Evaluation.objects.filter(slug=SLUG).first() or create_evaluation(
        SLUG, "trec2007-qa", [COLLECTION], "Demo TREC 2007 QA main task"
    )
    load_topics(evaluation, QUESTIONS.read_bytes(), QUESTIONS.name)
    documents = _documents()
    files = [
        RunFile(filename=f"{tag}.txt", data=run_file_bytes(tag, lines, documents, out), team=team, priority=1)
        for tag, team, lines in RUNS
    ]
    for result in load_run_files(evaluation, files):
        if result.problems:
            out("\n".join(["  demo run not loaded:"] + result.problems))
    build_pools(evaluation)
    for series in ("301", "302"):
        assign(evaluation, series, "assessor3")
    out(
        f"Evaluation {SLUG}: 2 series, 6 questions, {evaluation.runs.count()} runs, "
        f"{evaluation.pool_items.count()} pool items; series assigned to assessor3"
    )
