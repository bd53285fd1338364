"""Django's PostgreSQL backend with a health check that costs no round trip when nothing is wrong.

A kept connection (CONN_MAX_AGE) is checked once per request before its first query (CONN_HEALTH_CHECKS): Django
sends `SELECT 1`, one round trip and a statement in the backend on every request, a judgment save included (issue
32: 0.2 ms of the web process's CPU per save, and the backend's). A connection the server ended — a restart, a
failover, pg_terminate_backend, an idle timeout, a proxy's reset — has told the client so before it went: the
server's FATAL message and the end of the stream are waiting in the socket. So an idle connection whose socket has
nothing to read, and which psycopg does not know to be closed or in error, is usable; when the socket does have
something to read, Django's `SELECT 1` decides as before. What neither check sees in time is a peer that vanished
without a word (a host or network gone): `SELECT 1` would wait for TCP's timeout there too.
"""

import select

from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLWrapper
from psycopg.pq import ConnStatus, TransactionStatus

_QUIET = {TransactionStatus.IDLE, TransactionStatus.INTRANS}


def socket_is_quiet(fileno):
    """True when the socket has nothing to read and no error or hang-up pending (no waiting)."""
    poller = select.poll()
    poller.register(fileno, select.POLLIN | select.POLLPRI)
    return not poller.poll(0)


class DatabaseWrapper(PostgreSQLWrapper):
    def is_usable(self):
        raw = self.connection
        if raw is None or raw.closed or raw.broken:
            return False
        pgconn = raw.pgconn
        try:
            quiet = (
                pgconn.status == ConnStatus.OK
                and pgconn.transaction_status in _QUIET
                and socket_is_quiet(pgconn.socket)
            )
        except Exception:  # no socket to look at: let the round trip decide
            quiet = False
        return True if quiet else super().is_usable()
