"""Demo step: a TAC 2008-style opinion QA evaluation over the demo Blog06 collection.

3 series, 8 rigid and squishy list questions (tests/fixtures/qa/demo_tac2008_questions.xml); 4 runs from Team
Alpha and Team Beta whose answer strings are phrases that really occur in the documents (the docid of each line is
the demo document holding its phrase, found at load time); top-documents lists ranked by target words; pools
built; series assigned to "assessor" (primary) and "assessor2" (second on series 1001). A fifth run file with
check errors (tests/fixtures/qa/demo_tac2008_bad_run.txt) is for the checker page; it is never loaded.
Idempotent: running it again re-checks and replaces the runs, and rebuilding keeps every pool item.
"""

from pathlib import Path

from assess.assignments import assign
from pooling.evaluations import create_evaluation
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_top_docs, load_topics

SLUG = "demo-tac2008"
COLLECTION = "demo-blog06"
FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "qa"
QUESTIONS = FIXTURES / "demo_tac2008_questions.xml"
BAD_RUN = FIXTURES / "demo_tac2008_bad_run.txt"
TARGET_WORDS = {"1001": ["Dana", "Whitfield"], "1002": ["RAZR", "Motorola"], "1003": ["King", "Kong"]}

# (question, answer string[, a phrase locating the supporting document when it differs from the answer]).
ALPHA_1 = [
    ("1001.1", "My wife"),
    ("1001.1", "viewers"),
    ("1001.2", "handled the hurricane coverage with real compassion"),
    ("1001.2", "She is smart, she does her homework"),
    ("1001.3", "interviews have become shallow and rushed"),
    ("1001.3", "she is overpaid for reading headlines between commercials"),
    ("1002.1", "thin design"),
    ("1002.1", "etched metal keypad"),
    ("1002.2", "the battery life is terrible"),
    ("1002.2", "dropped calls constantly"),
    ("1002.3", "Nokia"),
    ("1003.1", "Naomi Watts"),
    ("1003.1", "Andy Serkis"),
    ("1003.2", "King Kong is too long at three hours"),
]
ALPHA_2 = [  # manual second run: some answers inexact, some with extra white space (pooled with run 1's)
    ("1001.1", "My wife thinks Dana Whitfield is the warmest host"),
    ("1001.2", "handled the hurricane   coverage with real compassion"),
    ("1001.2", "I like her laugh, it feels genuine"),
    ("1001.3", "She interrupts every guest before they finish a sentence"),
    ("1002.1", "thin  design"),
    ("1002.1", "fits in any pocket"),
    ("1002.2", "the menu software is slow and clunky"),
    ("1002.3", "my old Nokia"),
    ("1003.1", "Naomi Watts gives a wonderful performance"),
    ("1003.1", "Peter Jackson"),
    ("1003.2", "The dinosaur stampede in King Kong looked fake to me"),
]
BETA_1 = [
    ("1001.1", "viewers"),
    ("1001.1", "Rick", "posted by Rick"),
    ("1001.2", "her café cooking segments are the only thing on the show worth watching"),
    ("1001.3", "I dislike her political jokes"),
    ("1001.3", "her ratings are excellent"),
    ("1002.1", "etched metal keypad"),
    ("1002.1", "The camera is poor"),
    ("1002.2", "The camera is poor, though: photos are grainy and dark"),
    ("1002.2", "the screen scratches easily"),
    ("1002.3", "Nokia", "The RAZR V3 is the best phone I ever owned"),  # unsupported by its document
    ("1003.1", "Jack Black"),
    ("1003.1", "Andy Serkis"),
    ("1003.2", "Jack Black is miscast as Carl Denham"),
]
BETA_2 = [
    ("1001.1", "People who say she is fake", "People who say she is fake"),
    ("1001.2", "She is smart, she does her homework, and she never talks down to the audience"),
    ("1001.3", "interviews have become shallow and rushed"),
    ("1002.1", "thin design"),
    ("1002.2", "the battery life is terrible: it does not last a full day"),
    ("1002.3", "Nokia"),
    ("1003.1", "Naomi Watts"),
    ("1003.2", "King Kong is too long at three hours"),
    ("1003.2", "looked fake"),
]
RUNS = [  # tag, team, priority, manual, lines
    ("AlphaQA1", "Team Alpha", 1, False, ALPHA_1),
    ("AlphaQA2", "Team Alpha", 2, True, ALPHA_2),
    ("BetaQA1", "Team Beta", 1, False, BETA_1),
    ("BetaQA2", "Team Beta", 2, False, BETA_2),
]


def _documents():
    from corpus.models import Document

    return list(Document.objects.filter(collection__name=COLLECTION).order_by("docno").values_list("docno", "text"))


def find_document(documents, phrase):
    """The first document whose viewable text holds the phrase (white space and case aside), or None."""
    wanted = " ".join(phrase.split()).lower()
    for docno, text in documents:
        if wanted in " ".join(text.split()).lower():
            return docno
    return None


def run_file_bytes(tag, lines, documents, out=print):
    rows = []
    for qid, answer, *where in lines:
        docno = find_document(documents, where[0] if where else answer)
        if docno is None:
            out(f"  demo: no document of {COLLECTION} holds {answer!r}; line left out")
            continue
        rows.append(f"{qid} {tag} {docno} {answer}")
    return ("\n".join(rows) + "\n").encode("utf-8")


def top_docs_bytes(documents):
    """A PRISE-like ranking per target: documents by how often they use the target's words."""
    rows = []
    for qnum, words in TARGET_WORDS.items():
        scored = [(sum(text.count(w) for w in words), docno) for docno, text in documents]
        scored = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        rows += [f"{qnum} {rank} {docno} {score:.4f}" for rank, (score, docno) in enumerate(scored, start=1)]
    return ("\n".join(rows) + "\n").encode()


def load_demo_evaluation(slug, track, title, questions, runs, out, top_docs=None):
    """What every QA demo does, idempotently: the evaluation over the demo Blog06 (reused when it exists), its
    questions, optionally top documents, the runs ((tag, team, priority, manual, [(qid, answer[, phrase])])) with
    each answer's document found in the collection, and the pools. Returns (evaluation, pool build counts), or
    None when the collection is not loaded."""
    from corpus.models import Collection
    from pooling.models import Evaluation
    from pooling.pools import build_pools

    if not Collection.objects.filter(name=COLLECTION).exists():
        out(f"{title} skipped: collection {COLLECTION} is not loaded")
        return None
    evaluation = Evaluation.objects.filter(slug=slug).first() or create_evaluation(slug, track, [COLLECTION], title)
    load_topics(evaluation, questions.read_bytes(), questions.name)
    documents = _documents()
    if top_docs is not None:
        load_top_docs(evaluation, top_docs(documents), "demo-topdocs.txt")
    files = [
        RunFile(
            filename=f"{tag}.txt",
            data=run_file_bytes(tag, lines, documents, out),
            team=team,
            priority=priority,
            manual=manual,
            description="answers chosen by hand from the system's candidates" if manual else "",
        )
        for tag, team, priority, manual, lines in runs
    ]
    for result in load_run_files(evaluation, files) if evaluation.state == Evaluation.OPEN else []:  # frozen later
        if result.problems:
            out("\n".join(["  demo run not loaded:"] + result.problems))
    return evaluation, build_pools(evaluation)


def load_tac_demo(out=print):
    loaded = load_demo_evaluation(
        SLUG, "tac2008-qa", "Demo TAC 2008 opinion QA", QUESTIONS, RUNS, out, top_docs=top_docs_bytes
    )
    if loaded is None:
        return
    evaluation, totals = loaded
    for series in ("1001", "1002", "1003"):
        assign(evaluation, series, "assessor")
    assign(evaluation, "1001", "assessor2", second=True)
    out(
        f"Evaluation {SLUG}: 3 series, 8 questions, {evaluation.runs.count()} runs, "
        f"{evaluation.pool_items.count()} pool items ({totals['created']} new); series assigned to assessor "
        f"(assessor2 second on 1001). Try the checker on {BAD_RUN.relative_to(FIXTURES.parent.parent.parent)}"
    )
