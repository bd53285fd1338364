"""scripts/demo on a first run (issue 12): it says what it installs and shows pip's progress; it checks the port
before installing or loading anything and says how to choose another (PORT, in the README)."""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from config import patience

ROOT = Path(__file__).resolve().parents[1]
# Stands in for .venv/bin/python: passes the version check and answers `pip install` the way pip talks.
FAKE_PYTHON = """#!/bin/sh
case "$*" in
  -c*) exit 0 ;;
  *"pip install --quiet"*) exit 0 ;;
  *"pip install"*) echo "$*" >> "$(dirname "$0")/../pip-calls"
    printf 'Processing /x\\nCollecting Django<7,>=6.0\\nCollecting lxml>=5.3\\nRequirement already satisfied: sqlparse in /y\\n'
    printf 'Installing collected packages: lxml, Django, assay\\nSuccessfully installed Django-6.0 assay-0.1.0\\n' ;;
esac
"""


def run_demo(port):
    env = os.environ | {"PORT": str(port), "PYTHON": sys.executable}
    return patience.run([str(ROOT / "scripts" / "demo")], 60, env=env)


def test_a_busy_port_stops_the_demo_before_it_installs_or_loads_anything():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        started = time.monotonic()
        result = run_demo(port)
    assert result.returncode == 1 and time.monotonic() - started < 20
    assert f"Port {port} on 127.0.0.1 is already in use" in result.stderr
    assert "PORT=8001 ./scripts/demo" in result.stderr
    assert result.stdout == ""  # no install, no migrate, no demo load


def test_a_port_that_is_no_number_is_refused():
    result = run_demo("eighty")
    assert result.returncode == 2 and "PORT must be a port number from 1 to 65535, not 'eighty'" in result.stderr


def _project_copy(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "lib.sh", tmp_path / "scripts")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    fake = tmp_path / ".venv" / "bin" / "python"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    return tmp_path


def _ensure_venv(root, message):
    script = f'source scripts/lib.sh; INSTALL_MESSAGE="{message}"; ensure_venv ""'
    return patience.run(["bash", "-c", script], 60, cwd=root)


def test_the_first_install_says_what_it_does_and_shows_progress(tmp_path):
    root = _project_copy(tmp_path)
    result = _ensure_venv(root, "Installing Assay's dependencies into .venv (first run only)…")
    assert result.returncode == 0, result.stderr
    # not a terminal here: a dot per package, then the install step
    assert result.stdout == (
        "Installing Assay's dependencies into .venv (first run only)…\n...\n  installing 3 packages…\n  done\n"
    )
    assert (root / ".venv" / "pip-calls").read_text().count("pip install") == 1  # pip's own upgrade stays quiet
    again = _ensure_venv(root, "Installing…")
    assert again.returncode == 0 and again.stdout == ""  # installed: nothing to say


def test_the_demo_reuses_an_install_made_for_the_tests(tmp_path):
    root = _project_copy(tmp_path)
    digest = subprocess.run(["sha1sum", "pyproject.toml"], cwd=root, capture_output=True, text=True).stdout[:12]
    (root / ".venv" / f".installed-{digest}-test").touch()
    result = _ensure_venv(root, "Installing…")
    assert result.returncode == 0 and result.stdout == "" and not (root / ".venv" / "pip-calls").exists()


def test_the_demo_message_and_the_readme_name_the_port():
    demo = (ROOT / "scripts" / "demo").read_text()
    assert "INSTALL_MESSAGE=\"Installing Assay's dependencies into .venv (first run only" in demo
    assert "PORT=8001 ./scripts/demo" in (ROOT / "README.md").read_text()


def test_the_readme_says_how_to_try_production_over_plain_http():
    readme = (ROOT / "README.md").read_text()
    production = readme[readme.index("## Production") :]
    assert "SECURE_SSL_REDIRECT=0 SESSION_COOKIE_SECURE=0 CSRF_COOKIE_SECURE=0" in production
    compose = (ROOT / "docker-compose.yml").read_text()  # and the compose file passes them to the containers
    for name in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"):
        assert f"{name}: ${{{name}:-1}}" in compose


def test_the_demo_says_its_bad_run_is_refused_on_purpose_and_gives_commands_that_run(db):
    """The demo's output: the bad BioGen run is refused "as intended" (no bare "refused:" lines that read as a
    failure), and a command hint runs outside the venv too."""
    import re

    from tracks.biogen.demo import load_biogen_demo
    from tracks.bolt.demo import load_bolt_demo

    said = []
    load_biogen_demo(said.append)
    load_bolt_demo(said.append)
    text = "\n".join(said)
    assert re.search(r"^  beta-run1-bad\.json refused, as intended \(it shows the check report\):$", text, re.M)
    assert not re.search(r"^\s*refused:", text, re.M)
    assert ".venv/bin/python manage.py bolt_export bolt-demo alpha1" in text
    assert not re.search(r"(?<![/\w])python manage\.py", text)
