"""config/serve.py: the web server production runs, configured from its options or the environment."""

import pytest

from config import serve


def test_options_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("WEB_BIND", "127.0.0.1:8123")
    monkeypatch.setenv("WEB_WORKERS", "3")
    monkeypatch.setenv("WEB_THREADS", "5")
    monkeypatch.setenv("WEB_ACCESS_LOG", "1")
    server = serve.server()
    assert (server.bind_addr, server.bind_port) == ("127.0.0.1", 8123)
    assert (server.workers, server.blocking_threads, server.log_access) == (3, 5, True)
    assert server.target == "config.web:application"
    assert server.interface.value == "wsgi"
    assert server.respawn_failed_workers  # a crashed worker is replaced


def test_options_override_the_environment_and_defaults_follow_the_cores(monkeypatch):
    for name in ("WEB_BIND", "WEB_WORKERS", "WEB_THREADS", "WEB_ACCESS_LOG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(serve.os, "cpu_count", lambda: 4)
    server = serve.server()
    assert (server.bind_addr, server.bind_port, server.workers, server.blocking_threads) == ("0.0.0.0", 8000, 4, 6)
    assert not server.log_access
    monkeypatch.setattr(serve.os, "cpu_count", lambda: 32)  # (each thread holds a database connection)
    assert serve.server().workers == 4
    server = serve.server(["--bind", "[::1]:9000", "--workers", "1", "--threads", "2"])
    assert (server.bind_addr, server.bind_port, server.workers, server.blocking_threads) == ("::1", 9000, 1, 2)


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--bind", "8000"], "--bind must be HOST:PORT, not '8000'"),
        (["--bind", "localhost:http"], "--bind must be HOST:PORT"),
        (["--workers", "0"], "--workers and --threads must be from 1 to 64"),
        (["--threads", "65"], "--workers and --threads must be from 1 to 64"),
        (["--workers", "two"], "argument --workers: invalid int value: 'two'"),
    ],
)
def test_a_bad_option_is_named(argv, says, capsys):
    with pytest.raises(SystemExit):
        serve.server(argv)
    assert says in capsys.readouterr().err


def test_a_malformed_setting_is_named(monkeypatch, capsys):
    monkeypatch.setenv("WEB_THREADS", "lots")
    with pytest.raises(SystemExit):
        serve.server()
    assert "argument --threads: invalid int value: 'lots'" in capsys.readouterr().err
