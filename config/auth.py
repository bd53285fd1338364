"""Who is asking, in one query: the session, its user and the user's roles are read together.

Django's own middleware reads the session, then the user, then (config.roles) the user's groups: three round
trips before a view starts, about half of a judgment save's time. Here one SQL statement joins the session row
(config.models.Session carries the user id) to the user and aggregates the role names; the results seed the
session's cache and the backend's user, and django.contrib.auth.get_user then makes every check it always makes
(backend, session hash with fallback secrets, active user). Any miss — no session, another database, a user the
query did not find — falls back to Django's usual path, so the result is the same either way, only slower.
A view may add its own first read to that statement (read_with_session): the judgment save reads its item there.
"""

import math
import weakref
from contextvars import ContextVar
from datetime import timedelta
from functools import lru_cache

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Max, Sum
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from config import prepared
from config.roles import remember_roles

_prefetched = ContextVar("assay_prefetched_user", default=None)

_USER_FIELDS = list(User._meta.concrete_fields)
_SQL = (
    "SELECT s.session_data, "
    + ", ".join(f"u.{connection.ops.quote_name(f.column)}" for f in _USER_FIELDS)
    + ", ARRAY(SELECT g.name FROM auth_user_groups ug JOIN auth_group g ON g.id = ug.group_id"
    " WHERE ug.user_id = u.id){columns} "
    "FROM assay_session s JOIN auth_user u ON u.id = s.user_id{companion} "
    "WHERE s.session_key = %s::varchar AND s.expire_date > %s::timestamptz"
)
_ALONE = _SQL.format(columns="", companion="")


def read_with_session(sql, argument):
    """View decorator: the view's own first read rides on the session's statement (issue 32: one round trip
    less per judgment save, in the web process and in PostgreSQL). `sql` is a SELECT of one row whose first
    column is TRUE, reading the session's user as `u.id` and the URL argument `argument` as its one %s; it is
    joined LATERAL, so the session and user are found whether or not it finds its row. The view then finds
    what was read in `session_companion(request)`: the row without its first column, None when the SELECT found
    nothing, or NOT_READ when the session was read another way (then it reads for itself). The
    view's access checks run as before: the row is only read early, never shown before they pass."""

    def decorate(view):
        joined = _SQL.format(columns=", c.*", companion=f" LEFT JOIN LATERAL ({sql}) c ON TRUE")
        view.assay_read_with_session = (joined, argument)
        return view

    return decorate


NOT_READ = object()  # session_companion's answer when nothing was read with the session


def session_companion(request):
    """What read_with_session read for this request (see there), or NOT_READ."""
    return getattr(request, "_assay_session_companion", NOT_READ)


def _companion(request):
    """(statement, parameter) of the resolved view's read_with_session, or None."""
    match = getattr(request, "resolver_match", None)
    spec = getattr(match.func, "assay_read_with_session", None) if match is not None else None
    if spec is None:
        return None
    value = match.kwargs.get(spec[1])
    return None if value is None else (spec[0], value)


class Backend(ModelBackend):
    """ModelBackend that takes the user the middleware already read, when it is the one the session names."""

    def get_user(self, user_id):
        user = _prefetched.get()
        if user is not None and user.pk == user_id:
            return user if self.user_can_authenticate(user) else None
        return super().get_user(user_id)


def username_wait(username, now=None):
    """Seconds a login as `username` must still wait, from any address, or 0.

    django-axes locks a (user name, address) pair after AXES_FAILURE_LIMIT failures, so guesses from one address
    cannot lock the user out from another. Guesses spread over many addresses are slowed per user name instead,
    never locked: once the name's failures (all addresses, within the cool-off) reach the limit, each further
    attempt waits 2^(failures - limit) seconds after the latest failure, at most AXES_USERNAME_MAX_WAIT. The
    attempt is refused at once with "try again in N s" (no web thread sleeps), and a refused attempt is not
    counted, so the wait never grows past the cap."""
    if not username:
        return 0
    now = now or timezone.now()
    since = now - timedelta(hours=settings.AXES_COOLOFF_TIME)
    seen = AccessAttempt.objects.filter(username=username, attempt_time__gte=since).aggregate(
        failures=Sum("failures_since_start"), last=Max("attempt_time")
    )
    over = (seen["failures"] or 0) - settings.AXES_FAILURE_LIMIT
    if over < 0:
        return 0
    wait = min(2**over, settings.AXES_USERNAME_MAX_WAIT)
    return max(0, math.ceil((seen["last"] + timedelta(seconds=wait) - now).total_seconds()))


class ThrottleBackend(AxesStandaloneBackend):
    """django-axes' lockout check for logins made through a web request, then the per-user-name slow-down
    (username_wait); a login without a request (the test client, a shell) has none to throttle, where axes would
    refuse it outright."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        super().authenticate(request, username=username, password=password, **kwargs)
        wait = username_wait(username)
        if wait:
            # As axes does for a lock: not counted as a failure, answered by AxesMiddleware with the lockout page,
            # which says how long to wait (templates/registration/locked_out.html).
            request.axes_locked_out = True
            request.axes_wait_seconds = wait
            raise AxesBackendPermissionDenied(f"too many failed logins for this user name; try again in {wait} s")


@lru_cache(maxsize=4096)
def _session_auth_hash(password):
    """The HMAC every request's session is checked against: Django's own, a function of the password hash and
    the secret key alone, so computed once per password instead of once per request."""
    return User(password=password).get_session_auth_hash()


class _SessionAuthHash:
    """The user's get_session_auth_hash, through the cache above; it reads the password when called (a password
    changed in the request counts). It holds the user weakly: a closure over the user, stored on the user, made a
    reference cycle that left every request's objects to the cyclic garbage collector (config.wsgi.Handler)."""

    __slots__ = ("user",)

    def __init__(self, user):
        self.user = weakref.ref(user)

    def __call__(self):
        return _session_auth_hash(self.user().password)


_ATTNAMES = [f.attname for f in _USER_FIELDS]
# (position, converter) of the user's columns that need one, found once rather than on every request
_CONVERTERS = [(i, f.from_db_value) for i, f in enumerate(_USER_FIELDS) if hasattr(f, "from_db_value")]


def _read_together(request):
    """Seed the session cache and return the user (with roles) in one query, or None to take Django's path."""
    session = request.session
    key = session.session_key
    if not key or connection.vendor != "postgresql" or getattr(session, "_session_cache", None) is not None:
        return None
    companion = _companion(request)
    if companion is None:
        row = prepared.fetchone(_ALONE, [key, timezone.now()])
    else:
        joined, value = companion
        row = prepared.fetchone(joined, [value, key, timezone.now()])
    if row is None:
        return None
    if companion is not None:
        extra = row[2 + len(_USER_FIELDS) :]
        request._assay_session_companion = extra[1:] if extra[0] else None
    session._session_cache = session.decode(row[0])
    values = list(row[1 : 1 + len(_USER_FIELDS)])
    if _CONVERTERS:
        conn = connections[DEFAULT_DB_ALIAS]
        for i, convert in _CONVERTERS:
            if values[i] is not None:
                values[i] = convert(values[i], None, conn)
    user = User.from_db(DEFAULT_DB_ALIAS, _ATTNAMES, values)
    remember_roles(user, row[1 + len(_USER_FIELDS)])
    user.get_session_auth_hash = _SessionAuthHash(user)
    return user


def get_user(request):
    if not hasattr(request, "_cached_user"):
        token = _prefetched.set(_read_together(request))
        try:
            request._cached_user = auth.get_user(request)
        finally:
            _prefetched.reset(token)
    return request._cached_user


class SessionUserMiddleware(AuthenticationMiddleware):
    """AuthenticationMiddleware with request.user read by get_user above (request.auser stays Django's)."""

    def process_request(self, request):
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: get_user(request))
