"""Scripts run against the embedded demo's database (SQLite) in a process of their own, for tests whose session
database is PostgreSQL. The schema is migrated once per run and copied for each test: migrating SQLite from
nothing took 7-12 s of each such test (conftest.sqlite_demo)."""

import os
import sqlite3
import sys
from pathlib import Path

from config import patience

ROOT = Path(__file__).resolve().parents[1]


def environment(path):
    """This process's environment with Django pointed at the SQLite file `path` (nothing of the session's
    PostgreSQL, Redis or test database names)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "TEST_DATABASE_NAME")}
    return env | {"DATABASE_URL": f"sqlite:///{path}", "DJANGO_SETTINGS_MODULE": "config.settings"}


def migrate(path):
    """Every migration applied to a new SQLite file at `path`."""
    done = patience.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"], 300, cwd=ROOT, env=environment(path)
    )
    assert done.returncode == 0, done.stderr


def copy(source, target):
    """The database at `source` copied to `target` through SQLite's backup (complete whatever its journal mode)."""
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


class Database:
    """A migrated SQLite file of one test; `run` runs a Python script against it."""

    def __init__(self, path):
        self.path = path

    def run(self, script, *args, timeout=300):
        """`python -c script args…` against this database (the script calls django.setup()); the finished
        process, whose returncode the caller checks."""
        return patience.run(
            [sys.executable, "-c", script, *map(str, args)], timeout, cwd=ROOT, env=environment(self.path)
        )
