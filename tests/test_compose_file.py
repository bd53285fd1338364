"""docker-compose.yml parses and declares the four services the README promises."""

import shutil
import subprocess

import pytest

from tests.conftest import ROOT


def _compose():
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        return [docker, "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    pytest.skip("neither `docker compose` nor `docker-compose` is installed")


def test_compose_file_is_valid_and_has_the_services():
    compose = _compose() + ["-f", str(ROOT / "docker-compose.yml")]
    checked = subprocess.run(compose + ["config", "-q"], capture_output=True, text=True, cwd=ROOT)
    assert checked.returncode == 0, checked.stderr
    services = subprocess.run(compose + ["config", "--services"], capture_output=True, text=True, cwd=ROOT)
    assert set(services.stdout.split()) == {"db", "redis", "web", "worker"}


def test_every_service_comes_back_after_it_exits():
    """A worker that exits after a broker loss, or a web process that dies, is restarted, and a restarted worker
    sweeps the stale marks as it starts (scoring.tasks), so scores catch up without a later save."""
    import yaml

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert {name: spec.get("restart") for name, spec in services.items()} == {
        name: "unless-stopped" for name in ("db", "redis", "web", "worker")
    }
