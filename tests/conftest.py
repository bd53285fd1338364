"""Shared fixtures: users per role, a real Celery worker process on Redis, and Chromium through Playwright."""

import os
import re
import subprocess
import uuid
from pathlib import Path

import pytest

from config.patience import Deadline, scaled
from config.worker import start_worker, stop_worker

# Playwright's sync API runs an event loop in the test thread; Django's ORM would refuse to run beside it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Flags that keep Chromium from calling out on this closed network (and from needing a sandbox as root).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "test-pass-123"


@pytest.fixture(scope="session", autouse=True)
def _fast_reset():
    """After a transactional test, the tables are emptied without Django's flush where that is the same
    (tests/fast_reset.py: a tenth of the time)."""
    from tests import fast_reset

    fast_reset.install()


@pytest.fixture(autouse=True)
def _tasks_in_process(request, settings):
    """Unless a test asks for the real worker, tasks run in-process so unit tests need no broker."""
    from config.celery import app

    eager = "celery_worker" not in request.fixturenames
    # This process is never a worker; a flag some thread's eager Task.apply() left set would fail every later
    # result.get() (tests/test_eager_tasks.py shows the leak the application code no longer causes).
    from celery._state import _set_task_join_will_block

    _set_task_join_will_block(False)
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = eager
    yield
    app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _worker_idle_before_flush(request):
    """A test with the real worker ends only once the worker is idle. Its saves and loads queue rescoring tasks
    that may still run when the test returns; the database flush after a transactional test (TRUNCATE) then
    waits for the task's locks while the task waits for the flush: a deadlock, and the next tests find the
    rows the failed flush left behind. (Set up through this fixture, the database is torn down after it.)"""
    if "celery_worker" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("transactional_db")
    worker = request.getfixturevalue("celery_worker")
    yield
    _wait_until_idle(worker)


def _wait_until_idle(worker, timeout=60.0):
    """Until the worker's queue is empty and the worker answers that it runs nothing (a solo worker answers no
    control message while it runs a task, so no answer means busy)."""
    import time

    import redis
    from django.conf import settings as django_settings

    from config.celery import app

    client = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    deadline = Deadline(timeout)
    try:
        while not deadline.passed():
            if not client.llen(worker["queue"]):
                replies = app.control.inspect(destination=[worker["node"]], timeout=1.0).active() or {}
                if replies.get(worker["node"]) == [] and not client.llen(worker["queue"]):
                    return
            time.sleep(0.1)
    finally:
        client.close()


def new_user(username, role, team=None):
    """A user with PASSWORD in `role` (and `team`); for fixtures wider than one test, which cannot use make_user."""
    from accounts.people import ensure_user

    return ensure_user(username, role, PASSWORD, team)


@pytest.fixture
def make_user(db):
    return new_user


@pytest.fixture
def organizer(make_user):
    return make_user("org", "organizer")


@pytest.fixture
def assessor(make_user):
    return make_user("ass", "assessor")


@pytest.fixture
def participant(make_user):
    return make_user("par", "participant", team="Team Alpha")


def _database_url_for(settings_dict):
    if "postgresql" not in settings_dict["ENGINE"]:
        return None
    user = settings_dict.get("USER") or ""
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    host = settings_dict.get("HOST") or "localhost"
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgresql://{auth}{host}{port}/{settings_dict['NAME']}"


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker):
    """A real `celery worker` process on Redis, reading and writing the test database.

    Tests that use it must also use `transactional_db` (or `live_server`) so their data is committed where the
    worker can see it. Each test session gets its own queue so concurrent runs cannot steal each other's tasks.
    """
    from django.conf import settings as django_settings
    from django.db import connection

    from config.celery import app

    if not django_settings.CELERY_BROKER_URL:
        pytest.skip("CELERY_BROKER_URL is not set: the worker tests need Redis (run scripts/test)")
    database_url = _database_url_for(connection.settings_dict)
    if database_url is None:
        pytest.skip("the worker tests need PostgreSQL (an in-memory SQLite test database is per process)")

    queue = f"assay-test-{uuid.uuid4().hex[:8]}"
    node = f"{queue}@localhost"
    # Its stale-score sweep runs at start-up only: every minute it would rescore whatever another test left
    # stale in this database, such as the marks a test with the worker "stopped" (own_queue) counts on, which
    # then saw a pass find nothing (a full-suite failure). The tests of the periodic sweep start their own worker.
    env = dict(os.environ, DATABASE_URL=database_url, CELERY_QUEUE=queue, CELERY_TASK_ALWAYS_EAGER="0")
    env["SCORING_SWEEP_SECONDS"] = "0"
    env.pop("TEST_DATABASE_NAME", None)
    log = open(ROOT / f".pytest_cache/{queue}.log", "w") if (ROOT / ".pytest_cache").is_dir() else subprocess.DEVNULL
    old_queue = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    proc = None
    try:
        proc = start_worker(queue, env, app, node=node, log=log)
        yield {"node": node, "queue": queue, "process": proc}
    finally:
        app.conf.task_default_queue = old_queue
        if proc is not None:
            stop_worker(proc)


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test installs Debian's chromium package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        chromium.new_context = _with_patience(chromium.new_context)
        _function_predicates_only()
        yield chromium
        chromium.close()


def _with_patience(new_context):
    """Playwright's waits stretch with the machine's load (config.patience), in every context a test opens
    (a second tab, another user) as in `page`'s: a busy CI host is not a failure. Scaled as the context opens."""
    from playwright.sync_api import expect

    def patient(*args, **kwargs):
        context = new_context(*args, **kwargs)
        context.set_default_timeout(scaled(10_000))
        expect.set_options(timeout=scaled(5_000))
        return context

    return patient


# A function's text: `(args) => …`, `name => …` or `function …` (an immediately called one is not).
_FUNCTION_TEXT = re.compile(r"\s*(async\s+)?(function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)")


def _function_predicates_only():
    """Playwright evaluates a wait_for_function predicate given as a plain expression with `eval` on every poll,
    and our pages' Content-Security-Policy (script-src 'self') refuses `eval` outside the first, DevTools-run check:
    such a wait passes on a quiet machine and fails when the first check comes too early. A function's text is
    evaluated once, so only that is accepted."""
    from playwright.sync_api import Page

    if getattr(Page.wait_for_function, "_functions_only", False):
        return
    wait = Page.wait_for_function

    def wait_for_function(self, expression, *args, **kwargs):
        if not _FUNCTION_TEXT.match(expression):
            raise ValueError(f"wait_for_function needs a function's text (CSP forbids eval), not {expression!r}")
        return wait(self, expression, *args, **kwargs)

    wait_for_function._functions_only = True  # type: ignore[attr-defined]
    Page.wait_for_function = wait_for_function  # type: ignore[method-assign]


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def login(live_server):
    """Log a page in through the real login form; returns the page for chaining."""

    def do_login(page, username, password=PASSWORD):
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_load_state()
        return page

    return do_login


# --- the QA judging sample (tracks.qa.sample) shared by the judging tests --------------------------------------


@pytest.fixture
def sample(db):
    from tracks.qa.sample import build_sample

    return build_sample()


@pytest.fixture
def primary(make_user, sample):
    """The primary assessor of the sample's first series."""
    from assess.models import Assignment

    user = make_user("prim", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=user)
    return user


@pytest.fixture(params=["postgresql-statement", "orm"])
def save_path(request, monkeypatch):
    """Run a test on both save paths: the one-statement PostgreSQL writer and the ORM fallback (SQLite demo)."""
    from assess import fastsave

    if request.param == "orm":
        monkeypatch.setattr(fastsave, "available", lambda: False)
    elif not fastsave.available():
        pytest.skip("the one-statement writer needs PostgreSQL")
    return request.param


@pytest.fixture(scope="session")
def _sqlite_demo_schema(tmp_path_factory, worker_id):
    """The demo's schema in SQLite, migrated once per run: the first test process to need it makes it, under a lock
    in the run's temporary directory, which pytest-xdist's processes share."""
    import fcntl

    from tests import sqlite_demo

    root = tmp_path_factory.getbasetemp()
    root = root if worker_id == "master" else root.parent
    path = root / "sqlite-demo-schema.sqlite3"
    with open(root / "sqlite-demo-schema.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            partial = root / f"sqlite-demo-schema-{worker_id}.sqlite3"
            sqlite_demo.migrate(partial)
            partial.replace(path)  # (complete or absent, whatever stops the migration)
    return path


@pytest.fixture
def sqlite_demo(_sqlite_demo_schema, tmp_path):
    """A migrated SQLite database of the embedded demo's kind, this test's own (tests/sqlite_demo.py)."""
    from tests import sqlite_demo

    path = tmp_path / "demo.sqlite3"
    sqlite_demo.copy(_sqlite_demo_schema, path)
    return sqlite_demo.Database(path)


# Fixtures that reach the database once for a whole module (tests.samples.demo_world); their tests name no database.
MODULE_DATABASE_FIXTURES = {"demo_world"}
DATABASE_FIXTURES = {"db", "transactional_db", "live_server", "django_db_reset_sequences"}


def pytest_collection_modifyitems(config, items):
    """pytest-django creates the test database only when a collected test asks for it (a mark or a db fixture).
    A file whose tests reach it only through a module fixture, run alone, would then find no tables: there, its
    tests ask for the database (in a whole run another test has, and nothing changes)."""
    if any(item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(item.fixturenames) for item in items):
        return
    for item in items:
        if MODULE_DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.django_db)
