"""Who may open which collection's documents: organizers all, assessors only the collections of evaluations they
are assigned to or invited into, participants none; a refusal looks like a missing document (issue 20, item 6d)."""

import re
from pathlib import Path

import pytest

from assess.models import Assignment, Invitation
from corpus import access, viewer
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.models import Topic

FIX = Path(__file__).resolve().parent / "fixtures" / "corpus"
RAZR = "BLOG06-20060118-014-0000188734"
FORUM = "bolt-eng-DF-200-192451-5470531"
NEWS = "APW_ENG_20050101.0001"

pytestmark = pytest.mark.django_db


@pytest.fixture
def collections(db):
    load_collection("demo-blog06", "blog06", [FIX / "blog06-demo.txt", FIX / "blog06-demo-2.txt.gz"])
    load_collection("forum", "bolt-forum", [FIX / "forum" / "bolt-forum-demo.xml"])
    load_collection("news", "aquaint2", [FIX / "aquaint2-sample.xml"])


def assign(user, *collections, slug="blog-eval"):
    """An evaluation over `collections` (names) whose one series `user` judges."""
    evaluation = create_evaluation(slug, "tac2008-qa", collections)
    series = Topic.objects.create(evaluation=evaluation, ident="1", kind="series", text="s")
    Assignment.objects.create(evaluation=evaluation, topic=series, assessor=user, role=Assignment.PRIMARY)
    return evaluation


def _statuses(client, user, name, docno):
    client.force_login(user)
    frame = client.get(viewer.frame_url(name, docno))
    page = client.get(f"/corpus/{name}/doc/{docno}/")
    return frame, page


def test_assessor_reads_only_the_collections_of_their_evaluations(client, collections, assessor):
    assign(assessor, "demo-blog06")
    frame, page = _statuses(client, assessor, "demo-blog06", RAZR)
    assert (frame.status_code, page.status_code) == (200, 200)
    for name, docno in (("forum", FORUM), ("news", NEWS)):
        frame, page = _statuses(client, assessor, name, docno)
        assert (frame.status_code, page.status_code) == (404, 404), name


def test_refusal_is_the_same_answer_as_a_missing_document(client, collections, make_user):
    """Nothing tells an assessor whether a document they may not read exists."""
    outsider = make_user("outsider", "assessor")
    there = _statuses(client, outsider, "demo-blog06", RAZR)
    missing = _statuses(client, outsider, "demo-blog06", "BLOG06-NO-SUCH-DOC")
    no_collection = _statuses(client, outsider, "no-such-collection", RAZR)

    def page(response):  # the 404 page carries a CSRF token and script nonces made anew on every render
        return re.sub(rb'("X-CSRFToken": |nonce=|name="csrfmiddlewaretoken" value=)"[^"]*"', b"", response.content)

    for a, b, c in zip(there, missing, no_collection):
        assert a.status_code == b.status_code == c.status_code == 404
        assert page(a) == page(b).replace(b"BLOG06-NO-SUCH-DOC", RAZR.encode())


def test_second_assessors_and_invited_users_read_too(client, collections, make_user, organizer):
    second = make_user("second", "assessor")
    evaluation = assign(make_user("first", "assessor"), "forum", slug="forum-eval")
    series = Topic.objects.create(evaluation=evaluation, ident="2", kind="series", text="t")
    Assignment.objects.create(evaluation=evaluation, topic=series, assessor=second, role=Assignment.SECONDARY)
    assert _statuses(client, second, "forum", FORUM)[0].status_code == 200
    adjudicator = make_user("adjudicator", "assessor")
    assert _statuses(client, adjudicator, "forum", FORUM)[0].status_code == 404
    Invitation.objects.create(
        evaluation=evaluation, user=adjudicator, kind=Invitation.ADJUDICATOR, invited_by=organizer
    )
    assert _statuses(client, adjudicator, "forum", FORUM)[0].status_code == 200
    assert _statuses(client, adjudicator, "news", NEWS)[0].status_code == 404


def test_organizers_read_everything_participants_nothing(client, collections, organizer, participant):
    for name, docno in (("demo-blog06", RAZR), ("forum", FORUM), ("news", NEWS)):
        assert [r.status_code for r in _statuses(client, organizer, name, docno)] == [200, 200]
        assert [r.status_code for r in _statuses(client, participant, name, docno)] == [403, 403]


def test_the_viewer_fails_closed_without_a_registered_grant(client, collections, assessor, monkeypatch):
    assign(assessor, "demo-blog06")
    monkeypatch.setattr(access, "_grants", list)  # no app registered a grant
    assert [r.status_code for r in _statuses(client, assessor, "demo-blog06", RAZR)] == [404, 404]


def test_every_kind_of_grant_opens_the_frame(client, collections, assessor, monkeypatch):
    """The frame reads its document in one statement written by hand (access.readable_condition): a grant given
    as a list, as a QuerySet or as SQL (assess's) opens exactly the collections it names, and grants add up."""
    from django.db.models.expressions import RawSQL

    from corpus.models import Collection

    blog, forum = (Collection.objects.get(name=n).pk for n in ("demo-blog06", "forum"))
    grants = {
        "list": lambda user: [blog],
        "empty list": lambda user: [],
        "queryset": lambda user: Collection.objects.filter(pk=blog).values("pk"),
        "sql": lambda user: RawSQL("SELECT id FROM corpus_collection WHERE id = %s", [blog]),
    }
    for kind, grant in grants.items():
        monkeypatch.setattr(access, "_grants", lambda g=grant: [g])
        expected = 404 if kind == "empty list" else 200
        assert _statuses(client, assessor, "demo-blog06", RAZR)[0].status_code == expected, kind
        assert _statuses(client, assessor, "forum", FORUM)[0].status_code == 404, kind
    monkeypatch.setattr(access, "_grants", lambda: [grants["list"], lambda user: [forum]])
    assert _statuses(client, assessor, "forum", FORUM)[0].status_code == 200


def test_the_frame_reads_on_sqlite_too(sqlite_demo):
    """The embedded demo's database: the frame's statement and its access condition run on SQLite."""
    import json

    script = """
import django, json, sys
django.setup()
from accounts.people import ensure_user
from assess.models import Assignment
from corpus.loading import load_collection
from corpus.views import _readable_document
from pooling.evaluations import create_evaluation
from pooling.models import Topic
load_collection("news", "aquaint2", [sys.argv[1]])
load_collection("news-2", "aquaint2", [sys.argv[1]])
user = ensure_user("reader", "assessor", "reader-pw-123")
evaluation = create_evaluation("e", "tac2008-qa", ["news"])
series = Topic.objects.create(evaluation=evaluation, ident="1", kind="series", text="s")
Assignment.objects.create(evaluation=evaluation, topic=series, assessor=user, role=Assignment.PRIMARY)
boss = ensure_user("boss", "organizer", "boss-pw-1234")
out = [getattr(_readable_document(u, n, sys.argv[2]), "docno", None) for u, n in
       ((user, "news"), (user, "news-2"), (boss, "news-2"))]
print(json.dumps(out))
"""
    done = sqlite_demo.run(script, FIX / "aquaint2-sample.xml", NEWS)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [NEWS, None, NEWS]


def test_corpus_does_not_import_later_stages():
    """corpus is the first stage: access decisions come in through corpus.access's registry only."""
    import ast

    later = ("pooling", "assess", "scoring")
    for path in (Path(access.__file__).parent).rglob("*.py"):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not [n for n in names if n.split(".")[0] in later], path
