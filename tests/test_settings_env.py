"""Settings come from the environment; unsafe production settings stop start-up."""

import subprocess
import sys

import pytest

from config.env import ConfigurationError, env_bool, env_list, parse_database_url
from tests.conftest import ROOT


def test_postgres_url_is_parsed_into_a_database_entry():
    db = parse_database_url("postgresql://assay:s%40cret@db.example:6543/assay_prod?sslmode=require")
    assert db["ENGINE"] == "config.postgresql"  # Django's backend, its health check without a round trip
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "assay_prod",
        "assay",
        "s@cret",
        "db.example",
        "6543",
    )
    assert db["OPTIONS"] == {"sslmode": "require"}


def test_sqlite_url_keeps_absolute_path():
    assert parse_database_url("sqlite:////var/lib/assay/db.sqlite3")["NAME"] == "/var/lib/assay/db.sqlite3"


@pytest.mark.parametrize("url", ["mysql://x@y/z", "postgresql://host:5432/"])
def test_bad_database_urls_are_refused_with_a_reason(url):
    with pytest.raises(ConfigurationError, match="DATABASE_URL"):
        parse_database_url(url)


def test_booleans_and_lists():
    assert env_bool("X", environ={"X": "off"}) is False
    assert env_bool("X", environ={"X": "Yes"}) is True
    assert env_bool("X", default=True, environ={}) is True
    with pytest.raises(ConfigurationError, match="X='maybe'"):
        env_bool("X", environ={"X": "maybe"})
    assert env_list("H", environ={"H": "a.example, b.example,"}) == ["a.example", "b.example"]


def _import_settings(env):
    clean = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings"}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; "
            "print(settings.DATABASES['default']['ENGINE'], settings.CELERY_TASK_ALWAYS_EAGER)",
        ],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
    )


def test_with_nothing_set_the_demo_runs_on_sqlite_with_in_process_tasks():
    done = _import_settings({})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["django.db.backends.sqlite3", "True"]


def test_debug_off_without_secret_key_is_a_startup_error():
    done = _import_settings({"DEBUG": "0", "ALLOWED_HOSTS": "assay.example"})
    assert done.returncode != 0
    assert "SECRET_KEY must be set" in done.stderr


def test_debug_off_without_allowed_hosts_is_a_startup_error():
    done = _import_settings({"DEBUG": "0", "SECRET_KEY": "x" * 50})
    assert done.returncode != 0
    assert "ALLOWED_HOSTS must list" in done.stderr


@pytest.mark.parametrize(
    "name, value",
    [
        ("WORKER_NICE", "-5"),
        ("WORKER_NICE", "20"),
        ("WORKER_CONCURRENCY", "0"),
        ("SCORING_PASS_GAP_MS", "-1"),
        ("SCORING_FRESHNESS_MS", "-1"),
        ("SCORING_PASS_GAP_PERCENT", "-1"),
        ("RUN_CHECK_PROCESSES", "0"),
    ],
)
def test_worker_settings_out_of_range_are_a_startup_error(name, value):
    done = _import_settings({name: value})
    assert done.returncode != 0
    assert f"{name}={value} is outside" in done.stderr


def test_production_settings_pass_the_deploy_check():
    env = {
        "DEBUG": "0",
        "SECRET_KEY": "k3y-" + "z9Q!x" * 12,
        "ALLOWED_HOSTS": "assay.example",
        "PYTHONWARNINGS": "ignore",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
