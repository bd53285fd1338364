"""Issue 32: a kept database connection is checked before each request's first query without a round trip while
its socket is quiet (config/postgresql/base.py); a connection the server ended is still found and replaced, and a
socket with something unread still gets Django's SELECT 1."""

import pytest
from django.db import connection
from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLWrapper

from accounts.models import Team
from config.patience import wait_until
from config.postgresql.base import socket_is_quiet

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="the PostgreSQL backend's check")


@pytest.fixture
def round_trips(monkeypatch):
    """Every time Django's own check (SELECT 1) is asked, and its answer."""
    asked = []
    original = PostgreSQLWrapper.is_usable

    def recorded(self):
        asked.append(original(self))
        return asked[-1]

    monkeypatch.setattr(PostgreSQLWrapper, "is_usable", recorded)
    return asked


def _other_connection():
    raw = connection.get_new_connection(connection.get_connection_params())
    raw.autocommit = True
    return raw


def _unread(raw):
    return not socket_is_quiet(raw.pgconn.socket)


def test_a_quiet_connection_is_usable_without_a_round_trip(transactional_db, round_trips):
    assert Team.objects.count() == 0
    assert connection.is_usable() and round_trips == []


def test_a_connection_the_server_ended_is_replaced(transactional_db, round_trips):
    Team.objects.create(name="Team Alpha")
    raw = connection.connection
    with _other_connection() as other:
        other.execute("SELECT pg_terminate_backend(%s)", [raw.info.backend_pid])
    assert wait_until(lambda: _unread(raw), 10), "the server's goodbye never reached the socket"
    connection.health_check_done = False  # as at the start of a request
    connection.close_if_health_check_failed()
    assert round_trips == [False]  # the socket had something to say: SELECT 1 decided, and failed
    assert connection.connection is None
    assert Team.objects.count() == 1  # the next query reconnects instead of failing


def test_a_socket_with_something_unread_asks_the_server(transactional_db, round_trips):
    connection.ensure_connection()
    raw = connection.connection
    raw.execute("LISTEN assay_health_test")
    with _other_connection() as other:
        other.execute("NOTIFY assay_health_test")
    assert wait_until(lambda: _unread(raw), 10), "the notification never reached the socket"
    assert connection.is_usable() and round_trips == [True]  # a notice is no failure: SELECT 1 said so
    raw.execute("UNLISTEN *")
