"""Real requests for every page of every registered track, for the shared tests that walk the pages
(tests/test_malformed_parameters.py, tests/test_keymap.py).

The demo (pooling.demo: every registered track's core.extension_points.demo) supplies the objects. Each installed
track app supplies its own pages' samples in a `samples` module beside its tests (tests/tracks/<name>/samples.py
for tracks/<name>/; a track app defined inside the test suite keeps it in its own folder), with

    routes(world) -> {URL name: [Route, ...]}   every URL pattern of the app's urls.py, with real values
    key_pages(world) -> {page ident: (user key of `world`, URL)}   every judging page its Tracks hold

`world` holds the demo's users ("everyone" holds every role and is the demo's primary assessor, "organizer",
"assessor2", "participant") and the objects the shared routes use. So a new track is walked by adding its samples
module; the shared tests fail, naming the page, until it covers every route and page the track registers.
"""

from dataclasses import dataclass, field
from importlib import import_module

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.test import override_settings


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
    adjudication: bool = False  # an adjudication page: walked as the organizer (who judged none of the items)


def track_apps():
    """The installed track apps with pages (an AppConfig with a url_prefix, as config/urls.py mounts them)."""
    return [app for app in apps.get_app_configs() if getattr(app, "url_prefix", None)]


def samples_of(app):
    """The samples module of a track app: tests/tracks/<name>/samples.py for tracks.<name>, <app>/samples.py for
    an app inside the test suite."""
    name = app.name if app.name.startswith("tests.") else f"tests.{app.name}"
    return import_module(f"{name}.samples")


@pytest.fixture(scope="module")
def demo_world(django_db_setup, django_db_blocker):
    """The demo and every track's samples, built once for the module inside a transaction rolled back at its end."""
    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the demo's scoring runs in-process, as in every test
    # the demo users' passwords are never used here: a fast hasher saves seconds of PBKDF2
    fast_hashing = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock(), fast_hashing, transaction.atomic():
        try:
            yield _build()
        finally:
            app.conf.task_always_eager = eager
            transaction.set_rollback(True)


def _build():
    from accounts.models import Team
    from config.roles import ORGANIZER, PARTICIPANT
    from pooling.demo import run_all

    run_all(out=lambda *args: None)
    users = get_user_model().objects
    # The demo's primary assessor also organizes and takes part, so one user reaches every view's body.
    everyone = users.get(username="assessor")
    everyone.groups.add(*Group.objects.filter(name__in=[ORGANIZER, PARTICIPANT]))
    Team.objects.get(name="Team Alpha").members.add(everyone)
    world = {
        "everyone": everyone,
        "organizer": users.get(username="organizer"),
        "assessor2": users.get(username="assessor2"),
        "participant": users.get(username="participant"),
    }
    routes, pages = {}, {}
    for app in track_apps():
        samples = samples_of(app)
        found = samples.routes(world)
        assert not set(found) & set(routes), f"{app.name}: routes sampled twice: {set(found) & set(routes)}"
        routes |= found
        pages |= samples.key_pages(world)
    return world | {"track_routes": routes, "key_pages": pages}


def suggest_first(evaluation, topic):
    """The topic drawn *suggest first* in the evaluation's assist design (made if there is none): machine
    suggestions of its nugget list are shown at once."""
    from assess.models import AssistDesign

    design, _ = AssistDesign.objects.get_or_create(
        evaluation=evaluation, defaults={"unit": "topic", "conditions": ["suggest_first"], "seed": 0}
    )
    design.topics = dict(design.topics, **{topic.ident: "suggest_first"})
    design.save(update_fields=["topics"])


def shown_proposals(evaluation, topic):
    """A model server's nugget proposals (one) for the topic, shown at once."""
    from assess import assist_nuggets
    from assess.models import Suggestion

    suggest_first(evaluation, topic)
    return Suggestion.objects.get_or_create(
        evaluation=evaluation,
        topic=topic,
        kind=assist_nuggets.KIND,
        defaults={
            "value": {"nuggets": [{"text": "A proposed fact", "importance": "okay"}]},
            "source": "model",
            "source_name": "tiny",
        },
    )[0]


def assert_item_read_with_session(queries, alias="i", tables=()):
    """On PostgreSQL the save's item (alias "i": assess.fastsave's ITEM_WITH_SESSION; "n": the nugget of
    NUGGET_WITH_SESSION) is read in the session's statement (config.auth.read_with_session): no statement of its
    own, and none of `tables` read by any other statement (the ORM's reads name them quoted)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        sqls = [q["sql"] for q in queries]
        assert any(f"LEFT JOIN LATERAL (SELECT TRUE, {alias}.id" in s for s in sqls)
        others = [s for s in sqls if "LEFT JOIN LATERAL" not in s]
        assert not any(s.startswith(f"SELECT {alias}.id") for s in others)
        for table in tables:
            assert not any(f'FROM "{table}"' in s for s in others), f"{table} read on its own"
