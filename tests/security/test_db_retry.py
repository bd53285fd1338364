"""Issue 26, item 5: a database connection killed mid-request used to fail the requests in flight with a 500. A
request that has written nothing is now run once more on a fresh connection (config/db_retry.py); one that wrote
is not repeated, and a second failure stays a 500. The connection is really killed (pg_terminate_backend)."""

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.urls import path, reverse

from accounts.models import Team
from pooling.models import Evaluation

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="kills a PostgreSQL backend")
calls = []


def _kill_own_connection():
    """The server ends this connection, as a restart or a failover would."""
    connection.ensure_connection()
    try:
        connection.connection.execute("SELECT pg_terminate_backend(pg_backend_pid())")
    except Exception:  # the server hangs up while answering
        pass


def reading(request):
    calls.append(request.method)
    if len(calls) == 1 or request.GET.get("always"):
        _kill_own_connection()
    return HttpResponse(str(Team.objects.count()))


def writing(request):
    calls.append(request.method)
    Team.objects.create(name=f"team {len(calls)}")
    if len(calls) == 1:
        _kill_own_connection()
    return HttpResponse(str(Team.objects.count()))


urlpatterns = [path("reading", reading), path("writing", writing)]


@pytest.fixture
def views(settings):
    settings.ROOT_URLCONF = __name__
    calls.clear()
    return Client(raise_request_exception=False)


def test_a_read_on_a_killed_connection_is_retried_once(transactional_db, views):
    Team.objects.create(name="Team Alpha")
    answer = views.post("/reading")  # a POST that wrote nothing yet: safe to run again
    assert answer.status_code == 200 and answer.content == b"1" and calls == ["POST", "POST"]


def test_only_once(transactional_db, views):
    assert views.get("/reading?always=1").status_code == 500 and calls == ["GET", "GET"]
    connection.close()  # as Django does after a request (the test client does not): the next one reconnects


def test_a_request_that_wrote_is_not_repeated(transactional_db, views):
    assert views.post("/writing").status_code == 500 and calls == ["POST"]
    connection.close()
    assert list(Team.objects.values_list("name", flat=True)) == ["team 1"]  # written once, not twice


def test_a_page_survives_its_connection_dying(transactional_db, make_user):
    Evaluation.objects.create(slug="kept", title="Kept", track="bolt-ir-p2")
    client = Client(raise_request_exception=False)
    client.force_login(make_user("org", "organizer"))
    killed = []

    def kill_on_first_evaluation_query(execute, sql, params, many, context):
        if "pooling_evaluation" in sql and not killed:
            killed.append(sql)
            _kill_own_connection()
        return execute(sql, params, many, context)

    with connection.execute_wrapper(kill_on_first_evaluation_query):
        answer = client.get(reverse("pooling:evaluation_list"))
    assert killed and answer.status_code == 200 and "Kept" in answer.content.decode()


def test_a_judgment_save_counts_as_a_write(transactional_db, make_user):
    """The save path's statements are prepared ones (config/prepared.py) and go through the execute wrappers too
    (issue 32): a save whose connection died after its judgment committed is not run a second time."""
    from assess.models import Assignment
    from config import prepared
    from tracks.qa.sample import build_sample

    seen = []

    def watch(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        assert prepared.fetchone("SELECT %(a)s::integer", {"a": 7}) == (7,)
    assert seen == ["SELECT %(a)s::integer"]

    sample = build_sample(slug="retry-save")
    judy = make_user("judy", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=judy)
    client = Client(raise_request_exception=False)
    client.force_login(judy)
    item = sample.items["1.1"][0]
    answer = client.post(reverse("qa:judge", args=[item.pk]), {"label": "incorrect", "version": 0})
    assert answer.status_code == 200 and answer.wsgi_request.db_wrote is True
    reading = client.get(reverse("qa:assignment", args=[Assignment.objects.get(assessor=judy).pk]))
    assert reading.status_code == 200 and reading.wsgi_request.db_wrote is False
