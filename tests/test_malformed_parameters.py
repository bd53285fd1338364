"""No malformed parameter makes a page fail: every URL pattern answers a bad id, query string, form field, JSON
body, upload or cookie with a refusal (400, 403, 404, 405, 409, 423), or normally (200, 302) where the value is
harmless to it, and never with a 500.

The walk is over get_resolver(), like tests/test_every_view_states_its_roles.py, so a new page fails here until
it has real objects for its parameters: the stages' pages in `_shared_routes` below, each track's in the samples
module beside its tests (tests/samples.py says how they are found: a new track is walked without an edit here).
The demo (pooling.demo) supplies them, so the malformed *other* parameters get past the 404 of a missing object and
reach the view bodies. Each request runs in a savepoint that is rolled back, so a save that goes through leaves the
next request the same world (and a database error cannot poison the rest of the walk). A 500 is reported with the
page, the request and what was malformed in it, and the exception.
"""

import json
import re
from urllib.parse import quote, urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.samples import Route, demo_world  # noqa: F401 (a fixture)

PUBLIC = {"home", "healthz", "favicon", "login", "logout"}
ALLOWED = {200, 302, 400, 403, 404, 405, 409, 423}

# Path values no converter should let through to a 500.
HUGE = "99999999999999999999"  # beyond bigint
BAD_PATH = {
    "int": ["0", HUGE],
    "str": ["a\x00b", "x" * 2000, "%FF%FE"],
    "slug": ["x" * 2000, "0"],
    "path": ["\x00", "a/\x00", "x" * 2000],
}
# Form and query values. Every field gets a NUL byte and a long string; a field whose valid value holds a digit
# (ids, versions, priorities, docids) also gets negative and out-of-range numbers (bigint ids, integer versions) and
# a digit that str.isdigit() accepts but int() refuses. The walk adds a repeated field and a missing one.
BAD_TEXT = ["\x00", "x" * 3000]
BAD_NUMBERS = ["-1", "²", HUGE, "2147483648"]
# JSON values of the wrong type or range for any key.
BAD_JSON = [None, True, "\x00", -1, 2**31, 10**30, [], {"a": None}]
BAD_BODIES = [
    b"[]",
    b'"x"',
    b"1",
    b"null",
    b"true",
    b"{",
    b"\xff\xfe",
    b'{"version": "\\u0000"}',
    b"[{}]",
    b'{"version": NaN, "offset": Infinity, "value": {"relspans": [[-Infinity, 1]]}}',
]


def _patterns(resolver, prefix="", namespace=""):
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if entry.app_name == "admin":
                continue  # Django's own
            ns = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _patterns(entry, prefix + str(entry.pattern), ns)
        elif isinstance(entry, URLPattern):
            yield f"{namespace}{entry.name}", prefix + str(entry.pattern), entry


CONVERTER = re.compile(r"<(?:(\w+):)?(\w+)>")
KINDS = {"int": "int", "id": "int", "slug": "slug", "path": "path", "textpath": "path"}  # others: like str


def _converter_kinds(pattern):
    return {name: KINDS.get(kind, "str") for kind, name in CONVERTER.findall(str(pattern.pattern))}


def _url(route, kwargs):
    """The route with `kwargs` filled in, percent-encoded (a value already holding % escapes goes in as it is)."""
    return "/" + CONVERTER.sub(lambda m: quote(str(kwargs[m.group(2)]), safe="/%"), route)


# --- the world: the demo, a user holding every role, and every page's real requests ----------------------------


@pytest.fixture(scope="module")
def world(demo_world, django_db_blocker):
    """The demo world (tests/samples.py) with the real requests of every page: the stages' and each track's."""
    with django_db_blocker.unblock():
        shared = _shared_routes(demo_world)
    assert not set(shared) & set(demo_world["track_routes"])
    return demo_world | {"routes": shared | demo_world["track_routes"]}


def _shared_routes(w):
    """The stages' pages, over the demo's TAC 2008 evaluation (and the BOLT demo's forum and runs)."""
    from accounts.models import Team
    from assess.models import Assignment, SearchLog
    from corpus.demo import DEMO_FORUM
    from corpus.models import Document
    from pooling.evaluations import create_evaluation
    from pooling.models import Evaluation, PoolItem, Run, Submission, Topic
    from pooling.topics import load_topics
    from tracks.qa import demo_evaluation as tac_demo

    everyone = w["everyone"]
    tac = Evaluation.objects.get(slug=tac_demo.SLUG)
    mine = Assignment.objects.get(evaluation=tac, assessor=everyone, topic__ident="1001")
    rigid, squishy = (Topic.objects.get(evaluation=tac, ident=i) for i in ("1001.1", "1001.2"))
    rigid_items = list(PoolItem.objects.filter(topic=rigid).order_by("position"))
    bolt_ev = Evaluation.objects.get(slug="bolt-demo")
    thread = Document.objects.filter(collection__name=DEMO_FORUM).order_by("docno").first()
    blog_doc = Document.objects.filter(collection__name=tac_demo.COLLECTION).order_by("docno").first()
    documents = tac_demo._documents()
    run_bytes = tac_demo.run_file_bytes("AlphaQA9", tac_demo.ALPHA_1, documents)
    third_run = tac_demo.run_file_bytes("AlphaQA3", tac_demo.ALPHA_1, documents)  # within Team Alpha's rules
    questions = tac_demo.QUESTIONS.read_bytes()
    # runs are frozen once judging starts (issue 26): the participant checks a run against an evaluation still open
    open_tac = create_evaluation("tac-open", "tac2008-qa", [tac_demo.COLLECTION])
    load_topics(open_tac, questions, tac_demo.QUESTIONS.name)
    tac_slug, bolt_slug = tac.slug, bolt_ev.slug
    receipt = Submission.objects.filter(team__name="Team Alpha").first().pk
    participant_pk = w["participant"].pk
    bolt_alpha_tag = Run.objects.filter(evaluation=bolt_ev, team__name="Team Alpha").order_by("tag").first().tag
    a, q1 = mine.pk, rigid.pk
    item = rigid_items[0]
    post = thread.meta["posts"][0]
    search_log = SearchLog.objects.create(evaluation=tac, assessor=everyone, topic=rigid, query="the")
    from api.models import ApiJob
    from pooling.models import PoolBuild

    alpha_run = Run.objects.filter(evaluation=tac, team__name="Team Alpha").order_by("tag").first()
    pool_build = PoolBuild.objects.create(evaluation=tac, status=PoolBuild.FAILED)  # a DONE one needs finished_at
    api_job = ApiJob.objects.create(kind=ApiJob.RESCORE, evaluation=tac, status=ApiJob.DONE)
    api_slug = {"slug": tac.slug}
    from scoring.models import JudgmentSet

    judgment_set = JudgmentSet.objects.create(evaluation=bolt_ev, name="walked", created_by=everyone, released=True)
    set_kwargs = {"slug": bolt_slug, "pk": judgment_set.pk}
    bolt_topic = bolt_ev.topics.order_by("position").first().ident
    return {
        "api:judgment_sets": [Route({"slug": bolt_slug}, ("GET", "POST"), post_as_is=False)],
        "api:judgment_set": [Route(set_kwargs)],
        "api:judgment_set_release": [Route(set_kwargs, ("POST",), json={"released": True})],
        "api:judgment_set_promote": [Route(set_kwargs, ("POST",), post_as_is=False)],
        "api:agreement": [Route({"slug": bolt_slug}, query={"per_topic": "1"})],
        "api:disagreements": [
            Route({"slug": bolt_slug}, query={"kind": "citation", "set": str(judgment_set.pk), "topic": bolt_topic})
        ],
        "api:judge_runs": [Route({"slug": bolt_slug}, ("GET", "POST"), query={"team": "Team Alpha"}, post_as_is=False)],
        "scoring:judgment_sets": [
            Route(
                {"slug": bolt_slug},
                ("GET", "POST"),
                form={"name": "walked upload", "format": "qrels", "model": "m"},
                files={"file": ("walked.qrels", b"")},
            )
        ],
        "scoring:assessor_agreement": [
            Route({"slug": bolt_slug}, query={"kind": "citation", "first": "yes", "second": "no", "topic": bolt_topic})
        ],
        "scoring:judgment_set": [Route(set_kwargs, query={"kind": "citation"})],
        "scoring:judgment_set_action": [Route(set_kwargs, ("POST",), form={"action": "release"})],
        "scoring:judgment_set_download": [Route(set_kwargs)],
        "scoring:judge_runs": [
            Route(
                {"slug": bolt_slug},
                ("GET", "POST"),
                query={"team": "Team Alpha"},
                form={"team": "Team Alpha", "name": "jr", "format": "qrels"},
                files={"file": ("jr.qrels", b"")},
            )
        ],
        # the REST API: real GETs; its POSTs would create things (201/202), so only their paths are malformed
        "api:token": [Route()],
        "api:schema": [Route()],
        "api:docs": [Route()],
        "api:evaluations": [Route(query={"page": "1"})],
        "api:evaluation": [Route(api_slug)],
        "api:evaluation_state": [Route(api_slug, ("POST",), post_as_is=False)],
        "api:topics": [Route(api_slug, query={"page": "1"})],
        "api:runs": [Route(api_slug, query={"page": "1"})],
        "api:run_check": [Route(api_slug, ("POST",), post_as_is=False)],
        "api:submissions": [Route(api_slug, ("GET", "POST"), post_as_is=False)],
        "api:run": [Route(api_slug | {"tag": alpha_run.tag})],
        "api:run_report": [Route(api_slug | {"tag": alpha_run.tag})],
        "api:pools": [Route(api_slug)],
        "api:pool_build": [Route({"pk": pool_build.pk})],
        "api:assignments": [Route(api_slug)],
        "api:judgments": [Route(api_slug, query={"page": "1"})],
        "api:export": [Route(api_slug | {"kind": "jsonl"})],
        "api:import": [Route(api_slug, ("POST",), post_as_is=False)],
        "api:scores": [Route(api_slug, query={"scope": "run", "run": alpha_run.tag, "measure": "score", "page": "1"})],
        "api:rescore": [Route(api_slug, ("POST",), post_as_is=False)],
        "api:rankings": [Route(api_slug)],
        "api:job": [Route({"pk": api_job.pk})],
        "api:assist_design": [Route(api_slug, ("GET", "POST"), post_as_is=False)],
        "api:assist_suggestions": [
            Route(api_slug, ("GET", "POST"), query={"topic": "1001.1", "page": "1"}, post_as_is=False)
        ],
        "api:assist_pass": [Route(api_slug, ("POST",), post_as_is=False)],
        "api:assist_report": [Route(api_slug, query={"kind": "instance", "output": "facts"})],
        "api:item_suggestion": [Route({"item_id": item.pk, "kind": "instance"})],
        "api:topic_proposals": [Route({"topic_id": squishy.pk}, ("GET", "POST"))],
        "api:users": [Route(query={"page": "1"})],
        "api:user_token": [Route({"username": "participant"}, ("POST",), post_as_is=False)],
        "api:teams": [Route()],
        "corpus:search": [
            Route(query={"q": "the", "collection": tac_demo.COLLECTION, "from": "2005-01-01", "page": "1"})
        ],
        "assess:search": [
            Route({"pk": a}, query={"q": "the", "topic": str(q1), "item": str(rigid_items[0].pk), "to": "2007-01-01"})
        ],
        "assess:search_open": [
            Route({"log_id": search_log.pk}, query={"collection": tac_demo.COLLECTION, "docno": blog_doc.docno})
        ],
        "corpus:collection_list": [Route(query={"q": "blog"})],
        "corpus:collection_detail": [Route({"name": tac_demo.COLLECTION}, query={"q": "blog", "page": "1"})],
        "corpus:document": [
            Route({"name": tac_demo.COLLECTION, "docno": blog_doc.docno}, query={"m": ["the", "a"], "s": "p1:0:5"})
        ],
        "corpus:frame": [
            Route(
                {"name": tac_demo.COLLECTION, "docno": blog_doc.docno},
                query={"m": "the", "s": ["p1:0:5"], "img": "token"},
            ),
            Route({"name": DEMO_FORUM, "docno": thread.docno}, query={"s": f"{post['id']}:0:5"}),
        ],
        "pooling:evaluation_list": [Route()],
        "pooling:evaluation_create": [
            Route(
                methods=("GET", "POST"),
                form={"slug": "new-eval", "title": "New", "track": "tac2008-qa", "collections": [tac_demo.COLLECTION]},
            )
        ],
        "pooling:evaluation_detail": [Route({"slug": tac_slug})],
        "pooling:evaluation_state": [Route({"slug": tac_slug}, ("POST",), form={"state": "judging"})],
        "pooling:evaluation_settings": [
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={"judged_priorities": "1,2", "max_answer_chars": "1000", "allow_nil": "on"},
            )
        ],
        "pooling:topics": [
            Route(
                {"slug": tac_slug},
                ("GET", "POST"),
                form={"kind": "questions"},
                files={"file": ("questions.xml", questions)},
            ),
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={"kind": "top_docs"},
                vary=("file",),
                files={"file": ("top.txt", tac_demo.top_docs_bytes(documents))},
            ),
        ],
        "pooling:runs_upload": [
            Route(
                {"slug": tac_slug},
                ("GET", "POST"),
                form={
                    "team": "Team Alpha",
                    "new_team": "",
                    "priority": "1",
                    "manual": "on",
                    "override_reason": "the organizer's test run",
                },
                files={"files": ("AlphaQA9.txt", run_bytes)},
            ),
            Route(
                {"slug": tac_slug},
                ("POST",),
                vary=("manifest",),
                form={"override_reason": "the organizer's test run"},
                files={
                    "files": ("AlphaQA9.txt", run_bytes),
                    "manifest": ("manifest.txt", b"AlphaQA9.txt Gamma 1 manual whole\n"),
                },
            ),
        ],
        "pooling:pools": [Route({"slug": tac_slug}, ("GET", "POST"), post_as_is=False)],
        "pooling:pool_progress": [Route({"slug": tac_slug})],
        "pooling:pool_question": [Route({"slug": tac_slug, "ident": "1001.1"})],
        "assess:assignments": [
            Route({"slug": tac_slug}, ("GET", "POST"), form={"series": "1003", "assessor": "assessor3", "second": "on"})
        ],
        "pooling:run_check": [
            Route(
                methods=("GET", "POST"),
                query={"evaluation": tac_slug},
                form={"evaluation": tac_slug},
                files={"file": ("AlphaQA9.txt", run_bytes)},
            )
        ],
        "pooling:my_runs": [Route()],
        "pooling:participate": [
            Route(
                {"slug": open_tac.slug},
                ("GET", "POST"),
                query={"team": "Team Alpha"},
                form={"team": "Team Alpha", "action": "check", "priority": "3"},
                files={"file": ("AlphaQA3.txt", third_run)},
            )
        ],
        "pooling:team_file": [Route({"slug": tac_slug, "kind": "topics"}, query={"team": "Team Alpha"})],
        "pooling:receipt": [Route({"pk": receipt}, query={"download": "1"})],
        "scoring:team_judgments": [Route({"slug": tac_slug, "kind": "own"}, query={"team": "Team Alpha"})],
        "scoring:team_run_judgments": [Route({"slug": bolt_slug, "tag": bolt_alpha_tag})],
        "accounts:users": [
            Route(
                methods=("GET", "POST"),
                form={"username": "invitee", "email": "i@example.org", "roles": ["assessor"], "teams": "Team Alpha"},
            )
        ],
        "accounts:user_detail": [
            Route(
                {"pk": participant_pk},
                ("GET", "POST"),
                form={"roles": ["participant"], "teams": "Team Alpha", "email": "", "active": "on"},
            )
        ],
        "accounts:user_unlock": [Route({"pk": participant_pk}, ("POST",))],
        "pooling:teams": [Route({"slug": tac_slug}, ("GET", "POST"), form={"team": "Team Alpha", "ident": "AlphaQA"})],
        # the lead's NIL page (issue 14) had no entry yet; GET only here
        "accounts:audit_log": [Route(query={"action": "user changed", "target": "par", "format": "csv"})],
        "password_change": [
            Route(methods=("GET", "POST"), form={"old_password": "x", "new_password1": "y", "new_password2": "y"})
        ],
        "password_change_done": [Route()],
        "password_reset": [Route(methods=("GET", "POST"), form={"email": "nobody@example.org"})],
        "password_reset_done": [Route()],
        "password_reset_confirm": [Route({"uidb64": "MQ", "token": "abc-123"})],
        "password_reset_complete": [Route()],
        "assess:my_assignments": [Route()],
        "assess:item_history": [Route({"item_id": item.pk})],
        "assess:question_history": [Route({"qid": q1})],
        "assess:auto_advance": [Route(methods=("POST",), form={"auto_advance": "1"})],
        "assess:organize_index": [Route()],
        "assess:organize": [Route({"slug": tac_slug})],
        "assess:evaluation_progress": [Route({"slug": tac_slug}), Route({"slug": bolt_slug})],
        "assess:invite": [
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={"kind": "voter", "series": str(mine.topic_id), "user": str(w["assessor2"].pk)},
            )
        ],
        "assess:second_assessor": [
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={
                    "series": str(Topic.objects.get(evaluation=tac, ident="1003").pk),
                    "user": str(w["assessor2"].pk),
                },
            )
        ],
        "assess:revote": [Route({"slug": tac_slug}, ("POST",), form={"series": str(mine.topic_id)})],
        "assess:closure": [Route({"topic_id": q1, "action": "close"}, ("POST",))],
        "assess:assist": [Route({"slug": tac_slug}, query={"kind": "instance"})],
        "assess:assist_design": [
            Route({"slug": tac_slug}, ("POST",), form={"unit": "item", "conditions": ["none"], "seed": "5"})
        ],
        "assess:assist_panel": [Route({"item_id": item.pk, "kind": "instance"})],
        "assess:assist_load": [
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={"format": "qrels", "kind": "instance", "grades": "0=incorrect"},
                files={"file": ("s.qrels", b"1001.1 0 NOSUCHDOC 0\n")},
            )
        ],
        "assess:assist_pass": [Route({"slug": tac_slug}, ("POST",), form={"topic": "1001.1", "kind": "instance"})],
        "scoring:scoreboard": [Route({"slug": tac_slug})],
        "scoring:board": [Route({"slug": tac_slug})],
        "scoring:robustness": [Route({"slug": tac_slug})],
        "scoring:significance": [Route({"slug": tac_slug}, query={"permutations": "100", "seed": "1"})],
        "scoring:release": [
            Route(
                {"slug": tac_slug},
                ("POST",),
                form={"team": str(Team.objects.get(name="Team Alpha").pk), "action": "withdraw"},
            )
        ],
        "scoring:rescore": [Route({"slug": tac_slug}, ("POST",), post_as_is=False)],
        "scoring:export": [Route({"slug": tac_slug, "kind": "list"})],
        "scoring:results_file": [Route({"slug": tac_slug, "shape": "trec_eval"})],
        "scoring:run_report": [Route({"slug": tac_slug, "tag": "AlphaQA1"})],
        "scoring:run_report_csv": [Route({"slug": tac_slug, "tag": "AlphaQA1"})],
        "scoring:run_report_json": [Route({"slug": tac_slug, "tag": "AlphaQA1"})],
    }


# --- the requests ---------------------------------------------------------------------------------------------


def _mutations(route, r, pattern, with_path=True):
    """(description, method, url, request keyword arguments) for every malformed variant of one route spec: the
    route string `r` of URL pattern `pattern` filled with the spec's values, one of them malformed at a time."""
    url = _url(r, route.kwargs)
    form_kw = {"data": _with_files(route.form, route.files)} if route.form or route.files else {}
    method = route.methods[0]  # the view's lookups come before it looks at the method
    for name, kind in _converter_kinds(pattern).items() if with_path else ():
        for bad in BAD_PATH.get(kind, BAD_PATH["str"]):
            bad_url = _url(r, route.kwargs | {name: bad})
            yield f"path {name}={bad!r:.40}", method, bad_url, form_kw if method == "POST" else {}
    if "GET" in route.methods:
        yield "junk query", "GET", url, {"QUERY_STRING": "x=%00&=&&%zz&y=%FF%FE"}
        for name in route.query:
            for bad in _bad_values(route.query[name]) + [[HUGE, "\x00", "x:1:²"]]:
                query = urlencode(route.query | {name: bad}, doseq=True)
                yield f"query {name}={bad!r:.40}", "GET", url, {"QUERY_STRING": query}
        if route.query:
            raw = "&".join(f"{name}=%FF%00" for name in route.query)
            yield "query invalid UTF-8", "GET", url, {"QUERY_STRING": raw}
    if "POST" not in route.methods or not route.post_as_is:
        return
    if route.json is not None:
        for body in BAD_BODIES if route.vary is None else ():
            yield f"JSON body {body!r}", "POST", url, {"data": body, "content_type": "application/json"}
        for path, bad in _json_mutations(route.json, keys=route.vary):
            body = json.dumps(bad)
            yield f"JSON {path}", "POST", url, {"data": body, "content_type": "application/json"}
        return
    if route.vary is None:
        yield (
            "invalid UTF-8 form",
            "POST",
            url,
            {"data": b"version=%FF&label=%00\xff", "content_type": "application/x-www-form-urlencoded"},
        )
    for name, valid in route.form.items():
        if route.vary is not None and name not in route.vary:
            continue
        repeated = [[HUGE, "\x00"]] if isinstance(valid, list) else []  # getlist() fields
        for bad in _bad_values(valid) + repeated + [None]:
            form = dict(route.form)
            if bad is None:
                form.pop(name)
            else:
                form[name] = bad
            what = f"form {name} left out" if bad is None else f"form {name}={bad!r:.40}"
            yield what, "POST", url, {"data": _with_files(form, route.files)}
    for name, (filename, content) in route.files.items():
        if route.vary is not None and name not in route.vary:
            continue
        for label, bad_name, bad_content in _file_mutations(filename, content):
            files = route.files | {name: (bad_name, bad_content)}
            yield f"file {name} {label}", "POST", url, {"data": _with_files(route.form, files)}


def _bad_values(valid):
    numeric = any(ch.isdigit() for ch in "".join(valid if isinstance(valid, list) else [valid]))
    return BAD_TEXT + (BAD_NUMBERS if numeric else [])


def _with_files(form, files):
    data = dict(form)
    for name, (filename, content) in files.items():
        data[name] = SimpleUploadedFile(filename, content)
    return data


def _file_mutations(filename, content):
    cut = content.find(b"\n", 40) if b"\n" in content[40:] else len(content) // 2
    yield "empty", filename, b""
    yield "of NUL bytes", filename, b"\x00" * 64
    yield "of invalid UTF-8", filename, b"\xff\xfe\xfa" + content
    yield "with a NUL byte in a line", filename, content[: cut - 3] + b"\x00" + content[cut - 3 :]
    yield "with a huge number", filename, re.sub(rb"\b1\b", HUGE.encode(), content, count=3)
    yield "with a NUL in its name", filename.replace(".", "\x00."), content


def _json_mutations(valid, path="body", keys=None):
    """(path, body) with one value replaced by each bad value, or left out; nested objects too."""
    for key, value in valid.items():
        if keys is not None and key not in keys:
            continue
        where = f"{path}.{key}"
        yield f"{where} left out", {k: v for k, v in valid.items() if k != key}
        for bad in BAD_JSON:
            yield f"{where}={bad!r:.40}", valid | {key: bad}
        if isinstance(value, dict):
            for inner_path, inner in _json_mutations(value, where):
                yield inner_path, valid | {key: inner}
        if isinstance(value, list) and value and isinstance(value[0], list):
            for bad in BAD_JSON:
                yield f"{where}[0][0]={bad!r:.40}", valid | {key: [[bad] + value[0][1:]]}


def _send(client, method, url, kwargs):
    """One request in a savepoint that is always rolled back: the next request sees the same world."""
    sid = transaction.savepoint_create()
    try:
        if method == "GET":
            query = kwargs.get("QUERY_STRING")
            return client.get(url, QUERY_STRING=query) if query is not None else client.get(url)
        return client.post(url, **kwargs)
    finally:
        transaction.savepoint_rollback(sid)


def _failure(response, method, url, what):
    error = ""
    if getattr(response, "exc_info", None):
        exc = response.exc_info[1]
        error = f": {type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
    return f"{response.status_code} {method} {url[:100]!r} ({what}){error}"


def _walk(client, routes, only=None, keep=lambda what: True):
    """Send every malformed variant `keep` accepts to every route (or those in `only`); returns (failures as
    readable lines, requests sent, route names walked)."""
    failures, sent, seen = [], 0, set()
    for name, route_str, pattern in _patterns(get_resolver()):
        if name in PUBLIC or (only and name not in only):
            continue
        seen.add(name)
        for n, route in enumerate(routes[name]):  # the first spec of a page stands for its path values
            for what, method, url, kwargs in _mutations(route, route_str, pattern, with_path=n == 0):
                if not keep(what):
                    continue
                response = _send(client, method, url, kwargs)
                sent += 1
                if response.status_code not in ALLOWED:
                    failures.append(f"{name}: " + _failure(response, method, url, what))
    return failures, sent, seen


def _roles_of(view):
    """allowed_roles that role_required put on the view (or on a view it wraps)."""
    while view is not None:
        if getattr(view, "allowed_roles", None):
            return view.allowed_roles
        view = getattr(view, "__wrapped__", None)
    return frozenset()


def _client(user):
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def _quiet_500s(caplog):
    """Each 500 is reported by the test itself; Django's error log of the same would bury the report."""
    import logging

    caplog.set_level(logging.CRITICAL, logger="django.request")


def test_every_route_has_real_parameters(db, world):
    names = {name for name, _, _ in _patterns(get_resolver())} - PUBLIC
    missing, extra = names - set(world["routes"]), set(world["routes"]) - names
    assert not missing, f"no real requests for {sorted(missing)}: add them to the track's samples.routes()"
    assert not extra, f"samples of routes that do not exist: {sorted(extra)}"


def test_no_malformed_parameter_answers_500_for_a_user_with_every_role(db, world):
    failures, sent, seen = _walk(_client(world["everyone"]), world["routes"])
    assert len(seen) > 60 and sent > 900  # the walk reached every app's pages with many variants
    assert failures == [], f"{len(failures)} of {sent} malformed requests failed:\n" + "\n".join(failures)


def _adjudication(world):
    """The adjudication pages (Route.adjudication): only an organizer who judged none of the items decides."""
    return {name for name, routes in world["routes"].items() if any(r.adjudication for r in routes)}


def _valid_requests(route, r):
    """The route spec's own, well-formed requests."""
    url = _url(r, route.kwargs)
    if "GET" in route.methods:
        yield "GET", url, {"QUERY_STRING": urlencode(route.query, doseq=True)}
    if "POST" in route.methods and route.post_as_is:
        if route.json is not None:
            yield "POST", url, {"data": json.dumps(route.json), "content_type": "application/json"}
        else:
            yield "POST", url, {"data": _with_files(route.form, route.files)}


@pytest.mark.parametrize("username", ["everyone", "organizer"])
def test_the_real_parameters_reach_the_views(db, world, username):
    """The walk means something only if its well-formed requests get past the views' lookups: each is answered
    200 (or a redirect after a form post), not 403 or 404. Adjudication pages are the organizer's here."""
    client, refused, adjudication = _client(world[username]), [], _adjudication(world)
    for name, route_str, _ in _patterns(get_resolver()):
        if name in PUBLIC or (name in adjudication) != (username == "organizer"):
            continue
        for route in world["routes"][name]:
            for method, url, kwargs in _valid_requests(route, route_str):
                response = _send(client, method, url, kwargs)
                if response.status_code not in (200, 302):
                    refused.append(f"{name}: {response.status_code} {method} {url}")
    assert refused == [], "\n".join(refused)


def test_adjudicators_get_no_500_either(db, world):
    """The all-roles user judged the disputed items, so only an organizer reaches the adjudication bodies."""
    failures, sent, _ = _walk(_client(world["organizer"]), world["routes"], only=_adjudication(world))
    assert sent > 60
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize("username", ["organizer", "assessor2", "participant"])
def test_each_single_role_gets_no_500_on_malformed_ids(db, world, username):
    """Single roles, on the pages their role may open (elsewhere the role check refuses before the view reads
    anything): the real ids with a junk query, and the malformed path values."""
    from config.roles import roles_of

    user = world[username]
    mine = {
        name
        for name, _, pattern in _patterns(get_resolver())
        if name not in PUBLIC and _roles_of(pattern.callback) & roles_of(user)
    }
    failures, sent, _ = _walk(
        _client(user), world["routes"], only=mine, keep=lambda what: what.startswith("path") or what == "junk query"
    )
    assert sent > 20
    assert failures == [], "\n".join(failures)


@pytest.mark.parametrize(
    "cookie",
    ['sessionid="abcdefghij\\000klmnopqrstuvwxyz"', "sessionid=" + "x" * 5000, 'csrftoken="\\000"; sessionid=abc'],
)
def test_a_malformed_session_cookie_is_no_500(db, cookie):
    client = Client(raise_request_exception=False)
    for url in ("/", "/assess/", "/evaluations/"):
        sid = transaction.savepoint_create()
        try:
            response = client.get(url, HTTP_COOKIE=cookie)
        finally:
            transaction.savepoint_rollback(sid)
        assert response.status_code in ALLOWED, _failure(response, "GET", url, cookie)


@pytest.mark.parametrize("case", ["run tag", "manifest"])
def test_a_digit_int_refuses_in_a_run_tag_or_a_manifest_is_a_400(db, world, case):
    from tracks.qa import demo_evaluation as tac_demo

    tag = "AlphaQA²" if case == "run tag" else "AlphaQA9"
    run = SimpleUploadedFile("run.txt", tac_demo.run_file_bytes(tag, tac_demo.ALPHA_1, tac_demo._documents()))
    form = (
        {"team": "Team Alpha", "files": run}
        if case == "run tag"
        else {"files": run, "manifest": SimpleUploadedFile("manifest.txt", "run.txt Gamma ²\n".encode())}
    )
    response = _send(_client(world["everyone"]), "POST", "/evaluations/demo-tac2008/runs/upload/", {"data": form})
    assert response.status_code == 400


def test_the_parameter_helpers_refuse_what_postgresql_would():
    from config import params
    from config.converters import IdConverter

    assert params.integer(" 12 ", "n") == 12 and params.optional_integer("", "n") is None
    assert params.version(str(params.INT_MAX)) == params.INT_MAX
    for bad in ("²", "١٢", "-1", "1.5", True, 1.5, None, [], str(params.BIGINT_MAX + 1)):
        with pytest.raises(params.BadParameter):
            params.integer(bad, "n")
    with pytest.raises(params.BadParameter):
        params.version(str(params.INT_MAX + 1))
    with pytest.raises(params.BadParameter):
        params.text("a\x00b", "t")
    assert params.text(None, "t", "yes") == "yes"
    for body in (b"[]", b"\xff", b'{"a": NaN}'):
        with pytest.raises(params.BadParameter):
            params.json_object(body)
    assert params.json_object(b"") == {}
    assert IdConverter().to_python(str(params.BIGINT_MAX)) == params.BIGINT_MAX
    with pytest.raises(ValueError):
        IdConverter().to_python(str(params.BIGINT_MAX + 1))
