"""The judgment save path's shortcuts keep every rule of the long way round: the one-query sign-in
(config.auth), the single-statement save with its stale mark and closure check (assess.fastsave), prepared
statements (config.prepared) and the rescoring publisher (pooling.staleness)."""

import threading
import time

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import RequestFactory
from django.urls import reverse

from assess import judging
from assess.models import Assignment, Judgment, JudgmentChange
from config import auth, patience
from config.models import Session
from config.roles import ASSESSOR, roles_of
from config.sessions import SessionStore
from pooling import staleness
from pooling.models import StaleTopic
from tests.conftest import PASSWORD
from tracks.qa import instance_judging
from tracks.qa.sample import build_sample

postgres_only = pytest.mark.skipif("connection.vendor != 'postgresql'")


@pytest.fixture
def setup(db, make_user):
    sample = build_sample()
    me = make_user("me", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=me)
    return sample, me


def _request_for(client):
    request = RequestFactory().get("/")
    request.session = SessionStore(session_key=client.cookies["sessionid"].value)
    return request


def test_session_row_names_its_user(client, setup):
    _, me = setup
    assert client.login(username="me", password=PASSWORD)
    key = client.cookies["sessionid"].value
    assert Session.objects.get(session_key=key).user_id == me.pk
    client.logout()
    assert not Session.objects.filter(session_key=key).exists()


def test_one_query_sign_in_gives_the_user_and_roles(client, setup, django_assert_num_queries):
    _, me = setup
    client.force_login(me)
    request = _request_for(client)
    expected = 1 if connection.vendor == "postgresql" else 3  # session, user, roles the long way
    with django_assert_num_queries(expected):
        user = auth.get_user(request)
        assert roles_of(user) == {ASSESSOR}
    assert user.pk == me.pk and user.username == "me"


@pytest.mark.parametrize("spoil", ["password", "inactive", "expired", "other_user_column"])
def test_one_query_sign_in_refuses_what_django_refuses(client, setup, make_user, spoil):
    _, me = setup
    client.force_login(me)
    key = client.cookies["sessionid"].value
    if spoil == "password":  # the session's auth hash no longer matches
        me.set_password("a-new-password-456")
        me.save()
    elif spoil == "inactive":
        me.is_active = False
        me.save()
    elif spoil == "expired":
        from django.utils import timezone

        Session.objects.filter(session_key=key).update(expire_date=timezone.now())
    else:  # a row whose column disagrees with its signed data must not sign in the column's user
        intruder = make_user("intruder", "organizer")
        Session.objects.filter(session_key=key).update(user_id=intruder.pk)
    user = auth.get_user(_request_for(client))
    if spoil == "other_user_column":
        assert user.pk == me.pk  # Django's own check reads the signed data, not the column
        assert roles_of(user) == {ASSESSOR}
    else:
        assert isinstance(user, AnonymousUser)


@postgres_only
def test_a_save_takes_two_statements_all_prepared(client, setup, django_assert_num_queries):
    sample, me = setup
    client.force_login(me)
    item = sample.items["1.1"][0]
    url = reverse("qa:judge", args=[item.pk])
    assert client.post(url, {"label": "incorrect", "version": 0}).status_code == 200
    # sign-in (session + user + roles) with the item (+ question, evaluation, closure, assignment) in one
    # statement (config.auth.read_with_session), the write (judgment, history row, stale mark): nothing else,
    # and no BEGIN/COMMIT of its own
    with django_assert_num_queries(2):
        assert client.post(url, {"label": "non-exact", "version": 1}).status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = " ".join(row[0] for row in cursor.fetchall())
    assert "assay_session" in prepared and "pooling_poolitem" in prepared and "WITH saved AS" in prepared
    judgment = Judgment.objects.get(item=item)
    assert (judgment.value["label"], judgment.version) == ("non-exact", 2)
    assert list(
        JudgmentChange.objects.filter(judgment=judgment)
        .order_by("version")
        .values_list("before__label", "after__label")
    ) == [(None, "incorrect"), ("incorrect", "non-exact")]
    assert StaleTopic.objects.filter(topic=item.topic).exists()


@postgres_only
def test_the_item_read_with_the_session_keeps_every_refusal(client, db, make_user, django_assert_num_queries):
    """The judgment save reads its item in the session's statement: an item that does not exist or is not the
    assessor's is still a 404, a revoked session still saves nothing, and what is read belongs to the session's
    own user."""
    sample = build_sample(slug="two-series", n_series=2)
    me = make_user("me", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=me)
    client.force_login(me)
    theirs = sample.items["2.1"][0]  # a question of the second series: not assigned to me
    with django_assert_num_queries(1):  # the session's statement only: no item row, nothing written
        assert (
            client.post(reverse("qa:judge", args=[theirs.pk]), {"label": "incorrect", "version": 0}).status_code == 404
        )
    assert client.post(reverse("qa:judge", args=[2**62]), {"label": "incorrect", "version": 0}).status_code == 404
    other = make_user("other", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[1], assessor=other)
    client.force_login(other)  # the same item, now the session's user's own
    assert client.post(reverse("qa:judge", args=[theirs.pk]), {"label": "incorrect", "version": 0}).status_code == 200
    mine = sample.items["1.1"][0]
    Session.objects.all().delete()  # revoked: the statement finds no session, and no item is read for nobody
    answer = client.post(reverse("qa:judge", args=[mine.pk]), {"label": "incorrect", "version": 0})
    assert answer.status_code in (302, 403) and not Judgment.objects.filter(item=mine).exists()
    assert list(Judgment.objects.values_list("assessor__username", "item_id")) == [("other", theirs.pk)]


@postgres_only
def test_the_kept_prepared_cursor_survives_an_error_and_a_new_connection(transactional_db):
    """config.prepared keeps one psycopg cursor per connection: a statement that failed, or a connection that
    was closed and opened again, must not leave the next statement without a working cursor."""
    from django.db import DataError

    from config import prepared

    assert prepared.fetchone("SELECT %(a)s::integer", {"a": 1}) == (1,)
    kept = connection._assay_prepared_cursor
    with pytest.raises(DataError):
        prepared.fetchone("SELECT 1 / %(a)s::integer", {"a": 0})
    assert prepared.fetchone("SELECT %(a)s::integer + 1", {"a": 1}) == (2,)
    assert connection._assay_prepared_cursor is kept
    connection.close()
    assert prepared.fetchall("SELECT generate_series(1, %(n)s::integer)", {"n": 3}) == [(1,), (2,), (3,)]
    assert connection._assay_prepared_cursor is not kept


def test_a_closure_after_the_item_was_read_still_stops_the_save(setup, organizer):
    sample, me = setup
    item = judging.load_item(me, sample.items["1.1"][0].pk)
    assert not item.closed
    judging.close_question(organizer, item.topic)  # lands between the read and the write
    StaleTopic.objects.all().delete()
    with pytest.raises(judging.QuestionClosed):
        instance_judging.judge_instance(me, item, "incorrect", 0)
    assert not Judgment.objects.exists() and not JudgmentChange.objects.exists()
    assert not StaleTopic.objects.exists()


def test_the_stale_mark_is_refreshed_by_every_save(setup):
    sample, me = setup
    item = judging.load_item(me, sample.items["1.1"][0].pk)
    instance_judging.judge_instance(me, item, "incorrect", 0)
    first = StaleTopic.objects.get(topic=item.topic).changed_at
    instance_judging.judge_instance(me, item, "non-exact", 1)
    mark = StaleTopic.objects.get(topic=item.topic)
    assert mark.changed_at > first and mark.since == first


def test_rescoring_requests_share_one_publisher_thread(monkeypatch):
    published = []
    monkeypatch.setattr(staleness, "_enqueue", published.append)
    monkeypatch.setattr(staleness, "GATHER_SECONDS", 0.2)
    publisher = staleness._publisher()
    publisher.put(7)
    assert staleness.wait_for_publisher(timeout=patience.scaled(5))
    for _ in range(50):  # a burst while the publisher pauses: one request per evaluation
        publisher.put(7)
        publisher.put(8)
    assert staleness.wait_for_publisher(timeout=patience.scaled(5))
    assert published == [7, 7, 8]
    assert [t.name for t in threading.enumerate()].count("assay-enqueue") == 1
    assert staleness._publisher() is publisher


def test_the_publisher_claims_less_often_while_every_task_is_still_waiting(monkeypatch):
    """Issue 32: a round whose evaluations all had a task waiting (claim refused) pauses GATHER_BUSY_SECONDS; a
    round that queued a task, or could not tell, pauses GATHER_SECONDS as before."""
    assert staleness.gather_pause([False, False]) == staleness.GATHER_BUSY_SECONDS
    for results in ([True], [False, True], [None], [False, None], []):
        assert staleness.gather_pause(results) == staleness.GATHER_SECONDS, results
    assert staleness.GATHER_BUSY_SECONDS > staleness.GATHER_SECONDS

    # The publisher really takes the longer pause: nothing it was asked meanwhile is published before it ends.
    claimed = []
    monkeypatch.setattr(staleness, "_enqueue", lambda evaluation_id: claimed.append(time.monotonic()) or False)
    monkeypatch.setattr(staleness, "GATHER_BUSY_SECONDS", 0.5)
    publisher = staleness._publisher()
    assert staleness.wait_for_publisher(timeout=patience.scaled(5))
    publisher.put(7)
    assert patience.wait_until(lambda: claimed, 5)
    publisher.put(7)  # while it pauses
    assert staleness.wait_for_publisher(timeout=patience.scaled(5))
    assert len(claimed) == 2 and claimed[1] - claimed[0] >= 0.5


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_forked_child_starts_its_own_publisher():
    import os

    parent = staleness._publisher()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's publisher thread did not come along, so a new one must start
        ok = staleness._current_publisher is None and staleness._publisher() is not parent
        os.write(write, b"1" if ok else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    assert staleness._publisher() is parent


def test_changing_ones_own_password_keeps_that_session_signed_in(client, setup):
    """update_session_auth_hash on the user read in one query must store the new password's hash."""
    from django.contrib.auth import update_session_auth_hash

    _, me = setup
    client.force_login(me)
    request = _request_for(client)
    request.user = user = auth.get_user(request)
    user.set_password("a-new-password-456")
    user.save()
    update_session_auth_hash(request, user)
    request.session.save()  # under a new key (cycle_key), as the response would set it
    again = RequestFactory().get("/")
    again.session = SessionStore(session_key=request.session.session_key)
    assert auth.get_user(again).pk == me.pk


def test_the_one_round_trip_publish_queues_what_celery_queues(settings):
    """Issue 32: core.rescoring_claims.claim_and_queue pushes the message Celery's send_task would (same headers,
    body and properties; fresh ids each time) in the same command as the claim, and nothing while the claim is
    held; a worker reads it like any other (the worker tests save through it)."""
    import json
    import uuid

    import redis

    from config.celery import app
    from core import rescoring_claims as pending

    if not settings.CELERY_BROKER_URL:
        pytest.skip("CELERY_BROKER_URL is not set: this test reads the messages in Redis")
    queue, evaluation = f"assay-test-{uuid.uuid4().hex[:8]}", 2**40 + 7
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    saved = (app.conf.task_default_queue, app.conf.task_always_eager)
    app.conf.task_default_queue, app.conf.task_always_eager = queue, False
    claim = pending._key(evaluation)  # (named after the queue)
    try:
        app.send_task(staleness.RESCORE_TASK, (evaluation,), retry=False, ignore_result=True)
        assert pending.claim_and_queue(evaluation, staleness.RESCORE_TASK) is True
        assert pending.claim_and_queue(evaluation, staleness.RESCORE_TASK) is False  # claimed: nothing pushed
        assert not pending.claim(evaluation)
        pending.release(evaluation)
        assert pending.claim_and_queue(evaluation, staleness.RESCORE_TASK) is True
        celerys, ours, again = (json.loads(m) for m in reversed(client.lrange(queue, 0, -1)))
    finally:
        app.conf.task_default_queue, app.conf.task_always_eager = saved
        client.delete(queue, claim)

    def ids(message):
        headers, properties = message["headers"], message["properties"]
        assert headers["id"] == headers["root_id"] == properties["correlation_id"]
        return (
            headers.pop("id"),
            headers.pop("root_id"),
            properties.pop("correlation_id"),
            properties.pop("delivery_tag"),
        )

    seen = [ids(m) for m in (celerys, ours, again)]
    assert len({i for found in seen for i in found}) == 6  # a task id and a delivery tag of its own each
    assert ours == celerys == again
    assert ours["headers"]["task"] == staleness.RESCORE_TASK and ours["headers"]["ignore_result"] is True
    assert ours["properties"]["delivery_info"] == {"exchange": "", "routing_key": queue}


def test_publishing_takes_the_long_way_where_the_one_round_trip_does_not_apply(monkeypatch):
    """Routed tasks (or another broker) are sent by Celery itself, claim first."""
    from config.celery import app
    from core import rescoring_claims as pending

    sent = []
    monkeypatch.setattr(pending, "claim", lambda evaluation_id: True)
    monkeypatch.setattr(app, "send_task", lambda name, args, **options: sent.append((name, args, options)))
    saved = (app.conf.task_routes, app.conf.task_always_eager)
    app.conf.task_routes, app.conf.task_always_eager = {staleness.RESCORE_TASK: {"queue": "elsewhere"}}, False
    try:
        assert pending.claim_and_queue(1, staleness.RESCORE_TASK) is None
        assert staleness._enqueue(5) is True
    finally:
        app.conf.task_routes, app.conf.task_always_eager = saved
    assert sent == [(staleness.RESCORE_TASK, (5,), {"retry": False, "ignore_result": True})]


def _through_wsgi(application, method, path, cookies, body=b"", **headers):
    """One request through the WSGI application as the web server makes it, the response closed afterwards (without
    the connection checks around it, as the test client: the test's transaction stays open)."""
    import io
    import sys

    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "testserver",
        "HTTP_COOKIE": "; ".join(f"{k}={v}" for k, v in cookies.items()),
        "CONTENT_TYPE": "application/x-www-form-urlencoded",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
        **{f"HTTP_{name.upper()}": value for name, value in headers.items()},
    }
    status, set_cookies = [], []

    def start_response(line, response_headers, exc_info=None):
        status.append(line)
        set_cookies.extend(v.split(";", 1)[0] for k, v in response_headers if k == "Set-Cookie")

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        response = application(environ, start_response)
        try:
            content = b"".join(response)
        finally:
            response.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    cookies.update(cookie.split("=", 1) for cookie in set_cookies)
    return status[0], content


def test_a_save_through_the_wsgi_application_leaves_no_cyclic_garbage(client, setup):
    """A request's objects are freed when its response closes, not by the cyclic garbage collector: config.wsgi
    empties the request (its attributes held it in cycles) and the one-query user holds its password-hash method
    weakly. Before, each save left ~100 objects in cycles, and a collection ran every ~14 saves (issue 32)."""
    import gc
    import re

    from config.wsgi import application

    sample, me = setup
    client.force_login(me)
    cookies = {"sessionid": client.cookies["sessionid"].value}
    assignment = Assignment.objects.get(assessor=me)
    items = sample.items["1.1"]
    page = reverse("qa:question", args=[assignment.pk, items[0].topic_id])
    status, content = _through_wsgi(application, "GET", page, cookies)
    assert status.startswith("200"), status
    token = re.search(rb"hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'", content).group(1).decode()

    def save(item):
        body = b"version=0&label=incorrect"
        url = reverse("qa:judge", args=[item.pk])
        answer = _through_wsgi(application, "POST", url, cookies, body, x_csrftoken=token, hx_request="true")
        assert answer[0].startswith("200") and b"saved" in answer[1], answer

    save(items[0])  # first use: caches filled, nothing of that counts
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        save(items[1])
        found = gc.collect()
        kinds = sorted({type(o).__name__ for o in gc.garbage})
        gc.garbage.clear()
    finally:
        gc.set_debug(0)
        if enabled:
            gc.enable()
    assert found == 0, kinds
    assert Judgment.objects.filter(item__in=items[:2], assessor=me).count() == 2


@postgres_only
def test_a_judgment_insert_maintains_no_index_another_one_covers(db):
    """Issue 32: every save inserts into each index of the judgment table. The subject's and the question's own
    indexes were copies of the leading column of another (the one-judgment-per-assessor unique indexes lead
    with the item or nugget, the question's index with the topic): an item judgment maintains five indexes, not
    eight. Lookups by item, nugget or topic alone still find an index."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = %s ORDER BY indexname", [Judgment._meta.db_table]
        )
        indexes = [row[0].split(" USING btree ", 1)[1] for row in cursor.fetchall()]
    item_judgment = [index for index in indexes if "nugget_id IS NOT NULL" not in index]
    assert len(item_judgment) == 5, indexes
    assert "(item_id, kind, assessor_id) WHERE (item_id IS NOT NULL)" in indexes
    assert "(nugget_id, kind, assessor_id) WHERE (nugget_id IS NOT NULL)" in indexes
    assert "(topic_id, kind)" in indexes
    assert not {"(topic_id)", "(item_id)", "(nugget_id)"} & set(indexes)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        for column in ("item_id", "nugget_id", "topic_id"):
            cursor.execute(f"EXPLAIN SELECT id FROM {Judgment._meta.db_table} WHERE {column} = 7")
            plan = " ".join(row[0] for row in cursor.fetchall())
            assert "Index" in plan, (column, plan)


def test_the_tracks_routes_are_tried_before_the_stages():
    """Issue 32: Django tries URL patterns in order; a judgment save (QA's under assess/, BOLT's, RAG's) resolved
    behind the ~55 patterns of the stages (30-80 us a save). The tracks' includes come first now; no route is
    shadowed (tests/test_malformed_parameters.py reaches every route with its real parameters)."""
    from django.urls import get_resolver

    namespaces = [getattr(entry, "namespace", None) for entry in get_resolver().url_patterns]
    first_stage = min(namespaces.index(name) for name in ("accounts", "pooling", "assess", "scoring", "api"))
    assert max(namespaces.index(name) for name in ("qa", "bolt", "rag", "biogen", "qa4mre")) < first_stage
    match = get_resolver().resolve(reverse("qa:judge", args=[7]))
    assert (match.view_name, match.kwargs) == ("qa:judge", {"item_id": 7})


def test_a_sessions_signature_is_checked_once_per_text_and_key(monkeypatch, settings, caplog):
    """Issue 32: config.sessions verifies a session's signed text once (HMAC, base64, zlib: ~15 us a request)
    and decodes the verified payload afresh each time; a text that does not verify, or verified under a key no
    longer configured, is still refused with Django's own answer."""
    from django.contrib.sessions.backends.db import SessionStore as DjangoStore
    from django.core import signing

    data = {"_auth_user_id": "7", "nested": [1, 2]}
    text = SessionStore().encode(data)
    checked = []
    unsign = signing.TimestampSigner.unsign
    monkeypatch.setattr(
        signing.TimestampSigner, "unsign", lambda self, *a, **k: checked.append(1) or unsign(self, *a, **k)
    )
    first, second = SessionStore().decode(text), SessionStore().decode(text)
    assert first == second == data
    assert len(checked) == 1
    assert DjangoStore().decode(text) == data
    first["nested"].append(3)  # each request gets objects of its own
    assert SessionStore().decode(text) == data
    with caplog.at_level("WARNING", logger="django.security.SuspiciousSession"):
        assert SessionStore().decode(text[:-2] + ("AA" if not text.endswith("AA") else "BB")) == {}
    assert "Session data corrupted" in caplog.text
    old_key = settings.SECRET_KEY
    settings.SECRET_KEY = "another-key-" + "x" * 40  # the key changed, the old one is no fallback
    assert SessionStore().decode(text) == {}
    settings.SECRET_KEY_FALLBACKS = [old_key]
    assert SessionStore().decode(text) == data


@postgres_only
def test_a_judgment_is_checked_against_its_subject_and_assessor_only(setup):
    """Issue 32: the judgment's evaluation and topic are copies of its item's (or nugget's); their foreign-key
    checks were two lookups and two row locks in each save's commit (the evaluation's row locked by every
    assessor's save at once). The subject and the assessor are still checked by the database, and deleting a
    question still deletes its judgments (Django's cascade)."""
    from django.db import IntegrityError, transaction

    sample, me = setup
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT confrelid::regclass::text FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'f'",
            [Judgment._meta.db_table],
        )
        referenced = sorted(row[0] for row in cursor.fetchall())
    assert referenced == ["assess_nugget", "auth_user", "pooling_poolitem"]
    item = judging.load_item(me, sample.items["1.1"][0].pk)
    instance_judging.judge_instance(me, item, "incorrect", 0)
    with pytest.raises(IntegrityError), transaction.atomic():  # a subject that is not there is still refused
        connection.cursor().execute("SET CONSTRAINTS ALL IMMEDIATE")  # (checked at commit otherwise)
        Judgment.objects.create(
            evaluation=sample.evaluation, topic=item.topic, kind="x", item_id=2**40, assessor=me, value={}
        )
    item.topic.delete()
    assert not Judgment.objects.filter(item=item).exists()
