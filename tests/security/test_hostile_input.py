"""Issue 26, item 3: no hostile input reaches a 500. JSON nested 100,000 deep (RecursionError), a 5,000-digit
number (Python's int limit) and a lone surrogate escape (a str no UTF-8 writer can encode) used to end in 500s on
the API, the participant's checker and the judging endpoints. Every untrusted JSON body and file now goes through
config.safejson: the answer is a 4xx (or a refused file's problems) naming the problem and its line, and nothing
stored changes. The XML parsers refuse entities, external files and excessive depth the same way.

The API's endpoints taking a body are found in its OpenAPI schema, not listed by hand."""

import io
import json
from pathlib import Path

import pytest
from django.apps import apps
from django.db import transaction
from django.test import Client, override_settings
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ParseError
from rest_framework.test import APIClient

from api.parsers import SafeJSONParser
from api.tokens import create_token
from config import safejson
from corpus.formats import pubmed
from pooling.formats.base import CheckContext, Problem
from tracks.biogen.formats import runs as biogen_runs
from tracks.biogen.formats import topics as biogen_topics
from tracks.bolt.formats import citations as bolt_runs
from tracks.bolt.formats import topics as bolt_topics
from tracks.qa.formats import topics as qa_topics
from tracks.qa4mre.formats import gold as qa4mre_gold
from tracks.qa4mre.formats import run as qa4mre_runs
from tracks.qa4mre.formats import test_set as qa4mre_test_set

FIX = Path(__file__).resolve().parents[1] / "fixtures"
FEW = settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))

# --- hostile JSON: each with the words its refusal must hold -------------------------------------------------

DEEP = st.integers(65, 100_000).flatmap(
    lambda n: st.sampled_from(["[" * n, '{"a":' * n + "1" + "}" * n, '{"value": ' + "[" * n + "]" * n + "}"])
)
LONG_NUMBER = st.integers(101, 20_000).flatmap(
    lambda n: st.sampled_from([f'{{"version": {"9" * n}}}', f'{{"value": [0.{"1" * n}]}}', f'{{"x": -{"5" * n}}}'])
)
SURROGATE = st.tuples(st.integers(0xD800, 0xDFFF), st.sampled_from(['{"value": "%s"}', '{"a": ["ok", "x%s"]}'])).map(
    lambda c: c[1] % f"\\u{c[0]:04x}"
)
HOSTILE = st.one_of(
    DEEP.map(lambda d: (d, "nested deeper than")),
    LONG_NUMBER.map(lambda d: (d, "digits")),
    SURROGATE.map(lambda d: (d, "lone surrogate")),
)


def _lines(doc, where):
    """The document moved down `where` lines (a refusal must name the line it is on)."""
    return "\n" * where + doc, where + 1


@pytest.mark.parametrize(
    ("doc", "words", "line", "column"),
    [
        ("[" * 100_000, "nested deeper than 64 levels", 1, 65),
        ('{"n":\n ' + "1" * 5000 + "}", "more than 100 digits", 2, 2),
        ('{"a": "ok",\n "b": "x\\ud800"}', "lone surrogate", 2, 9),
        ('["\\udc00"]', "lone surrogate", 1, 3),
        ("[NaN]", "NaN is not JSON", 1, 1),
        ("[1e999]", "too large for a float", 1, 1),
    ],
)
def test_the_decoder_names_the_problem_and_where(doc, words, line, column):
    with pytest.raises(safejson.JSONLimitError) as refused:
        safejson.loads(doc)
    assert words in refused.value.msg
    assert (refused.value.lineno, refused.value.colno) == (line, column)
    assert isinstance(refused.value, ValueError)  # callers catch it as they catch Python's own errors


def test_the_decoder_keeps_what_is_fine():
    doc = '{"a": [1, -2.5e3, "\\ud83d\\ude00 \\\\ud800", {"b": null}], "c": "' + "9" * 500 + '"}'
    assert safejson.loads(doc) == json.loads(doc)
    assert safejson.loads(("[" * 64 + "]" * 64).encode()) == json.loads("[" * 64 + "]" * 64)
    with pytest.raises(safejson.JSONLimitError, match="larger than 10 bytes"):
        safejson.loads("[" + " " * 20 + "]", max_bytes=10)


def test_an_unclosed_string_of_escaped_quotes_is_scanned_once():
    """The scanner must not restart at every quote of an unclosed string: 400,000 of them would take minutes."""
    with pytest.raises(safejson.JSONDecodeError, match="Unterminated string"):
        safejson.loads('"' + '\\"' * 200_000)


# --- every parser of an untrusted JSON file ------------------------------------------------------------------


def _biogen_context(shape):
    return CheckContext(topics={"1": "QUESTION", "2": "QUESTION"}, settings={"run_shape": shape}, extra={})


def _refused_with(problems, words):
    errors = [p for p in problems if not p.warning]
    assert errors, "a hostile file must be refused"
    assert any(words in p.message for p in errors), [p.message for p in errors]
    for p in problems:
        assert isinstance(p, Problem)
        p.format("f")


@FEW
@given(HOSTILE, st.integers(0, 3))
def test_biogen_runs_of_every_shape_refuse_hostile_json(hostile, down):
    doc, words = hostile
    text, _ = _lines(doc, down)
    for shape in biogen_runs.SHAPES:
        problems, run = biogen_runs.check_run(text.encode(), "run.json", _biogen_context(shape))
        assert run is None
        _refused_with(problems, words)
    problems, run = biogen_runs.check_run(text.encode(), "run.json", _biogen_context("2024"))
    assert any(p.line == down + 1 for p in problems if words in p.message)  # the line it is on


@FEW
@given(HOSTILE, st.integers(0, 3))
def test_biogen_topics_refuse_hostile_json(hostile, down):
    doc, words = hostile
    text, line = _lines(doc, down)
    problems, topics = biogen_topics.parse_topics(text.encode(), "topics.jsonl")
    assert topics == []
    _refused_with(problems, words)
    assert any(p.line == line for p in problems if words in p.message)


@FEW
@given(HOSTILE)
def test_pubmed_records_refuse_hostile_json(hostile):
    doc, words = hostile
    with pytest.raises(pubmed.FormatError, match=words):
        pubmed.parse_record(doc.encode())
    pubmed.docno_of(doc.encode())  # no exception: no docno


# --- XML: no entity, no external file, no excessive depth ----------------------------------------------------

XML_PARSERS = {
    "qa topics": lambda d: qa_topics.parse_topics(d, "q.xml")[0],
    "bolt topics": lambda d: bolt_topics.parse_topics(d, "t.xml")[0],
    "bolt runs": lambda d: bolt_runs.check_run(d, "r.xml", CheckContext(topics={}, settings={}, extra={}))[0],
    "qa4mre test set": lambda d: qa4mre_test_set.parse_topics(d, "t.xml")[0],
    "qa4mre runs": lambda d: qa4mre_runs.check_run(
        d, "r.xml", CheckContext(topics={}, settings={}, extra={"runs_by_team_id": {}})
    )[0],
    "qa4mre gold": lambda d: qa4mre_gold.parse_gold(d, "g.xml")[0],
}
SECRET = "root:x:0:0"  # of /etc/passwd: an external entity must not bring it in
XML_HOSTILE = st.one_of(
    st.integers(3000, 100_000).map(lambda n: b'<?xml version="1.0"?>' + b"<a>" * n + b"</a>" * n),
    st.just(
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><r>&d;&d;</r>'
    ),
    st.just(b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'),
)


@FEW
@given(XML_HOSTILE)
@pytest.mark.parametrize("parser", sorted(XML_PARSERS))
def test_xml_parsers_refuse_hostile_documents(parser, doc):
    problems = XML_PARSERS[parser](doc)
    errors = [p for p in problems if not p.warning]
    assert errors
    assert not any(SECRET in p.message or "a" * 1000 in p.message for p in problems)
    if doc.count(b"<a>") > 2048:
        assert any("depth" in p.message for p in errors)


# --- the endpoints ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The demo users, collections, and the BOLT and BioGen demos, built once inside a transaction rolled back."""
    from config.celery import app
    from corpus.demo import load_demo_collections
    from pooling.demo import create_users
    from tracks.biogen.demo import load_biogen_demo
    from tracks.bolt.demo import load_bolt_demo

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock(), fast, transaction.atomic():
        try:
            for step in (create_users, load_demo_collections, load_bolt_demo, load_biogen_demo):
                step(lambda *a: None)
            yield
        finally:
            app.conf.task_always_eager = eager
            transaction.set_rollback(True)


def _rows():
    return {m._meta.label: m._default_manager.count() for m in apps.get_models()}


def _api_operations():
    """(method, path) of every API operation that takes a request body, from the OpenAPI schema."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = [
        (method, path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if operation.get("requestBody")
    ]
    assert len(found) >= 8  # the schema still lists them
    return found


def _api(username):
    from django.contrib.auth.models import User

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(User.objects.get(username=username))}")
    return client


@FEW
@given(HOSTILE)
def test_every_api_body_refuses_hostile_json(db, world, hostile):
    doc, words = hostile
    clients = [_api("organizer"), _api("participant"), _api("assessor")]
    before = _rows()
    for method, path in _api_operations():
        # ({id}, {topic_id}: a judgment set's, a topic's; the body is read before either is looked up)
        url = path.replace("{slug}", "biogen-demo").replace("{username}", "participant").replace("{id}", "1")
        url = url.replace("{topic_id}", "1")
        for client in clients:  # the first role the operation is for (participants: a team's submissions)
            answer = getattr(client, method)(url, doc, content_type="application/json")
            if answer.status_code != 403:
                break
        assert answer.status_code == 400, (method, url, answer.status_code)
        assert words in answer.json()["detail"] and "line 1, column" in answer.json()["detail"], answer.json()
    assert _rows() == before


def test_an_api_body_past_the_limit_is_refused_before_decoding(db, world):
    big = '{"name": "' + "x" * 2000 + '"}'
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000):
        assert _api("organizer").post("/api/teams/", big, content_type="application/json").status_code == 400
        # the parser itself reads no more than the limit, whatever stream reaches it
        with pytest.raises(ParseError, match="larger than 1000 bytes"):
            SafeJSONParser().parse(io.BytesIO(big.encode()))
    assert not apps.get_model("accounts", "Team").objects.filter(name__startswith="xxx").exists()


def _upload(doc):
    f = io.BytesIO(doc.encode())
    f.name = "hostile.json"
    return f


@FEW
@given(HOSTILE)
def test_hostile_biogen_files_are_refused_on_the_api_and_the_checker_page(db, world, hostile):
    doc, words = hostile
    page = Client()
    page.force_login(apps.get_model("auth", "User").objects.get(username="participant"))
    organizer, participant = _api("organizer"), _api("participant")  # (each makes a token)
    before = _rows()
    for client in (organizer, participant):
        answer = client.post("/api/evaluations/biogen-demo/runs/check/", {"file": _upload(doc)})
        assert answer.status_code in (200, 400), answer.status_code
        assert any(words in p for p in answer.json()["problems"]), answer.json()
    stored = organizer.post(
        "/api/evaluations/biogen-demo/runs/", {"files": [_upload(doc)], "team": "Team Alpha"}, format="multipart"
    )
    assert stored.status_code == 400 and words in json.dumps(stored.json())
    topics = organizer.post("/api/evaluations/biogen-demo/topics/", {"file": _upload(doc)})
    assert topics.status_code == 400 and words in json.dumps(topics.json())
    answer = page.post(reverse("pooling:run_check"), {"evaluation": "biogen-demo", "file": _upload(doc)})
    assert answer.status_code == 200 and words in answer.content.decode()
    assert _rows() == before


def _judge_urls():
    """The BOLT and BioGen judging endpoints that read a JSON body, each on an item of the demo."""
    from assess.models import Assignment
    from pooling.models import PoolItem

    urls = []
    for slug, prefix in (("bolt-demo", "bolt"), ("biogen-demo", "biogen")):
        assignment = Assignment.objects.filter(evaluation__slug=slug).order_by("pk").first()
        item = PoolItem.objects.filter(topic=assignment.topic).order_by("pk").first()
        urls.append((assignment.assessor.username, f"/{prefix}/item/{item.pk}/judge"))
    bolt = Assignment.objects.filter(evaluation__slug="bolt-demo").order_by("pk").first()
    urls.append((bolt.assessor.username, f"/bolt/a/{bolt.pk}/find/add"))
    return urls


@FEW
@given(HOSTILE)
def test_judging_endpoints_refuse_hostile_json(db, world, hostile):
    doc, words = hostile
    clients = []
    for username, url in _judge_urls():
        client = Client()
        client.force_login(apps.get_model("auth", "User").objects.get(username=username))  # (a session row)
        clients.append((client, url))
    before = _rows()
    for client, url in clients:
        answer = client.post(url, doc, content_type="application/json")
        assert answer.status_code == 400, (url, answer.status_code, answer.content[:300])
        assert words in answer.json()["error"] and "line 1" in answer.json()["error"], answer.json()
    assert _rows() == before
