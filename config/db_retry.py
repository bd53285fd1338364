"""One retry of a request whose database connection failed before it wrote anything (issue 26).

A connection killed mid-request (a database restart, a proxy dropping idle connections, a failover) used to fail
every request in flight with a 500, although Django reconnects on the next one. A view that raises Django's
OperationalError is run once more, on a fresh connection, when that cannot do anything twice: the request is a
safe method (GET, HEAD, OPTIONS) or it sent no statement that writes. Statements are watched with an execute
wrapper; anything that is not a plain read (SELECT without FOR UPDATE/SHARE, SET, SHOW, transaction control)
counts as a write, so a doubtful request is never repeated; nor is one whose body was streamed rather than kept
(an upload), which the view could not read a second time. The retry happens once; a second failure is the 500
it always was. Rendering a lazy TemplateResponse and streaming responses are outside the retry."""

import logging
import re

from django.db import OperationalError, connections

log = logging.getLogger(__name__)
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
_READ = re.compile(r"\s*(?:SELECT\b|SET\b|SHOW\b|SAVEPOINT\b|RELEASE\b|ROLLBACK\b|BEGIN\b|COMMIT\b)", re.I)
_LOCKING = re.compile(r"\bFOR\s+(?:NO\s+KEY\s+)?(?:UPDATE|SHARE)\b", re.I)


def _is_write(sql):
    return not _READ.match(sql) or bool(_LOCKING.search(sql))


class RetryLostConnection:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.db_wrote = False

        def watch(execute, sql, params, many, context):
            if not request.db_wrote and _is_write(sql if isinstance(sql, str) else str(sql)):
                request.db_wrote = True
            return execute(sql, params, many, context)

        with connections["default"].execute_wrapper(watch):
            return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, OperationalError) or getattr(request, "db_retried", False):
            return None
        if request.method not in SAFE_METHODS and getattr(request, "db_wrote", True):
            return None
        if getattr(request, "_read_started", False) and not hasattr(request, "_body"):
            return None  # the body was streamed (an upload): the view could not read it again
        match = request.resolver_match
        if match is None:
            return None
        request.db_retried = True
        for conn in connections.all(initialized_only=True):
            if not conn.in_atomic_block:
                conn.close()  # the next query opens a fresh connection
        log.warning("database error, retrying %s %s once: %s", request.method, request.path, exception)
        return match.func(request, *match.args, **match.kwargs)
