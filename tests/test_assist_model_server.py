"""Suggestions from a model server (issue 30; assess/assist_client.py), stood in for by a small HTTP server the test
starts on 127.0.0.1 (no network): a good reply stored with its provenance, and a time-out, a malformed reply and
rate limiting each ending in a stored error row and no suggestion, the pass going on with the next item."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.management import call_command

from assess import assist_client
from assess.models import Suggestion
from assess.tasks import suggest_topic
from config import patience
from config.celery import run_here_or_send

pytestmark = pytest.mark.django_db


def completion(content, usage=None):
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": usage or {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62},
    }


GOOD = completion('{"label": "globally-correct", "rationale": "The document says 1983."}')


class FakeModelServer:
    """Answers POST /v1/chat/completions with the scripted replies in turn (the last one repeats): (status,
    body, headers) or "hang" (no answer until the test ends). Keeps every request's body and headers."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests = []
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                server.requests.append(
                    {
                        "path": self.path,
                        "body": json.loads(self.rfile.read(length)),
                        "auth": self.headers.get("Authorization"),
                    }
                )
                reply = server.replies.pop(0) if len(server.replies) > 1 else server.replies[0]
                if reply == "hang":
                    server.release.wait(60)
                    return
                if reply in ("trickle body", "trickle headers"):  # a byte at a time, each well inside a read's time-out
                    head = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" if reply == "trickle body" else b""
                    self.wfile.write(head or b"HTTP/1.1 200 OK\r\nX-Slow: ")
                    self.wfile.flush()
                    ends = time.monotonic() + patience.scaled(30)
                    while not server.release.is_set() and time.monotonic() < ends:
                        try:
                            self.wfile.write(b"a")
                            self.wfile.flush()
                        except OSError:  # the client hung up
                            return
                        server.release.wait(0.05)
                    return
                status, body, headers = reply
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def close(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def model_server():
    servers = []

    def start(*replies):
        server = FakeModelServer(replies)
        servers.append(server)
        return server

    yield start
    for s in servers:
        s.close()


def turn_on(evaluation, server, **extra):
    evaluation.settings = evaluation.settings | {
        "assist_model": {
            "enabled": True,
            "base_url": server.base_url,
            "model": "tiny-instruct",
            "key_env": "ASSIST_TEST_KEY",
            "timeout": 0.5,
            "retries": 1,
            "per_minute": 0,  # the test's own server: no spacing (the Pacer is tested on its own below)
            **extra,
        }
    }
    evaluation.save(update_fields=["settings"])


def no_sleep(seconds):
    pass


def test_a_good_reply_is_stored_with_its_provenance(sample, model_server, monkeypatch):
    monkeypatch.setenv("ASSIST_TEST_KEY", "sekret")
    server = model_server((200, GOOD, None))
    turn_on(sample.evaluation, server, prompts={"instance": "Q: {question} A: {text} D: {document} L: {labels}"})
    rows = assist_client.suggest_topic(sample.evaluation, sample.questions["1.1"], "instance", sleep=no_sleep)
    assert len(rows) == 4 and all(not r.error for r in rows)
    first = Suggestion.objects.order_by("id").first()
    item = sample.items["1.1"][0]
    assert (first.item, first.value, first.rationale, first.source, first.source_name) == (
        item,
        {"label": "globally-correct"},
        "The document says 1983.",
        "model",
        "tiny-instruct",
    )
    assert first.prompt == (
        "Q: Question 1 of type FACTOID A: 1983 D: Sample\n\nReported: 1983. "
        "L: incorrect, unsupported, non-exact, locally-correct, globally-correct"
    )
    assert first.cost == {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62}
    assert json.loads(first.raw_output) == GOOD and first.seconds is not None
    assert first.parameters["base_url"] == server.base_url and first.parameters["temperature"] == 0.0
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sekret"
    assert request["body"]["model"] == "tiny-instruct" and request["body"]["messages"][0]["content"] == first.prompt
    # a second pass asks only for items without a suggestion: none left
    assert assist_client.suggest_topic(sample.evaluation, sample.questions["1.1"], "instance") == []


def test_a_malformed_reply_is_an_error_row_and_the_pass_goes_on(sample, model_server):
    server = model_server(
        (200, completion("I think it is right."), None),  # no JSON object
        (200, completion('{"label": "brilliant"}'), None),  # not a label
        (200, "<html>not json</html>", None),  # not a completion at all
        (200, GOOD, None),
    )
    turn_on(sample.evaluation, server)
    rows = assist_client.suggest_topic(sample.evaluation, sample.questions["1.1"], "instance", sleep=no_sleep)
    assert [r.error for r in rows] == [
        "malformed reply: the reply holds no JSON object",
        "malformed reply: the reply's label 'brilliant' is not one of incorrect, unsupported, non-exact, "
        "locally-correct, globally-correct",
        "the response is not JSON",
        "",
    ]
    assert [r.value for r in rows] == [None, None, None, {"label": "globally-correct"}]
    assert rows[0].raw_output and "I think it is right." in rows[0].raw_output  # kept to see what went wrong
    assert rows[2].raw_output == "<html>not json</html>"


def test_a_time_out_is_retried_then_stored_as_an_error(sample, model_server):
    server = model_server("hang")  # never answers while the test runs
    turn_on(sample.evaluation, server, retries=1, timeout=0.3)
    item = sample.items["1.1"][0]
    conf = assist_client.settings_of(sample.evaluation)
    row = assist_client.suggest_item(sample.evaluation, conf, item, "instance", assist_client.Pacer(0), sleep=no_sleep)
    assert (row.error, row.value) == ("timed out after 0.3 s", None)
    assert len(server.requests) == 2  # the call and one retry


@pytest.mark.parametrize("trickle", ["trickle body", "trickle headers"])
def test_a_server_that_trickles_bytes_is_cut_off_at_the_calls_deadline(sample, model_server, trickle):
    """A byte every 0.05 s never lets a per-read time-out fire: the deadline is for the whole call."""
    server = model_server(trickle)
    turn_on(sample.evaluation, server, retries=0, timeout=1.0)
    conf = assist_client.settings_of(sample.evaluation)
    started = time.monotonic()
    row = assist_client.suggest_item(
        sample.evaluation, conf, sample.items["1.1"][0], "instance", assist_client.Pacer(0), sleep=no_sleep
    )
    took = time.monotonic() - started
    assert (row.error, row.value) == ("timed out after 1.0 s", None)
    assert 1.0 <= took < patience.scaled(10)  # the trickle goes on for 30 s: it was cut off, not waited out
    assert len(server.requests) == 1


def test_rate_limiting_by_the_server_is_waited_out_and_retried(sample, model_server):
    server = model_server((429, {"error": "slow down"}, {"Retry-After": "7"}), (200, GOOD, None))
    turn_on(sample.evaluation, server, retries=2)
    waited = []
    conf = assist_client.settings_of(sample.evaluation)
    row = assist_client.suggest_item(
        sample.evaluation, conf, sample.items["1.1"][0], "instance", assist_client.Pacer(0), sleep=waited.append
    )
    assert (row.error, row.value) == ("", {"label": "globally-correct"})
    assert waited == [7.0] and len(server.requests) == 2


def test_rate_limiting_that_does_not_end_is_an_error_row(sample, model_server):
    server = model_server((429, {"error": "slow down"}, {"Retry-After": "3600"}))
    turn_on(sample.evaluation, server, retries=2)
    waited = []
    conf = assist_client.settings_of(sample.evaluation)
    row = assist_client.suggest_item(
        sample.evaluation, conf, sample.items["1.1"][0], "instance", assist_client.Pacer(0), sleep=waited.append
    )
    assert (row.error, row.value, row.raw_output) == ("HTTP 429 from the model server", None, '{"error": "slow down"}')
    assert waited == [60.0, 60.0] and len(server.requests) == 3  # Retry-After capped at a minute


def test_the_pacer_spaces_calls_to_the_rate():
    now = [100.0]
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        now[0] += seconds

    pacer = assist_client.Pacer(30, clock=lambda: now[0], sleep=sleep)  # one call every 2 s
    pacer.wait()  # the first goes at once
    now[0] += 0.5  # the call took half a second
    pacer.wait()
    now[0] += 3.0  # a slow call: no wait needed
    pacer.wait()
    assert slept == [1.5]


def test_off_by_default_and_the_task_and_command_report_what_was_stored(sample, model_server, capsys):
    with pytest.raises(assist_client.Off, match="the model server is off"):
        assist_client.settings_of(sample.evaluation)
    question = sample.questions["1.1"]
    assert run_here_or_send(suggest_topic, sample.evaluation.pk, question.pk, "instance")["stored"] == 0
    server = model_server((200, completion("nonsense"), None), (200, GOOD, None))
    turn_on(sample.evaluation, server)
    result = run_here_or_send(suggest_topic, sample.evaluation.pk, question.pk, "instance")
    assert result == {"stored": 3, "errors": 1}
    Suggestion.objects.all().delete()
    server.replies = [(200, GOOD, None)]
    call_command("suggest_topic", sample.evaluation.slug, "1.1", "--kind", "instance")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{sample.items['1.1'][0].key}: {{'label': 'globally-correct'}} (")
    assert out[-1] == "assess-sample topic 1.1: 4 suggestions stored, 0 errors (model tiny-instruct)"


def test_the_prompt_template_fills_only_its_places():
    from assess.formats.model_reply import fill, read_reply, unknown_places

    template = 'Q: {question} {{"label": {labels}}} {question.__class__} {other}'
    assert (
        fill(template, {"question": "why?", "labels": "a, b"}) == 'Q: why? {"label": a, b} {question.__class__} {other}'
    )
    assert unknown_places(template) == ["other", "question.__class__"]
    assert read_reply('Sure!\n```json\n{"label": "b", "rationale": " because "}\n```', ("a", "b")) == ("b", "because")


def test_the_assist_model_command_turns_it_on_and_off(sample, tmp_path, capsys):
    prompt = tmp_path / "p.txt"
    prompt.write_text("Judge {text} for {question}: {labels}")
    call_command(
        "assist_model",
        sample.evaluation.slug,
        "--on",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--per-minute",
        "10",
        "--prompt",
        "instance",
        str(prompt),
    )
    sample.evaluation.refresh_from_db()
    conf = assist_client.settings_of(sample.evaluation)
    assert (conf["model"], conf["per_minute"], conf["prompts"]) == ("m", 10, {"instance": prompt.read_text()})
    assert "'prompts': ['instance']" in capsys.readouterr().out
    prompt.write_text("{nonsense}")
    with pytest.raises(Exception, match="unknown places nonsense"):
        call_command("assist_model", sample.evaluation.slug, "--prompt", "instance", str(prompt))
    call_command("assist_model", sample.evaluation.slug, "--off")
    sample.evaluation.refresh_from_db()
    with pytest.raises(assist_client.Off):
        assist_client.settings_of(sample.evaluation)


def test_the_api_starts_a_pass_only_when_the_model_server_is_on(client, sample, organizer, model_server):
    client.force_login(organizer)
    url = "/api/evaluations/assess-sample/assist/pass/"
    off = client.post(url, {"topic": "1.1", "kind": "instance"}, "application/json")
    assert off.status_code == 400 and "the model server is off" in off.json()["assist_model"]
    turn_on(sample.evaluation, model_server((200, GOOD, None)))
    started = client.post(url, {"topic": "1.1", "kind": "instance"}, "application/json")
    assert started.status_code == 202 and started.json()["status_url"].endswith("/assist/suggestions/?topic=1.1")
    listed = client.get(started.json()["status_url"]).json()
    assert listed["count"] == 4 and {r["source_name"] for r in listed["results"]} == {"tiny-instruct"}
