"""The REST API (issue 18): token authentication (made and revoked on the user's page), the whole organizer flow
through the same functions as the pages (create, topics, runs checked and stored, pools built with a 202 and a
status URL, judgments exported and imported, rescoring, scores, reports), every endpoint under every role, and the
schema at /api/schema/ validating as OpenAPI 3."""

import io
import json
from pathlib import Path

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from openapi_spec_validator import validate
from rest_framework.test import APIClient

from accounts.models import Team
from api.models import ApiToken
from api.tokens import create_token
from assess.models import Assignment
from core.tracks import TRACKS
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.models import Evaluation, PoolItem, Run
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from scoring.release import release
from tests.conftest import new_user
from tracks.bolt import judging

pytestmark = pytest.mark.django_db
BOLT = Path(__file__).resolve().parents[1] / "fixtures" / "bolt"


def api(user=None):
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(user)}")
    return client


def upload(name, data):
    f = io.BytesIO(data)
    f.name = name
    return f


@pytest.fixture(scope="module")
def _world_keys(django_db_setup, django_db_blocker):
    """A BOLT evaluation with topics, two teams' runs, pools, one judgment and an assignment; Team Alpha's
    scores released to it. Built once for the module inside a transaction rolled back at its end: each test runs
    in a savepoint of it (the `db` fixture), so what one test writes never reaches another."""
    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the release's scoring runs in-process, as in every test
    with django_db_blocker.unblock(), transaction.atomic():
        try:
            load_collection("api-forum", "bolt-forum", [BOLT / "forum.xml"])
            ev = create_evaluation("api-bolt", "bolt-ir-p2", ["api-forum"])
            load_topics(ev, (BOLT / "topics.xml").read_bytes(), "topics.xml")
            load_run_files(
                ev,
                [
                    RunFile(
                        filename="alpha1.xml", data=(BOLT / "alpha1.xml").read_bytes(), team="Team Alpha", priority=1
                    ),
                    RunFile(filename="beta1.xml", data=(BOLT / "beta1.xml").read_bytes(), team="Team Beta", priority=1),
                ],
            )
            build_pools(ev)
            organizer = new_user("org", "organizer")
            assessor = new_user("api-assessor", "assessor")
            topic = ev.topics.get(ident="1.002")
            Assignment.objects.create(evaluation=ev, topic=topic, assessor=assessor)
            judging.judge_citation(assessor, judging.citation_items(topic)[0], {"rel": "yes"}, 0)
            alpha = new_user("alpha", "participant", "Team Alpha")
            beta = new_user("beta", "participant", "Team Beta")
            release(ev, Team.objects.get(name="Team Alpha"), by="test")
            people = {"organizer": organizer, "assessor": assessor, "alpha": alpha, "beta": beta}
            yield {"ev": ev.pk, **{role: user.pk for role, user in people.items()}}
        finally:
            app.conf.task_always_eager = eager
            transaction.set_rollback(True)


@pytest.fixture
def world(db, _world_keys):
    """The module's world, read afresh for each test (no test sees another's in-memory changes)."""
    users = get_user_model().objects
    return {
        "ev": Evaluation.objects.get(pk=_world_keys["ev"]),
        **{role: users.get(pk=pk) for role, pk in _world_keys.items() if role != "ev"},
    }


def test_tokens_are_made_on_the_users_page_shown_once_and_revoked(client, world):
    client.force_login(world["alpha"])
    page = client.post(reverse("api:token"), {"action": "create"}).content.decode()
    key = page.split('<pre id="api-key">')[1].split("</pre>")[0]
    stored = ApiToken.objects.get(user=world["alpha"])
    assert key not in stored.digest and key.startswith(stored.prefix)  # only a digest is kept
    assert key not in client.get(reverse("api:token")).content.decode()  # shown once
    token = APIClient()
    token.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert token.get("/api/evaluations/api-bolt/runs/").status_code == 200
    assert token.get("/api/evaluations/").status_code == 403  # the participant's role, not more
    client.post(reverse("api:token"), {"action": "revoke"})
    assert token.get("/api/evaluations/api-bolt/runs/").status_code == 401
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token nope")
    r = bad.get("/api/evaluations/")
    assert r.status_code == 401 and r["WWW-Authenticate"] == "Token"
    assert APIClient().get("/api/evaluations/").status_code == 401
    # an organizer revokes anyone's
    key = create_token(world["beta"])
    org = api(world["organizer"])
    assert org.delete("/api/users/beta/token/").status_code == 204
    revoked = APIClient()
    revoked.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert revoked.get("/api/evaluations/api-bolt/runs/").status_code == 401


def test_users_teams_and_token_revocations_by_api_are_in_the_audit_log(world):
    from core.models import AuditEntry

    org = api(world["organizer"])
    r = org.post(
        "/api/users/",
        {"username": "newbie", "role": "assessor", "password": "a-long-enough-pass-9", "team": ""},
        format="json",
    )
    assert r.status_code == 201
    made = AuditEntry.objects.get(action="user created", target="newbie")
    assert made.user == world["organizer"] and made.before is None and made.after["roles"] == ["assessor"]
    r = org.post("/api/users/", {"username": "newbie", "role": "participant", "team": "Team Beta"}, format="json")
    assert r.status_code == 201
    changed = AuditEntry.objects.get(action="user changed", target="newbie")
    assert changed.before["teams"] == [] and changed.after["teams"] == ["Team Beta"]
    assert changed.after["roles"] == ["assessor", "participant"]
    assert org.post("/api/teams/", {"name": "Team Gamma", "members": ["newbie"]}, format="json").status_code == 201
    team = AuditEntry.objects.get(action="team changed", target="Team Gamma")
    assert team.before is None and team.after == {"members": ["newbie"]}
    assert org.post("/api/teams/", {"name": "Team Gamma", "members": ["newbie"]}, format="json").status_code == 200
    assert AuditEntry.objects.filter(action="team changed").count() == 1  # nothing changed, nothing logged
    create_token(world["beta"])
    assert org.delete("/api/users/beta/token/").status_code == 204
    assert AuditEntry.objects.get(action="api token revoked").target == "beta"
    listed = {u["username"]: u for u in org.get("/api/users/").json()["results"]}
    assert listed["newbie"]["roles"] == ["assessor", "participant"] and listed["newbie"]["teams"] == [
        "Team Beta",
        "Team Gamma",
    ]


def test_an_organizers_script_runs_an_evaluation_end_to_end(world, django_capture_on_commit_callbacks):
    org = api(world["organizer"])
    r = org.post(
        "/api/evaluations/",
        {"slug": "api-new", "track": "bolt-ir-p2", "collections": ["api-forum"], "settings": {"near_dup_percent": 90}},
        format="json",
    )
    assert r.status_code == 201 and r.json()["settings"]["near_dup_percent"] == 90
    assert org.post("/api/evaluations/", {"slug": "api-new", "track": "nope"}, format="json").json() == {
        "problems": [
            f"unknown track 'nope'; known tracks: {', '.join(sorted(TRACKS))}",
            "an evaluation with slug 'api-new' already exists",
        ]
    }
    r = org.post("/api/evaluations/api-new/topics/", {"file": upload("topics.xml", (BOLT / "topics.xml").read_bytes())})
    assert r.status_code == 201 and r.json()["loaded"] >= 2
    # a bad run is refused with FILE:LINE problems and nothing stored; the checker stores nothing either
    bad = (BOLT / "alpha1.xml").read_bytes().replace(b"</", b"<", 1)
    r = org.post("/api/evaluations/api-new/runs/check/", {"file": upload("bad.xml", bad)})
    assert r.status_code == 200 and not r.json()["ok"] and r.json()["problems"][0].startswith("bad.xml:")
    r = org.post("/api/evaluations/api-new/runs/", {"files": [upload("bad.xml", bad)], "team": "Team Alpha"})
    assert r.status_code == 400 and r.json()["runs"][0]["problems"][0].startswith("bad.xml:")
    assert not Run.objects.filter(evaluation__slug="api-new").exists()
    r = org.post(
        "/api/evaluations/api-new/runs/",
        {
            "files": [upload("alpha1.xml", (BOLT / "alpha1.xml").read_bytes())],
            "team": "Team Alpha",
            "priority": 1,
            "manual": True,
            "description": "queries rewritten by hand",
        },
    )
    assert r.status_code == 201 and r.json()["runs"][0]["stored"]
    stored = Run.objects.get(evaluation__slug="api-new")
    assert stored.is_manual and stored.data["description"] == "queries rewritten by hand"  # as the upload page
    tag = r.json()["runs"][0]["tag"]
    from pooling.models import Submission

    assert (
        Submission.objects.get(evaluation__slug="api-new", tag=tag).user == world["organizer"]
    )  # the receipt names the caller
    assert [x["tag"] for x in org.get("/api/evaluations/api-new/runs/").json()["results"]] == [tag]
    # pools: 202 and a status URL, polled until done
    with django_capture_on_commit_callbacks(execute=True):  # the task is sent once the request commits
        r = org.post("/api/evaluations/api-new/pools/")
    assert r.status_code == 202 and r["Location"] == r.json()["status_url"]
    status = org.get(r.json()["status_url"]).json()
    assert status["status"] == "done" and status["counts"]["created"] > 0
    assert PoolItem.objects.filter(evaluation__slug="api-new").count() == status["counts"]["created"]
    # settings, state, assignments
    assert (
        org.patch("/api/evaluations/api-new/", {"settings": {"allow_images": True}}, format="json").json()["settings"][
            "allow_images"
        ]
        is True
    )
    assert (
        org.post(
            "/api/evaluations/api-new/assignments/", {"series": "1.002", "username": "api-assessor"}, format="json"
        ).status_code
        == 201
    )
    assert org.get("/api/evaluations/api-new/").json()["state"] == "judging"  # as assigning on the page does
    assert org.post("/api/evaluations/api-new/state/", {"state": "nope"}, format="json").status_code == 400
    # judgments out (both formats) and into a fresh copy (202, all or nothing)
    export = b"".join(org.get("/api/evaluations/api-bolt/judgments/export/jsonl/").streaming_content).decode()
    assert '"type": "judgment"' in export
    assert org.get("/api/evaluations/api-bolt/judgments/").json()["count"] == 1
    copy = create_evaluation("api-copy", "bolt-ir-p2", ["api-forum"])
    load_topics(copy, (BOLT / "topics.xml").read_bytes(), "topics.xml")
    load_run_files(
        copy,
        [
            RunFile(filename=n, data=(BOLT / n).read_bytes(), team=t, priority=1)
            for n, t in (("alpha1.xml", "Team Alpha"), ("beta1.xml", "Team Beta"))
        ],
    )
    build_pools(copy)
    with django_capture_on_commit_callbacks(execute=True):
        r = org.post("/api/evaluations/api-copy/judgments/import/", {"file": upload("j.jsonl", export.encode())})
    assert r.status_code == 202
    job = org.get(r.json()["status_url"]).json()
    assert job["status"] == "done" and job["result"]["counts"]["judgment"] == 1
    with django_capture_on_commit_callbacks(execute=True):
        r = org.post("/api/evaluations/api-copy/judgments/import/", {"file": upload("j.jsonl", export.encode())})
    job = org.get(r.json()["status_url"]).json()
    assert job["status"] == "failed" and "already has judgments" in job["message"]
    # rescoring: 202; scores with their freshness; a run's report; delete
    with django_capture_on_commit_callbacks(execute=True):
        r = org.post("/api/evaluations/api-bolt/rescore/")
    assert r.status_code == 202 and org.get(r.json()["status_url"]).json()["status"] == "done"
    scores = org.get("/api/evaluations/api-bolt/scores/", {"scope": "run", "measure": "score"}).json()
    assert {x["run"] for x in scores["results"]} == set(
        Run.objects.filter(evaluation=world["ev"]).values_list("tag", flat=True)
    )
    assert scores["freshness"]["stale_questions"] == 0 and scores["freshness"]["fresh_as_of"]
    alpha_tag = Run.objects.get(evaluation=world["ev"], team__name="Team Alpha").tag
    report = org.get(f"/api/evaluations/api-bolt/runs/{alpha_tag}/report/").json()
    assert report["run"] == alpha_tag or alpha_tag in json.dumps(report)
    frozen = org.delete(f"/api/evaluations/api-new/runs/{tag}/")  # being judged: only with a reason
    assert frozen.status_code == 400 and "cannot be deleted without a reason" in frozen.json()["problems"][0]
    assert org.delete(f"/api/evaluations/api-new/runs/{tag}/?reason=withdrawn").status_code == 204
    assert not Run.objects.filter(evaluation__slug="api-new").exists()
    assert org.delete(f"/api/evaluations/api-new/runs/{tag}/").status_code == 404
    # users and teams
    r = org.post(
        "/api/users/",
        {"username": "gamma1", "role": "participant", "password": "a-long-pass-phrase-9", "team": "Team Gamma"},
        format="json",
    )
    assert r.status_code == 201 and r.json()["roles"] == ["participant"] and r.json()["teams"] == ["Team Gamma"]
    assert (
        org.post(
            "/api/users/", {"username": "gamma2", "role": "participant", "password": "gamma2"}, format="json"
        ).status_code
        == 400
    )
    assert org.post("/api/teams/", {"name": "Team Gamma", "members": ["beta"]}, format="json").json()["members"] == [
        "beta",
        "gamma1",
    ]
    assert org.post("/api/teams/", {"name": "X", "members": ["nobody"]}, format="json").status_code == 400


def test_participants_see_their_own_teams_runs_and_released_scores_only(world):
    alpha, beta = api(world["alpha"]), api(world["beta"])
    alpha_tag = Run.objects.get(evaluation=world["ev"], team__name="Team Alpha").tag
    beta_tag = Run.objects.get(evaluation=world["ev"], team__name="Team Beta").tag
    assert [r["tag"] for r in alpha.get("/api/evaluations/api-bolt/runs/").json()["results"]] == [alpha_tag]
    assert alpha.get(f"/api/evaluations/api-bolt/runs/{beta_tag}/").status_code == 404
    assert alpha.get(f"/api/evaluations/api-bolt/runs/{alpha_tag}/report/").status_code == 200
    assert beta.get(f"/api/evaluations/api-bolt/runs/{beta_tag}/report/").status_code == 404  # not released to Beta
    from scoring.rescore import rescore_evaluation

    rescore_evaluation(world["ev"].pk)
    assert {x["run"] for x in alpha.get("/api/evaluations/api-bolt/scores/").json()["results"]} == {alpha_tag}
    assert beta.get("/api/evaluations/api-bolt/scores/").json()["results"] == []
    assert alpha.delete(f"/api/evaluations/api-bolt/runs/{alpha_tag}/").status_code == 403


# --- every endpoint under every role ------------------------------------------------------------------------

ORG = "organizer"
ALL = ("organizer", "assessor", "alpha", "beta")
# (method, path, roles that get through the role check); the others get 403, anonymous 401
ENDPOINTS = [
    ("get", "/api/schema/", ALL),
    ("get", "/api/docs/", ALL),
    ("get", "/api/evaluations/", (ORG,)),
    ("post", "/api/evaluations/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/", (ORG,)),
    ("patch", "/api/evaluations/api-bolt/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/state/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/topics/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/topics/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/runs/", (ORG, "alpha", "beta")),
    ("post", "/api/evaluations/api-bolt/runs/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/runs/check/", (ORG, "alpha", "beta")),
    ("get", "/api/evaluations/api-bolt/runs/{alpha}/", (ORG, "alpha", "beta")),
    ("delete", "/api/evaluations/api-bolt/runs/{alpha}/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/runs/{alpha}/report/", (ORG, "alpha", "beta")),
    ("get", "/api/evaluations/api-bolt/pools/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/submissions/", (ORG, "alpha", "beta")),
    ("post", "/api/evaluations/api-bolt/submissions/", ("alpha", "beta")),
    ("post", "/api/evaluations/api-bolt/pools/", (ORG,)),
    ("get", "/api/pool-builds/{build}/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/assignments/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/assignments/", (ORG,)),
    ("delete", "/api/evaluations/api-bolt/assignments/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/judgments/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/judgments/export/jsonl/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/judgments/import/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/scores/", (ORG, "alpha", "beta")),
    ("post", "/api/evaluations/api-bolt/rescore/", (ORG,)),
    ("get", "/api/jobs/{job}/", (ORG,)),
    ("get", "/api/users/", (ORG,)),
    ("post", "/api/users/", (ORG,)),
    ("delete", "/api/users/beta/token/", (ORG,)),
    ("get", "/api/teams/", (ORG,)),
    ("post", "/api/teams/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/judgment-sets/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/judgment-sets/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/judgment-sets/{set}/", (ORG,)),
    ("delete", "/api/evaluations/api-bolt/judgment-sets/{set}/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/judgment-sets/{set}/release/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/judgment-sets/{set}/promote/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/agreement/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/agreement/disagreements/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/rankings/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/judge-runs/", ("alpha", "beta")),
    ("post", "/api/evaluations/api-bolt/judge-runs/", ("alpha", "beta")),
    ("get", "/api/evaluations/api-bolt/assist/design/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/assist/design/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/assist/suggestions/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/assist/suggestions/", (ORG,)),
    ("post", "/api/evaluations/api-bolt/assist/pass/", (ORG,)),
    ("get", "/api/evaluations/api-bolt/assist/report/", (ORG,)),
    ("get", "/api/items/{item}/suggestion/citation/", ("assessor",)),  # only an assigned one gets more than 404
    ("get", "/api/topics/{topic}/nugget-proposals/", ("assessor",)),  # (the same)
    ("post", "/api/topics/{topic}/nugget-proposals/", ("assessor",)),
]


def test_the_matrix_covers_every_api_route():
    from django.urls import get_resolver, resolve

    (api_urls,) = [p for p in get_resolver().url_patterns if getattr(p, "app_name", None) == "api"]
    routes = {p.name for p in api_urls.url_patterns} - {"token"}  # the token page is HTML, tested above
    covered = {
        resolve(path.format(alpha="a", build=1, job=1, set=1, item=1, topic=1)).url_name for _, path, _ in ENDPOINTS
    }
    assert covered == routes and len(routes) == 37


@pytest.mark.parametrize("method, path, allowed", ENDPOINTS, ids=[f"{m} {p}" for m, p, _ in ENDPOINTS])
def test_every_endpoint_under_every_role(world, method, path, allowed):
    from api.models import ApiJob

    alpha_tag = Run.objects.get(evaluation=world["ev"], team__name="Team Alpha").tag
    build = world["ev"].pool_builds.create(status="failed")
    job = ApiJob.objects.create(kind=ApiJob.RESCORE, evaluation=world["ev"], status="done")
    from scoring.models import JudgmentSet

    judgment_set = JudgmentSet.objects.create(evaluation=world["ev"], name="matrix", created_by=world["organizer"])
    item = world["ev"].pool_items.first()
    topic = world["ev"].topics.first()
    url = path.format(
        alpha=alpha_tag,
        build=build.pk,
        job=job.pk,
        set=judgment_set.pk,
        item=item.pk if item else 1,
        topic=topic.pk if topic else 1,
    )
    assert getattr(APIClient(), method)(url).status_code == 401
    for who in ALL:
        status = getattr(api(world[who] if who != ORG else world["organizer"]), method)(url, {}).status_code
        if who in allowed:
            assert status not in (401, 403), (who, status)
        else:
            assert status == 403, (who, status)


def test_the_schema_validates_as_openapi_3(world):
    r = api(world["organizer"]).get("/api/schema/")
    assert r.status_code == 200
    schema = yaml.safe_load(r.content)
    validate(schema)  # raises on anything that is not OpenAPI 3
    assert schema["openapi"].startswith("3.")
    assert "/api/evaluations/{slug}/runs/" in schema["paths"] and "tokenAuth" in schema["components"]["securitySchemes"]
    assert len(schema["paths"]) == 35  # schema and docs describe no path of their own
