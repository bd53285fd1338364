"""Demo step: a TREC 2007 ciQA evaluation over the demo Blog06 collection (idempotent).

A training topic and 2 test topics (tests/fixtures/qa/demo_ciqa_topics.txt); Team Alpha and Team Beta each with an
initial and a final run (the final one naming its initial run) and a URL file pointing at the demo's own stand-in
system (/assess/ciqa/demo-system/, on http://127.0.0.1:$PORT, 8000 by default: the address scripts/demo serves and
prints, so the assessor's login holds in the system's window; the evaluation allows such private addresses); the
sentence-retrieval baseline as a third interaction; pools built; both topics assigned to "assessor2", whose
sessions are planned (training topic first); topic 901's nuggets built, voted and matched, so its scores and recall
curves show while 902 is left to judge (partly judged).
"""

import os
import struct
import zlib

from django.contrib.auth import get_user_model
from django.db import transaction

from assess import judging
from assess.assignments import assign
from assess.models import Invitation, Judgment
from pooling.models import PoolItem, Topic
from scoring.rescore import rescore_evaluation
from tracks.qa import nugget_judging
from tracks.qa.ciqa import baseline, sessions, submissions
from tracks.qa.ciqa.models import UrlFile
from tracks.qa.demo_evaluation import COLLECTION, FIXTURES, _documents, run_file_bytes

SLUG = "demo-ciqa"
TOPICS = FIXTURES / "demo_ciqa_topics.txt"
ASSESSOR = "assessor2"
KONG = [
    ("901", "King Kong is too long at three hours"),
    ("901", "Naomi Watts gives a wonderful performance"),
    ("901", "The dinosaur stampede in King Kong looked fake to me"),
    ("902", "the battery life is terrible"),
    ("902", "thin design"),
]
RUNS = [  # tag, team, stage, initial, manual, lines
    ("AlphaCI1", "Team Alpha", "initial", "", False, KONG),
    (
        "AlphaCF1",
        "Team Alpha",
        "final",
        "AlphaCI1",
        False,
        [("901", "Naomi Watts gives a wonderful performance"), ("901", "King Kong is too long at three hours")]
        + KONG[3:]
        + [("902", "dropped calls constantly")],
    ),
    ("BetaCI1", "Team Beta", "initial", "", False, [("901", "Jack Black is miscast as Carl Denham"), *KONG[2:]]),
    (
        "BetaCF1",
        "Team Beta",
        "final",
        "BetaCI1",
        True,
        [
            ("901", "Jack Black is miscast as Carl Denham"),
            ("902", "the screen scratches easily"),
            ("902", "thin design"),
        ],
    ),
    (
        "NISTbaseI",
        "NIST baseline",
        "initial",
        "",
        False,
        [("901", "King Kong is too long at three hours"), ("901", "Jack Black is miscast as Carl Denham")]
        + [("902", "The camera is poor, though: photos are grainy and dark"), ("902", "etched metal keypad")],
    ),
]


def demo_site():
    """Where scripts/demo serves: the URL files' host must be the one the assessor logged in at (a session cookie
    of 127.0.0.1 is not sent to localhost)."""
    return f"http://127.0.0.1:{os.environ.get('PORT', '8000')}"


def url_file_bytes(tag, team, topics):
    base = f"{demo_site()}/assess/ciqa/demo-system"
    lines = [f"tag {tag}", f"screenshot {base}/screenshot.png"]
    lines += [f"{ident} {base}/{ident}/?team={team.split()[-1]}" for ident in topics]
    return ("\n".join(lines) + "\n").encode()


def screenshot_png(rgb, width=160, height=100):
    """A plain PNG of one colour: the demo systems' "screenshots" (a real team uploads its own)."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def load_ciqa_demo(out=print):
    from corpus.models import Collection
    from pooling.evaluations import create_evaluation, update_settings
    from pooling.models import Evaluation
    from pooling.pools import build_pools
    from pooling.topics import load_topics

    if not Collection.objects.filter(name=COLLECTION).exists():
        out(f"ciQA demo skipped: collection {COLLECTION} is not loaded")
        return
    evaluation = Evaluation.objects.filter(slug=SLUG).first() or create_evaluation(
        SLUG, submissions.TRACK, [COLLECTION], "Demo TREC 2007 ciQA"
    )
    # the demo's systems run on the demo's own (loopback) host
    update_settings(evaluation, {submissions.ALLOW_PRIVATE: True})
    load_topics(evaluation, TOPICS.read_bytes(), TOPICS.name)
    documents = _documents()
    is_open = evaluation.state == Evaluation.OPEN  # runs and URL files are frozen once judging starts
    for tag, team, stage, initial, manual, lines in RUNS if is_open else ():
        submissions.load_run(
            evaluation, run_file_bytes(tag, lines, documents, out), f"{tag}.txt", team, stage, initial, manual
        )
    topics = submissions.test_topics(evaluation)
    for tag, team, colour in (("AlphaURL1", "Team Alpha", (70, 120, 200)), ("BetaURL1", "Team Beta", (200, 120, 70))):
        if is_open:
            submissions.load_url_file(evaluation, url_file_bytes(tag, team, topics), f"{tag}.txt", team)
        url_file = UrlFile.objects.get(evaluation=evaluation, tag=tag)
        if not url_file.screenshots.exists():
            submissions.add_screenshot(url_file, screenshot_png(colour), f"{tag}.png")
    baseline.baseline_interaction(evaluation, evaluation.runs.get(tag="NISTbaseI"))
    build_pools(evaluation)
    for ident in ("901", "902"):
        assign(evaluation, ident, ASSESSOR)
    created, _ = sessions.plan_sessions(evaluation)
    judged = _judge_topic(evaluation, "901")
    rescore_evaluation(evaluation.id)
    out(
        f"Evaluation {SLUG}: 2 topics and a training topic, {evaluation.runs.count()} runs, "
        f"{UrlFile.objects.filter(evaluation=evaluation).count()} interactions, {created} sessions planned for "
        f"{ASSESSOR}; {judged}; organizer page /assess/ciqa/{SLUG}/"
    )


def _judge_topic(evaluation, ident):
    """Nuggets of one topic built, voted (the primary and assessor3) and matched, through the QA saves."""
    topic = Topic.objects.get(evaluation=evaluation, ident=ident)
    topic.evaluation = evaluation
    if Judgment.objects.filter(topic=topic).exists():
        return f"topic {ident} already judged"
    User = get_user_model()
    user, voter = User.objects.get(username=ASSESSOR), User.objects.filter(username="assessor3").first()
    organizer = User.objects.filter(username="organizer").first()
    if voter is not None and organizer is not None:
        judging.invite(organizer, evaluation, voter, Invitation.VOTER, topic)
    else:
        voter = None
    with transaction.atomic():
        texts = [
            "too long at three hours",
            "Naomi Watts gives a wonderful performance",
            "dinosaur stampede looked fake",
        ]
        nuggets = [nugget_judging.create_nugget(user, topic, t) for t in texts]
        for i, nugget in enumerate(nuggets):
            nugget_judging.vote(user, nugget, "vital" if i < 2 else "okay", 0)
            if voter is not None:
                nugget_judging.vote(voter, nugget, "vital" if i != 1 else "okay", 0)
        for item in PoolItem.objects.filter(topic=topic).order_by("position", "id"):
            text = " ".join(item.text.lower().split())
            held = [n.pk for n in nuggets if all(w in text for w in n.text.lower().split()[:3])]
            nugget_judging.match(user, judging.load_item(user, item.pk), held, 0)
    return f"topic {ident}: {len(nuggets)} nuggets voted and matched, topic 902 left to judge"
