"""No malformed parameter makes a page fail: every URL pattern answers a bad id, query string, form field, JSON
body, upload or cookie with a refusal (400, 403, 404, 405, 409, 423), or normally (200, 302) where the value is
harmless to it, and never with a 500.

The walk is over get_resolver(), like tests/test_every_view_states_its_roles.py, so a new page fails here until
the `routes` table of _build_world names real objects for its parameters. The demo (pooling.demo) supplies them, so
the malformed *other* parameters get past the 404 of a missing object and reach the view bodies. Each request runs
in a savepoint that is rolled back, so a save that goes through leaves the next request the same world (and a
database error cannot poison the rest of the walk). A 500 is reported with the page, the request and what was
malformed in it, and the exception.
"""

import json
import re
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver

PUBLIC = {"home", "healthz", "favicon", "login", "logout"}
ALLOWED = {200, 302, 400, 403, 404, 405, 409, 423}

# Path values no converter should let through to a 500.
HUGE = "99999999999999999999"  # beyond bigint
BAD_PATH = {
    "int": ["0", HUGE],
    "str": ["a\x00b", "x" * 2000, "%FF%FE"],
    "slug": ["x" * 2000, "0"],
    "path": ["\x00", "a/\x00", "x" * 2000],
}
# Form and query values. Every field gets a NUL byte and a long string; a field whose valid value holds a digit
# (ids, versions, priorities, docids) also gets negative and out-of-range numbers (bigint ids, integer versions) and
# a digit that str.isdigit() accepts but int() refuses. The walk adds a repeated field and a missing one.
BAD_TEXT = ["\x00", "x" * 3000]
BAD_NUMBERS = ["-1", "²", HUGE, "2147483648"]
# JSON values of the wrong type or range for any key.
BAD_JSON = [None, True, "\x00", -1, 2**31, 10**30, [], {"a": None}]
BAD_BODIES = [
    b"[]",
    b'"x"',
    b"1",
    b"null",
    b"true",
    b"{",
    b"\xff\xfe",
    b'{"version": "\\u0000"}',
    b"[{}]",
    b'{"version": NaN, "offset": Infinity, "value": {"relspans": [[-Infinity, 1]]}}',
]


@dataclass
class Route:
    kwargs: dict = field(default_factory=dict)  # real path values
    methods: tuple = ("GET",)
    query: dict = field(default_factory=dict)  # valid GET parameters, each malformed in turn
    form: dict = field(default_factory=dict)  # valid POST fields (a list: repeated field)
    json: dict | None = None  # valid JSON body (POST)
    files: dict = field(default_factory=dict)  # field -> (file name, valid bytes)
    post_as_is: bool = True  # False: a POST with the real ids would do slow work (a pool build, rescoring)
    vary: tuple | None = None  # the fields (or JSON keys) to malform; None: all, and the body as a whole too


def _patterns(resolver, prefix="", namespace=""):
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if entry.app_name == "admin":
                continue  # Django's own
            ns = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _patterns(entry, prefix + str(entry.pattern), ns)
        elif isinstance(entry, URLPattern):
            yield f"{namespace}{entry.name}", prefix + str(entry.pattern), entry


CONVERTER = re.compile(r"<(?:(\w+):)?(\w+)>")
KINDS = {"int": "int", "id": "int", "slug": "slug", "path": "path", "textpath": "path"}  # others: like str


def _converter_kinds(pattern):
    return {name: KINDS.get(kind, "str") for kind, name in CONVERTER.findall(str(pattern.pattern))}


def _url(route, kwargs):
    """The route with `kwargs` filled in, percent-encoded (a value already holding % escapes goes in as it is)."""
    return "/" + CONVERTER.sub(lambda m: quote(str(kwargs[m.group(2)]), safe="/%"), route)


# --- the world: the demo, a user holding every role, and a BOLT disagreement --------------------------------------


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The demo, built once for the module inside a transaction rolled back at its end."""
    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the demo's scoring runs in-process, as in every test
    # the demo users' passwords are never used here: a fast hasher saves seconds of PBKDF2
    fast_hashing = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock(), fast_hashing, transaction.atomic():
        try:
            yield _build_world()
        finally:
            app.conf.task_always_eager = eager
            transaction.set_rollback(True)


def _build_world():
    from accounts.models import Team
    from assess.models import AnswerClass, Assignment, Judgment, Nugget
    from config.roles import ORGANIZER, PARTICIPANT
    from corpus.models import Document
    from pooling.demo import run_all
    from pooling.models import Evaluation, PoolItem, Run, Submission, Topic
    from tracks.bolt import judging
    from tracks.qa import demo_evaluation as tac_demo
    from tracks.qa.adjudication import adjudication_queue

    run_all(out=lambda *args: None)
    users = get_user_model().objects
    # The demo's primary assessor also organizes and takes part, so one user reaches every view's body.
    everyone = users.get(username="assessor")
    everyone.groups.add(*Group.objects.filter(name__in=[ORGANIZER, PARTICIPANT]))
    Team.objects.get(name="Team Alpha").members.add(everyone)

    tac = Evaluation.objects.get(slug=tac_demo.SLUG)
    mine = Assignment.objects.get(evaluation=tac, assessor=everyone, topic__ident="1001")
    rigid, squishy = (Topic.objects.get(evaluation=tac, ident=i) for i in ("1001.1", "1001.2"))
    rigid_items = list(PoolItem.objects.filter(topic=rigid).order_by("position"))
    classes = list(AnswerClass.objects.filter(topic=rigid).order_by("pk"))
    nuggets = list(Nugget.objects.filter(topic=squishy).order_by("position"))
    squishy_item = PoolItem.objects.filter(topic=squishy).order_by("position").first()
    assert len(classes) >= 2 and len(nuggets) >= 2 and squishy_item is not None

    def version(kind, **subject):
        judgment = Judgment.objects.filter(kind=kind, assessor=everyone, **subject).first()
        return str(judgment.version if judgment else 0)

    qa_disputed = adjudication_queue(tac)[0][0]
    trec_factoid = Topic.objects.filter(evaluation__slug="demo-trec2007", kind="FACTOID").order_by("position").first()

    bolt_ev = Evaluation.objects.get(slug="bolt-demo")
    b_mine = Assignment.objects.get(evaluation=bolt_ev, assessor=everyone)
    citation = next(i for i in judging.citation_items(b_mine.topic) if i.origin != PoolItem.ASSESSOR)
    # a disagreement, so the BOLT adjudication pages have a citation to decide
    judging.judge_citation(everyone, citation, {"rel": "yes", "relspans": [[0, 3]]}, 0)
    judging.judge_citation(users.get(username="assessor2"), citation, {"rel": "no"}, 0)
    view_item = next(iter(judging.grouping_views(b_mine.topic).values()))
    groups = judging.view_structure(view_item)
    # one field of each kind stands for the rest
    view_form = {
        "version": "0",
        "view-relevant": "yes",
        f"g{groups[0]['number']}-scope": "no",
        f"g{groups[0]['number']}-m0": "yes",
    }
    thread = Document.objects.get(collection__name=judging.collection_of(bolt_ev).name, docno=citation.docid)

    from tracks.biogen import judging as biogen
    from tracks.biogen.labels import labels_for

    bg_ev = Evaluation.objects.get(slug="biogen-demo")
    bg_mine = Assignment.objects.filter(evaluation=bg_ev, assessor=everyone).order_by("topic__position").first()
    bg_item = biogen.topic_items(bg_mine.topic)[0]
    bg_disputed = biogen.adjudication_queue(bg_ev)[0][0]

    qa4mre = Evaluation.objects.get(slug="qa4mre-2012-demo")
    blog_doc = Document.objects.filter(collection__name=tac_demo.COLLECTION).order_by("docno").first()
    documents = tac_demo._documents()
    run_bytes = tac_demo.run_file_bytes("AlphaQA9", tac_demo.ALPHA_1, documents)
    third_run = tac_demo.run_file_bytes("AlphaQA3", tac_demo.ALPHA_1, documents)  # within Team Alpha's rules
    questions = tac_demo.QUESTIONS.read_bytes()
    from django.conf import settings

    gold = (settings.BASE_DIR / "tests" / "fixtures" / "qa4mre" / "gold.xml").read_bytes()

    # ciQA: a session of the demo's baseline interaction (running) and one of Team Alpha's system for "everyone"
    from django.utils import timezone

    from tracks.qa.ciqa import demo as ciqa_demo
    from tracks.qa.ciqa.models import InteractionSession, Screenshot, UrlFile

    ciqa = Evaluation.objects.get(slug=ciqa_demo.SLUG)
    t901 = Topic.objects.get(evaluation=ciqa, ident="901")
    base_file = UrlFile.objects.get(evaluation=ciqa, baseline_run__isnull=False)
    alpha_file = UrlFile.objects.get(evaluation=ciqa, tag="AlphaURL1")
    s_base = InteractionSession.objects.create(
        evaluation=ciqa, assessor=everyone, topic=t901, url_file=base_file, started_at=timezone.now()
    )
    s_alpha = InteractionSession.objects.create(evaluation=ciqa, assessor=everyone, topic=t901, url_file=alpha_file)
    sentence = base_file.baseline_run.entries.filter(topic=t901).first()
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 16
    shot = Screenshot.objects.create(url_file=alpha_file, name="s.png", content_type="image/png", image=png)
    ciqa_run = tac_demo.run_file_bytes("AlphaCI1", ciqa_demo.RUNS[0][5], documents)
    ciqa_urls = ciqa_demo.url_file_bytes("AlphaURL1", "Team Alpha", ["ciQA2007throwaway", "901", "902"])
    c_slug = ciqa.slug
    # a second ciQA evaluation where "everyone" has done every session: its questionnaire is open
    from pooling.evaluations import create_evaluation
    from pooling.topics import load_topics
    from tracks.qa.ciqa.submissions import load_url_file

    # runs are frozen once judging starts (issue 26): the participant checks a run against an evaluation still open
    open_tac = create_evaluation("tac-open", "tac2008-qa", [tac_demo.COLLECTION])
    load_topics(open_tac, questions, tac_demo.QUESTIONS.name)
    done = create_evaluation("ciqa-done", "trec2007-ciqa", settings={"allow_private_urls": True})  # the demo's host
    load_topics(done, ciqa_demo.TOPICS.read_bytes(), "topics.txt")
    done_file = load_url_file(done, ciqa_urls, "u.txt", "Team Alpha")[0]
    InteractionSession.objects.create(
        evaluation=done,
        assessor=everyone,
        topic=Topic.objects.get(evaluation=done, ident="901"),
        url_file=done_file,
        started_at=timezone.now(),
        ended_at=timezone.now(),
    )

    w = {
        "everyone": everyone,
        "organizer": users.get(username="organizer"),
        "assessor2": users.get(username="assessor2"),
        "participant": users.get(username="participant"),
    }
    tac_slug, bolt_slug, q_slug = tac.slug, bolt_ev.slug, qa4mre.slug
    receipt = Submission.objects.filter(team__name="Team Alpha").first().pk
    participant_pk = users.get(username="participant").pk
    bolt_alpha_tag = Run.objects.filter(evaluation=bolt_ev, team__name="Team Alpha").order_by("tag").first().tag
    a, q1, q2 = mine.pk, rigid.pk, squishy.pk
    item = rigid_items[0]
    post = thread.meta["posts"][0]
    from assess.models import SearchLog

    search_log = SearchLog.objects.create(evaluation=tac, assessor=everyone, topic=rigid, query="the")
    from api.models import ApiJob
    from pooling.models import PoolBuild, Run

    alpha_run = Run.objects.filter(evaluation=tac, team__name="Team Alpha").order_by("tag").first()
    pool_build = PoolBuild.objects.create(evaluation=tac, status=PoolBuild.FAILED)  # a DONE one needs finished_at
    api_job = ApiJob.objects.create(kind=ApiJob.RESCORE, evaluation=tac, status=ApiJob.DONE)
    api_slug = {"slug": tac.slug}
    routes = {
        # the REST API: real GETs; its POSTs would create things (201/202), so only their paths are malformed
        "api:token": [Route()],
        "api:schema": [Route()],
        "api:docs": [Route()],
        "api:evaluations": [Route(query={"page": "1"})],
        "api:evaluation": [Route(api_slug)],
        "api:evaluation_state": [Route(api_slug, ("POST",), post_as_is=False)],
        "api:topics": [Route(api_slug, query={"page": "1"})],
        "api:runs": [Route(api_slug, query={"page": "1"})],
        "api:run_check": [Route(api_slug, ("POST",), post_as_is=False)],
        "api:submissions": [Route(api_slug, ("GET", "POST"), post_as_is=False)],
        "api:run": [Route(api_slug | {"tag": alpha_run.tag})],
        "api:run_report": [Route(api_slug | {"tag": alpha_run.tag})],
        "api:pools": [Route(api_slug)],
        "api:pool_build": [Route({"pk": pool_build.pk})],
        "api:assignments": [Route(api_slug)],
        "api:judgments": [Route(api_slug, query={"page": "1"})],
        "api:export": [Route(api_slug | {"kind": "jsonl"})],
        "api:import": [Route(api_slug, ("POST",), post_as_is=False)],
        "api:scores": [Route(api_slug, query={"scope": "run", "run": alpha_run.tag, "measure": "score", "page": "1"})],
        "api:rescore": [Route(api_slug, ("POST",), post_as_is=False)],
        "api:job": [Route({"pk": api_job.pk})],
        "api:users": [Route(query={"page": "1"})],
        "api:user_token": [Route({"username": "participant"}, ("POST",), post_as_is=False)],
        "api:teams": [Route()],
        "corpus:search": [
            Route(query={"q": "the", "collection": tac_demo.COLLECTION, "from": "2005-01-01", "page": "1"})
        ],
        "assess:search": [
            Route({"pk": a}, query={"q": "the", "topic": str(q1), "item": str(rigid_items[0].pk), "to": "2007-01-01"})
        ],
        "assess:search_open": [
            Route({"log_id": search_log.pk}, query={"collection": tac_demo.COLLECTION, "docno": blog_doc.docno})
        ],
        "qa:search_found": [
            Route({"pk": a}, ("POST",), form={"question": str(q1), "docid": blog_doc.docno, "text": "found by search"})
        ],
        "corpus:collection_list": [Route(query={"q": "blog"})],
        "corpus:collection_detail": [Route({"name": tac_demo.COLLECTION}, query={"q": "blog", "page": "1"})],
        "corpus:document": [
            Route({"name": tac_demo.COLLECTION, "docno": blog_doc.docno}, query={"m": ["the", "a"], "s": "p1:0:5"})
        ],
        "corpus:frame": [
            Route(
                {"name": tac_demo.COLLECTION, "docno": blog_doc.docno},
                query={"m": "the", "s": ["p1:0:5"], "img": "token"},
            ),
            Route(
                {"name": judging.collection_of(bolt_ev).name, "docno": thread.docno}, query={"s": f"{post['id']}:0:5"}
            ),
        ],
        "pooling:evaluation_list": [Route()],
        "pooling:evaluation_create": [
            Route(
                methods=("GET", "POST"),
                form={"slug": "new-eval", "title": "New", "track": "tac2008-qa", "collections": [tac_demo.COLLECTION]},
            )
        ],
        "pooling:evaluation_detail": [Route({"slug": tac_slug})],
        "pooling:evaluation_state": [Route({"slug": tac_slug}, ("POST",), form={"state": "judging"})],
        "pooling:evaluation_settings": [
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={"judged_priorities": "1,2", "max_answer_chars": "1000", "allow_nil": "on"},
            )
        ],
        "pooling:topics": [
            Route(
                {"slug": tac_slug},
                ("GET", "POST"),
                form={"kind": "questions"},
                files={"file": ("questions.xml", questions)},
            ),
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={"kind": "top_docs"},
                vary=("file",),
                files={"file": ("top.txt", tac_demo.top_docs_bytes(documents))},
            ),
        ],
        "pooling:runs_upload": [
            Route(
                {"slug": tac_slug},
                ("GET", "POST"),
                form={
                    "team": "Team Alpha",
                    "new_team": "",
                    "priority": "1",
                    "manual": "on",
                    "override_reason": "the organizer's test run",
                },
                files={"files": ("AlphaQA9.txt", run_bytes)},
            ),
            Route(
                {"slug": tac_slug},
                ("POST",),
                vary=("manifest",),
                form={"override_reason": "the organizer's test run"},
                files={
                    "files": ("AlphaQA9.txt", run_bytes),
                    "manifest": ("manifest.txt", b"AlphaQA9.txt Gamma 1 manual whole\n"),
                },
            ),
        ],
        "pooling:pools": [Route({"slug": tac_slug}, ("GET", "POST"), post_as_is=False)],
        "pooling:pool_progress": [Route({"slug": tac_slug})],
        "pooling:pool_question": [Route({"slug": tac_slug, "ident": "1001.1"})],
        "assess:assignments": [
            Route({"slug": tac_slug}, ("GET", "POST"), form={"series": "1003", "assessor": "assessor3", "second": "on"})
        ],
        "pooling:run_check": [
            Route(
                methods=("GET", "POST"),
                query={"evaluation": tac_slug},
                form={"evaluation": tac_slug},
                files={"file": ("AlphaQA9.txt", run_bytes)},
            )
        ],
        "pooling:my_runs": [Route()],
        "pooling:participate": [
            Route(
                {"slug": open_tac.slug},
                ("GET", "POST"),
                query={"team": "Team Alpha"},
                form={"team": "Team Alpha", "action": "check", "priority": "3"},
                files={"file": ("AlphaQA3.txt", third_run)},
            )
        ],
        "pooling:team_file": [Route({"slug": tac_slug, "kind": "topics"}, query={"team": "Team Alpha"})],
        "pooling:receipt": [Route({"pk": receipt}, query={"download": "1"})],
        "scoring:team_judgments": [Route({"slug": tac_slug, "kind": "own"}, query={"team": "Team Alpha"})],
        "scoring:team_run_judgments": [Route({"slug": bolt_slug, "tag": bolt_alpha_tag})],
        "accounts:users": [
            Route(
                methods=("GET", "POST"),
                form={"username": "invitee", "email": "i@example.org", "roles": ["assessor"], "teams": "Team Alpha"},
            )
        ],
        "accounts:user_detail": [
            Route(
                {"pk": participant_pk},
                ("GET", "POST"),
                form={"roles": ["participant"], "teams": "Team Alpha", "email": "", "active": "on"},
            )
        ],
        "accounts:user_unlock": [Route({"pk": participant_pk}, ("POST",))],
        "pooling:teams": [Route({"slug": tac_slug}, ("GET", "POST"), form={"team": "Team Alpha", "ident": "AlphaQA"})],
        # the lead's NIL page (issue 14) had no entry yet; GET only here
        "accounts:audit_log": [Route(query={"action": "user changed", "target": "par", "format": "csv"})],
        "password_change": [
            Route(methods=("GET", "POST"), form={"old_password": "x", "new_password1": "y", "new_password2": "y"})
        ],
        "password_change_done": [Route()],
        "password_reset": [Route(methods=("GET", "POST"), form={"email": "nobody@example.org"})],
        "password_reset_done": [Route()],
        "password_reset_confirm": [Route({"uidb64": "MQ", "token": "abc-123"})],
        "password_reset_complete": [Route()],
        "assess:my_assignments": [Route()],
        "qa:assignment": [Route({"pk": a})],
        "qa:question": [Route({"pk": a, "qid": q1}, query={"item": str(item.pk)}), Route({"pk": a, "qid": q2})],
        "qa:item_panel": [Route({"pk": a, "qid": q1, "item_id": item.pk}, query={"want": "unjudged"})],
        "qa:judge": [
            Route(
                {"item_id": item.pk},
                ("POST",),
                form={
                    "version": version("instance", item=item),
                    "label": "correct",
                    "answer_class": str(classes[0].pk),
                },
            ),
            Route(
                {"item_id": item.pk},
                ("POST",),
                vary=("new_class", "class_label"),
                form={"version": version("instance", item=item), "new_class": "1", "class_label": "New class"},
            ),
        ],
        "assess:item_history": [Route({"item_id": item.pk})],
        "assess:question_history": [Route({"qid": q1})],
        "assess:auto_advance": [Route(methods=("POST",), form={"auto_advance": "1"})],
        "qa:classes": [Route({"pk": a, "qid": q1})],
        "qa:class_action": [
            Route(
                {"pk": a, "qid": q1, "class_id": classes[0].pk, "action": "rename"},
                ("POST",),
                form={"label": "Renamed"},
            ),
            Route(
                {"pk": a, "qid": q1, "class_id": classes[0].pk, "action": "merge"},
                ("POST",),
                form={"sources": [str(classes[1].pk)]},
            ),
            Route(
                {"pk": a, "qid": q1, "class_id": classes[0].pk, "action": "split"},
                ("POST",),
                form={"items": [str(item.pk)], "label": "Split off"},
            ),
        ],
        "qa:found_answer": [
            Route(
                {"pk": a, "qid": q1},
                ("POST",),
                form={"docid": blog_doc.docno, "text": "found it", "answer_class": str(classes[0].pk)},
            )
        ],
        "qa:nuggets": [Route({"pk": a, "qid": q2})],
        "qa:nugget_create": [Route({"pk": a, "qid": q2}, ("POST",), form={"text": "a nugget"})],
        "qa:nugget_order": [
            Route({"pk": a, "qid": q2}, ("POST",), form={"order": [str(n.pk) for n in reversed(nuggets)]})
        ],
        "qa:nugget_action": [
            Route(
                {"pk": a, "qid": q2, "nugget_id": nuggets[0].pk, "action": "edit"}, ("POST",), form={"text": "edited"}
            ),
            Route({"pk": a, "qid": q2, "nugget_id": nuggets[0].pk, "action": "down"}, ("POST",)),
            Route(
                {"pk": a, "qid": q2, "nugget_id": nuggets[0].pk, "action": "merge"},
                ("POST",),
                form={"sources": [str(nuggets[1].pk)]},
            ),
            Route(
                {"pk": a, "qid": q2, "nugget_id": nuggets[0].pk, "action": "delete"}, ("POST",), form={"confirm": "yes"}
            ),
        ],
        "qa:match": [
            Route(
                {"item_id": squishy_item.pk},
                ("POST",),
                form={"version": version("nugget_match", item=squishy_item), "nuggets": [str(nuggets[0].pk)]},
            )
        ],
        "qa:vote": [
            Route(
                {"nugget_id": nuggets[0].pk},
                ("POST",),
                form={"version": version("nugget_vote", nugget=nuggets[0]), "vote": "vital", "set": "first"},
            )
        ],
        "qa:vote_series": [Route({"series_id": mine.topic_id})],
        "qa:adjudication": [Route({"slug": tac_slug})],
        "qa:adjudicate": [
            Route(
                {"item_id": qa_disputed.pk},
                ("POST",),
                form={"version": "0", "label": "correct", "answer_class": str(classes[0].pk)},
            )
        ],
        "qa:nil_answers": [
            Route({"slug": "demo-trec2007"}, ("GET", "POST"), form={"qid": trec_factoid.ident, "decision": "nil"})
        ],
        "qa:ciqa_overview": [Route({"slug": c_slug})],
        "qa:ciqa_upload_run": [
            Route(
                {"slug": c_slug},
                ("POST",),
                form={"team": "Team Alpha", "stage": "initial", "initial": ""},
                files={"file": ("AlphaCI1.txt", ciqa_run)},
                post_as_is=False,
            )
        ],
        "qa:ciqa_upload_urls": [
            Route({"slug": c_slug}, ("POST",), form={"team": "Team Alpha"}, files={"file": ("u.txt", ciqa_urls)})
        ],
        "qa:ciqa_upload_screenshot": [
            Route({"slug": c_slug, "pk": alpha_file.pk}, ("POST",), files={"file": ("s.png", png)})
        ],
        "qa:ciqa_make_baseline": [Route({"slug": c_slug}, ("POST",), form={"run": "NISTbaseI"})],
        "qa:ciqa_plan": [Route({"slug": c_slug}, ("POST",), form={"seconds": "300"})],
        "qa:ciqa_define_questionnaire": [
            Route({"slug": c_slug}, ("POST",), form={"definition": "[interaction]\ntext a | Q\n"})
        ],
        "qa:ciqa_questionnaire_csv": [Route({"slug": c_slug})],
        "qa:ciqa_questionnaire_summary": [Route({"slug": c_slug})],
        "qa:ciqa_board": [Route({"slug": c_slug})],
        "qa:ciqa_screenshot": [Route({"pk": shot.pk})],
        "qa:ciqa_sessions": [Route({"slug": c_slug})],
        "qa:ciqa_questionnaire": [
            Route({"slug": done.slug}, ("GET", "POST"), form={f"{done_file.pk}-understand": "3", "all-favourite": "x"})
        ],
        "qa:ciqa_session": [Route({"pk": s_alpha.pk})],
        "qa:ciqa_session_start": [Route({"pk": s_alpha.pk}, ("POST",))],
        "qa:ciqa_session_end": [Route({"pk": s_base.pk}, ("POST",), form={"early": "1"})],
        "qa:ciqa_session_skip": [Route({"pk": s_alpha.pk}, ("POST",), form={"reason": "the system is down"})],
        "qa:ciqa_sentences": [Route({"pk": s_base.pk}, ("GET", "POST"), form={f"s-{sentence.pk}": "relevant"})],
        "qa:ciqa_demo_system": [Route({"ident": "901"}, query={"team": "Alpha"})],
        "assess:organize_index": [Route()],
        "assess:organize": [Route({"slug": tac_slug})],
        "assess:evaluation_progress": [Route({"slug": tac_slug}), Route({"slug": bolt_slug})],
        "assess:invite": [
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={"kind": "voter", "series": str(mine.topic_id), "user": str(w["assessor2"].pk)},
            )
        ],
        "assess:second_assessor": [
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={
                    "series": str(Topic.objects.get(evaluation=tac, ident="1003").pk),
                    "user": str(w["assessor2"].pk),
                },
            )
        ],
        "assess:revote": [Route({"slug": tac_slug}, ("POST",), form={"series": str(mine.topic_id)})],
        "assess:closure": [Route({"topic_id": q1, "action": "close"}, ("POST",))],
        "scoring:scoreboard": [Route({"slug": tac_slug})],
        "scoring:board": [Route({"slug": tac_slug})],
        "scoring:significance": [Route({"slug": tac_slug})],
        "scoring:release": [
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={"team": str(Team.objects.get(name="Team Alpha").pk), "action": "withdraw"},
            )
        ],
        "scoring:rescore": [Route({"slug": tac_slug}, ("POST",), post_as_is=False)],
        "scoring:export": [Route({"slug": tac_slug, "kind": "list"})],
        "scoring:run_report": [Route({"slug": tac_slug, "tag": "AlphaQA1"})],
        "scoring:run_report_csv": [Route({"slug": tac_slug, "tag": "AlphaQA1"})],
        "scoring:run_report_json": [Route({"slug": tac_slug, "tag": "AlphaQA1"})],
        "qa4mre:overview": [Route({"slug": q_slug})],
        "qa4mre:upload_gold": [Route({"slug": q_slug}, ("POST",), files={"gold": ("gold.xml", gold)})],
        "qa4mre:results": [Route({"slug": q_slug})],
        "qa4mre:questions": [Route({"slug": q_slug})],
        "qa4mre:reading_test": [
            Route({"slug": q_slug, "ident": Topic.objects.filter(evaluation=qa4mre, kind="reading-test").first().ident})
        ],
        "qa4mre:run_report": [
            Route({"slug": q_slug, "tag": Run.objects.filter(evaluation=qa4mre, team__name="Team Alpha").first().tag})
        ],
        "bolt:topic": [Route({"pk": b_mine.pk})],
        "bolt:item": [Route({"pk": b_mine.pk, "item_id": citation.pk})],
        "bolt:find": [Route({"pk": b_mine.pk}, query={"thread": thread.docno})],
        "bolt:add_found": [
            Route(
                {"pk": b_mine.pk},
                ("POST",),
                json={
                    "thread": thread.docno,
                    "post": post["id"],
                    "offset": 0,
                    "length": 5,
                    "passage": "found",
                    "rel": "yes",
                },
            )
        ],
        "bolt:view": [
            Route({"pk": b_mine.pk, "item_id": view_item.pk}, ("GET", "POST"), query={"saved": "1"}, form=view_form)
        ],
        "bolt:view_answer": [
            Route(
                {"pk": b_mine.pk, "item_id": view_item.pk},
                ("POST",),
                json={"group": "", "name": "relevant", "member": "", "answer": "yes", "version": 0},
            ),
            Route(
                {"pk": b_mine.pk, "item_id": view_item.pk},
                ("POST",),
                vary=("group", "member"),
                json={
                    "group": groups[0]["number"],
                    "name": "belongs",
                    "member": groups[0]["citations"][0]["key"],
                    "answer": "no",
                    "version": 0,
                },
            ),
        ],
        "bolt:judge": [
            Route(
                {"item_id": citation.pk},
                ("POST",),
                json={"version": 1, "value": {"rel": "yes", "trans": "accept", "chksrc": True, "relspans": [[0, 3]]}},
            )
        ],
        "bolt:agreement": [Route({"slug": bolt_slug})],
        "bolt:adjudication": [Route({"slug": bolt_slug})],
        "bolt:near_duplicates": [Route({"slug": bolt_slug}, query={"run": bolt_alpha_tag})],
        "bolt:groupings": [Route({"slug": bolt_slug})],
        "bolt:adjudicate": [
            Route(
                {"slug": bolt_slug, "item_id": citation.pk},
                ("GET", "POST"),
                query={"decided": "1"},
                form={"version": "0", "rel": "yes", "trans": "accept", "chksrc": "on", "spans": "primary", "adopt": ""},
            )
        ],
        "bolt:team_topics": [Route({"slug": bolt_slug})],
        "bolt:export": [Route({"slug": bolt_slug, "tag": "alpha1"})],
        "biogen:topic": [Route({"pk": bg_mine.pk})],
        "biogen:item": [Route({"pk": bg_mine.pk, "item_id": bg_item.pk})],
        "biogen:judge": [
            Route(
                {"item_id": bg_item.pk}, ("POST",), json={"version": 1, "value": {"label": "accurate", "evidence": []}}
            )
        ],
        "biogen:overview": [Route({"slug": bg_ev.slug})],
        "biogen:adjudication": [Route({"slug": bg_ev.slug})],
        "biogen:adjudicate": [Route({"slug": bg_ev.slug, "item_id": bg_disputed.pk})],
        "biogen:decide": [
            Route(
                {"slug": bg_ev.slug, "item_id": bg_disputed.pk},
                ("POST",),
                form={"version": "0", "label": labels_for(bg_disputed.data["kind"])[0], "adopt": ""},
            )
        ],
    }
    return w | {"routes": routes}


# --- the requests ---------------------------------------------------------------------------------------------


def _mutations(route, r, pattern, with_path=True):
    """(description, method, url, request keyword arguments) for every malformed variant of one route spec: the
    route string `r` of URL pattern `pattern` filled with the spec's values, one of them malformed at a time."""
    url = _url(r, route.kwargs)
    form_kw = {"data": _with_files(route.form, route.files)} if route.form or route.files else {}
    method = route.methods[0]  # the view's lookups come before it looks at the method
    for name, kind in _converter_kinds(pattern).items() if with_path else ():
        for bad in BAD_PATH.get(kind, BAD_PATH["str"]):
            bad_url = _url(r, route.kwargs | {name: bad})
            yield f"path {name}={bad!r:.40}", method, bad_url, form_kw if method == "POST" else {}
    if "GET" in route.methods:
        yield "junk query", "GET", url, {"QUERY_STRING": "x=%00&=&&%zz&y=%FF%FE"}
        for name in route.query:
            for bad in _bad_values(route.query[name]) + [[HUGE, "\x00", "x:1:²"]]:
                query = urlencode(route.query | {name: bad}, doseq=True)
                yield f"query {name}={bad!r:.40}", "GET", url, {"QUERY_STRING": query}
        if route.query:
            raw = "&".join(f"{name}=%FF%00" for name in route.query)
            yield "query invalid UTF-8", "GET", url, {"QUERY_STRING": raw}
    if "POST" not in route.methods or not route.post_as_is:
        return
    if route.json is not None:
        for body in BAD_BODIES if route.vary is None else ():
            yield f"JSON body {body!r}", "POST", url, {"data": body, "content_type": "application/json"}
        for path, bad in _json_mutations(route.json, keys=route.vary):
            body = json.dumps(bad)
            yield f"JSON {path}", "POST", url, {"data": body, "content_type": "application/json"}
        return
    if route.vary is None:
        yield (
            "invalid UTF-8 form",
            "POST",
            url,
            {"data": b"version=%FF&label=%00\xff", "content_type": "application/x-www-form-urlencoded"},
        )
    for name, valid in route.form.items():
        if route.vary is not None and name not in route.vary:
            continue
        repeated = [[HUGE, "\x00"]] if isinstance(valid, list) else []  # getlist() fields
        for bad in _bad_values(valid) + repeated + [None]:
            form = dict(route.form)
            if bad is None:
                form.pop(name)
            else:
                form[name] = bad
            what = f"form {name} left out" if bad is None else f"form {name}={bad!r:.40}"
            yield what, "POST", url, {"data": _with_files(form, route.files)}
    for name, (filename, content) in route.files.items():
        if route.vary is not None and name not in route.vary:
            continue
        for label, bad_name, bad_content in _file_mutations(filename, content):
            files = route.files | {name: (bad_name, bad_content)}
            yield f"file {name} {label}", "POST", url, {"data": _with_files(route.form, files)}


def _bad_values(valid):
    numeric = any(ch.isdigit() for ch in "".join(valid if isinstance(valid, list) else [valid]))
    return BAD_TEXT + (BAD_NUMBERS if numeric else [])


def _with_files(form, files):
    data = dict(form)
    for name, (filename, content) in files.items():
        data[name] = SimpleUploadedFile(filename, content)
    return data


def _file_mutations(filename, content):
    cut = content.find(b"\n", 40) if b"\n" in content[40:] else len(content) // 2
    yield "empty", filename, b""
    yield "of NUL bytes", filename, b"\x00" * 64
    yield "of invalid UTF-8", filename, b"\xff\xfe\xfa" + content
    yield "with a NUL byte in a line", filename, content[: cut - 3] + b"\x00" + content[cut - 3 :]
    yield "with a huge number", filename, re.sub(rb"\b1\b", HUGE.encode(), content, count=3)
    yield "with a NUL in its name", filename.replace(".", "\x00."), content


def _json_mutations(valid, path="body", keys=None):
    """(path, body) with one value replaced by each bad value, or left out; nested objects too."""
    for key, value in valid.items():
        if keys is not None and key not in keys:
            continue
        where = f"{path}.{key}"
        yield f"{where} left out", {k: v for k, v in valid.items() if k != key}
        for bad in BAD_JSON:
            yield f"{where}={bad!r:.40}", valid | {key: bad}
        if isinstance(value, dict):
            for inner_path, inner in _json_mutations(value, where):
                yield inner_path, valid | {key: inner}
        if isinstance(value, list) and value and isinstance(value[0], list):
            for bad in BAD_JSON:
                yield f"{where}[0][0]={bad!r:.40}", valid | {key: [[bad] + value[0][1:]]}


def _send(client, method, url, kwargs):
    """One request in a savepoint that is always rolled back: the next request sees the same world."""
    sid = transaction.savepoint_create()
    try:
        if method == "GET":
            query = kwargs.get("QUERY_STRING")
            return client.get(url, QUERY_STRING=query) if query is not None else client.get(url)
        return client.post(url, **kwargs)
    finally:
        transaction.savepoint_rollback(sid)


def _failure(response, method, url, what):
    error = ""
    if getattr(response, "exc_info", None):
        exc = response.exc_info[1]
        error = f": {type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
    return f"{response.status_code} {method} {url[:100]!r} ({what}){error}"


def _walk(client, routes, only=None, keep=lambda what: True):
    """Send every malformed variant `keep` accepts to every route (or those in `only`); returns (failures as
    readable lines, requests sent, route names walked)."""
    failures, sent, seen = [], 0, set()
    for name, route_str, pattern in _patterns(get_resolver()):
        if name in PUBLIC or (only and name not in only):
            continue
        seen.add(name)
        for n, route in enumerate(routes[name]):  # the first spec of a page stands for its path values
            for what, method, url, kwargs in _mutations(route, route_str, pattern, with_path=n == 0):
                if not keep(what):
                    continue
                response = _send(client, method, url, kwargs)
                sent += 1
                if response.status_code not in ALLOWED:
                    failures.append(f"{name}: " + _failure(response, method, url, what))
    return failures, sent, seen


def _roles_of(view):
    """allowed_roles that role_required put on the view (or on a view it wraps)."""
    while view is not None:
        if getattr(view, "allowed_roles", None):
            return view.allowed_roles
        view = getattr(view, "__wrapped__", None)
    return frozenset()


def _client(user):
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def _quiet_500s(caplog):
    """Each 500 is reported by the test itself; Django's error log of the same would bury the report."""
    import logging

    caplog.set_level(logging.CRITICAL, logger="django.request")


def test_every_route_has_real_parameters(db, world):
    names = {name for name, _, _ in _patterns(get_resolver())} - PUBLIC
    assert names == set(world["routes"]), "add the new page to ROUTES in world()"


def test_no_malformed_parameter_answers_500_for_a_user_with_every_role(db, world):
    failures, sent, seen = _walk(_client(world["everyone"]), world["routes"])
    assert len(seen) > 60 and sent > 900  # the walk reached every app's pages with many variants
    assert failures == [], f"{len(failures)} of {sent} malformed requests failed:\n" + "\n".join(failures)


ADJUDICATION = {
    "qa:adjudication",
    "qa:adjudicate",
    "bolt:adjudication",
    "bolt:adjudicate",
    "biogen:adjudication",
    "biogen:adjudicate",
    "biogen:decide",
}


def _valid_requests(route, r):
    """The route spec's own, well-formed requests."""
    url = _url(r, route.kwargs)
    if "GET" in route.methods:
        yield "GET", url, {"QUERY_STRING": urlencode(route.query, doseq=True)}
    if "POST" in route.methods and route.post_as_is:
        if route.json is not None:
            yield "POST", url, {"data": json.dumps(route.json), "content_type": "application/json"}
        else:
            yield "POST", url, {"data": _with_files(route.form, route.files)}


@pytest.mark.parametrize("username", ["everyone", "organizer"])
def test_the_real_parameters_reach_the_views(db, world, username):
    """The walk means something only if its well-formed requests get past the views' lookups: each is answered
    200 (or a redirect after a form post), not 403 or 404. Adjudication pages are the organizer's here."""
    client, refused = _client(world[username]), []
    for name, route_str, _ in _patterns(get_resolver()):
        if name in PUBLIC or (name in ADJUDICATION) != (username == "organizer"):
            continue
        for route in world["routes"][name]:
            for method, url, kwargs in _valid_requests(route, route_str):
                response = _send(client, method, url, kwargs)
                if response.status_code not in (200, 302):
                    refused.append(f"{name}: {response.status_code} {method} {url}")
    assert refused == [], "\n".join(refused)


def test_adjudicators_get_no_500_either(db, world):
    """The all-roles user judged the disputed items, so only an organizer reaches the adjudication bodies."""
    failures, sent, _ = _walk(_client(world["organizer"]), world["routes"], only=ADJUDICATION)
    assert sent > 60
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize("username", ["organizer", "assessor2", "participant"])
def test_each_single_role_gets_no_500_on_malformed_ids(db, world, username):
    """Single roles, on the pages their role may open (elsewhere the role check refuses before the view reads
    anything): the real ids with a junk query, and the malformed path values."""
    from config.roles import roles_of

    user = world[username]
    mine = {
        name
        for name, _, pattern in _patterns(get_resolver())
        if name not in PUBLIC and _roles_of(pattern.callback) & roles_of(user)
    }
    failures, sent, _ = _walk(
        _client(user), world["routes"], only=mine, keep=lambda what: what.startswith("path") or what == "junk query"
    )
    assert sent > 20
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize(
    "cookie",
    ['sessionid="abcdefghij\\000klmnopqrstuvwxyz"', "sessionid=" + "x" * 5000, 'csrftoken="\\000"; sessionid=abc'],
)
def test_a_malformed_session_cookie_is_no_500(db, cookie):
    client = Client(raise_request_exception=False)
    for url in ("/", "/assess/", "/evaluations/"):
        sid = transaction.savepoint_create()
        try:
            response = client.get(url, HTTP_COOKIE=cookie)
        finally:
            transaction.savepoint_rollback(sid)
        assert response.status_code in ALLOWED, _failure(response, "GET", url, cookie)


@pytest.mark.parametrize("case", ["run tag", "manifest"])
def test_a_digit_int_refuses_in_a_run_tag_or_a_manifest_is_a_400(db, world, case):
    from tracks.qa import demo_evaluation as tac_demo

    tag = "AlphaQA²" if case == "run tag" else "AlphaQA9"
    run = SimpleUploadedFile("run.txt", tac_demo.run_file_bytes(tag, tac_demo.ALPHA_1, tac_demo._documents()))
    form = (
        {"team": "Team Alpha", "files": run}
        if case == "run tag"
        else {"files": run, "manifest": SimpleUploadedFile("manifest.txt", "run.txt Gamma ²\n".encode())}
    )
    response = _send(_client(world["everyone"]), "POST", "/evaluations/demo-tac2008/runs/upload/", {"data": form})
    assert response.status_code == 400


def test_the_parameter_helpers_refuse_what_postgresql_would():
    from config import params
    from config.converters import IdConverter

    assert params.integer(" 12 ", "n") == 12 and params.optional_integer("", "n") is None
    assert params.version(str(params.INT_MAX)) == params.INT_MAX
    for bad in ("²", "١٢", "-1", "1.5", True, 1.5, None, [], str(params.BIGINT_MAX + 1)):
        with pytest.raises(params.BadParameter):
            params.integer(bad, "n")
    with pytest.raises(params.BadParameter):
        params.version(str(params.INT_MAX + 1))
    with pytest.raises(params.BadParameter):
        params.text("a\x00b", "t")
    assert params.text(None, "t", "yes") == "yes"
    for body in (b"[]", b"\xff", b'{"a": NaN}'):
        with pytest.raises(params.BadParameter):
            params.json_object(body)
    assert params.json_object(b"") == {}
    assert IdConverter().to_python(str(params.BIGINT_MAX)) == params.BIGINT_MAX
    with pytest.raises(ValueError):
        IdConverter().to_python(str(params.BIGINT_MAX + 1))
