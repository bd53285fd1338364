"""Demo step: a TREC 2007 QA main-task evaluation (factoid, list and Other questions) over the demo Blog06
collection, which the 2007 task searched beside AQUAINT-2.

2 series, 6 questions (tests/fixtures/qa/demo_trec2007_questions.xml); 2 runs, Team Alpha and Team Beta, whose
answer strings really occur in the documents; pools built; both series assigned to "assessor3", so the demo shows
factoid, list and Other judging without changing what "assessor" has to do. Idempotent like the TAC demo.
"""

from assess.assignments import assign
from tracks.qa.demo_evaluation import FIXTURES, load_demo_evaluation

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
RUNS = [("AlphaQA07", "Team Alpha", 1, False, ALPHA), ("BetaQA07", "Team Beta", 1, False, BETA)]


def load_trec2007_demo(out=print):
    loaded = load_demo_evaluation(SLUG, "trec2007-qa", "Demo TREC 2007 QA main task", QUESTIONS, RUNS, out)
    if loaded is None:
        return
    evaluation, _ = loaded
    for series in ("301", "302"):
        assign(evaluation, series, "assessor3")
    out(
        f"Evaluation {SLUG}: 2 series, 6 questions, {evaluation.runs.count()} runs, "
        f"{evaluation.pool_items.count()} pool items; series assigned to assessor3"
    )
