"""Suggestions from a model server the organizer runs (issue 30; docs/assist.md): the OpenAI-compatible
chat-completions API over HTTP (vLLM, llama.cpp's server, Ollama and hosted services speak it). Assay downloads no
model and calls nothing unless the evaluation's `assist_model` setting turns it on.

One pass (`suggest_topic`) asks for one kind on every pool item of one topic, one call at a time, in a Celery task
(assess.tasks.suggest_topic; never on a save). Each call has one time-out for the whole exchange, a failed call is
retried (a 429 after the server's Retry-After, capped), calls are spaced to the setting's rate, and a call that
still fails — time-out, refused connection, HTTP error, malformed reply — is stored as a Suggestion row with `error`
and no value: the pass goes on with the next item, and nothing of it is ever shown.

The setting (evaluation.settings["assist_model"]):
    {"enabled": true, "base_url": "http://127.0.0.1:8000/v1", "model": "Qwen/Qwen2.5-0.5B-Instruct",
     "key_env": "ASSIST_API_KEY", "prompts": {"instance": "... {question} ... {text} ..."},
     "temperature": 0, "max_tokens": 300, "timeout": 30, "retries": 2, "per_minute": 60}
The key is read from the named environment variable of the worker, so no secret is stored with the evaluation
(or shown with its settings).
"""

import http.client
import json
import os
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

from assess import assist_nuggets
from assess.assist import current_suggestion, label_key, labels_of
from assess.formats import model_reply
from assess.models import Suggestion
from core import extension_points as ep
from corpus.models import Document
from pooling.models import PoolItem

DEFAULTS = {
    "enabled": False,
    "base_url": "",
    "model": "",
    "key_env": "ASSIST_API_KEY",
    "prompts": {},
    "temperature": 0.0,
    "max_tokens": 300,
    "timeout": 30.0,
    "retries": 2,
    "per_minute": 60,
}
MAX_RESPONSE_BYTES = 1 << 20
MAX_RETRY_AFTER = 60.0
DOCUMENT_CHARS = 6000  # of the judged document put into a prompt
SOURCE_CHARS, MAX_SOURCES = 2000, 30  # nugget proposals: of each text read, and how many texts


class Off(Exception):
    """The evaluation has no model server turned on, or its setting is incomplete."""


def suggestible_kinds(evaluation):
    """The kinds a pass may ask for: the track's judgment kinds, and nugget proposals where the track reads
    nuggets from texts (ep.nugget_sources)."""
    kinds = list(evaluation.track_spec.judgment_kinds)
    return kinds + [assist_nuggets.KIND] if ep.nugget_sources.get(evaluation.track) else kinds


def settings_of(evaluation):
    """The evaluation's model-server setting with defaults; Off when it is not turned on or incomplete."""
    given = evaluation.setting("assist_model") or {}
    if not isinstance(given, dict):
        raise Off("the assist_model setting must be an object")
    conf = DEFAULTS | given
    if not conf["enabled"]:
        raise Off(f"{evaluation.slug}: the model server is off (assist_model.enabled is not true)")
    if not str(conf["base_url"]).startswith(("http://", "https://")) or not conf["model"]:
        raise Off(f"{evaluation.slug}: assist_model needs a base_url (http://…/v1) and a model name")
    return conf


@dataclass
class Pacer:
    """At most `per_minute` calls a minute from this pass: each call waits until 60/per_minute seconds after the
    previous one began. `clock` and `sleep` are injectable so tests count the waits instead of taking them."""

    per_minute: float
    clock: object = time.monotonic
    sleep: object = time.sleep
    last: float | None = None
    waits: list = field(default_factory=list)

    def wait(self):
        if self.per_minute and self.last is not None:
            gap = 60.0 / self.per_minute - (self.clock() - self.last)
            if gap > 0:
                self.waits.append(gap)
                self.sleep(gap)
        self.last = self.clock()


class CallFailed(Exception):
    def __init__(self, message, raw=""):
        super().__init__(message)
        self.raw = raw


class ErrorStatus(Exception):
    """A reply with an HTTP error status (4xx, 5xx)."""

    def __init__(self, code, headers, body):
        super().__init__(f"HTTP {code}")
        self.code, self.headers, self.body = code, headers, body


def _post(url, body, key, timeout):
    """The response body of one POST, the whole exchange — connecting, sending, the headers and every byte of the
    body — bounded by `timeout` seconds: a watchdog shuts the socket down at the deadline, so a server that
    trickles bytes (each read well inside a per-read time-out) cannot hold a pass for longer. TimeoutError at
    the deadline; ErrorStatus for an error status; the body is read to MAX_RESPONSE_BYTES + 1 at most."""
    parts = urllib.parse.urlsplit(url)
    connection = (http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection)(
        parts.hostname, parts.port, timeout=timeout
    )
    expired = threading.Event()

    def expire():
        expired.set()
        sock = connection.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the read that is waiting
            except OSError:
                pass

    watchdog = threading.Timer(timeout, expire)
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.connect()
        if expired.is_set():
            raise TimeoutError
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
        connection.request("POST", path, body=json.dumps(body).encode(), headers=headers)
        response = connection.getresponse()
        chunks, size = [], 0
        while size <= MAX_RESPONSE_BYTES and not expired.is_set():
            chunk = response.read(min(65536, MAX_RESPONSE_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if expired.is_set():
            raise TimeoutError
        data = b"".join(chunks)
    except (OSError, http.client.HTTPException):
        if expired.is_set():
            raise TimeoutError from None
        raise
    finally:
        watchdog.cancel()
        connection.close()
    if response.status >= 400:
        raise ErrorStatus(response.status, response.headers, data[:2000])
    return data


def call(conf, prompt, pacer, sleep=time.sleep):
    """(parsed body, raw text, seconds) of one chat completion, retried; CallFailed after the last try. Each try
    is bounded as a whole by conf["timeout"] (_post)."""
    url = conf["base_url"].rstrip("/") + "/chat/completions"
    body = {
        "model": conf["model"],
        "messages": [{"role": "user", "content": prompt}],
        "temperature": conf["temperature"],
        "max_tokens": conf["max_tokens"],
    }
    key = os.environ.get(conf["key_env"] or "", "")
    last_error, raw = "no call made", ""
    for attempt in range(int(conf["retries"]) + 1):
        pacer.wait()
        started = time.monotonic()
        try:
            data = _post(url, body, key, float(conf["timeout"]))
        except ErrorStatus as e:
            raw = e.body.decode("utf-8", "replace")
            last_error = f"HTTP {e.code} from the model server"
            if e.code == 429 or e.code >= 500:
                retry_after = e.headers.get("Retry-After") if e.headers else None
                try:
                    pause = min(float(retry_after), MAX_RETRY_AFTER) if retry_after else 1.0 + attempt
                except ValueError:
                    pause = 1.0 + attempt
                if attempt < int(conf["retries"]):
                    sleep(pause)
                continue
            break  # a 4xx other than 429 will not change on a retry
        except TimeoutError:
            last_error = f"timed out after {conf['timeout']} s"
            continue
        except (OSError, http.client.HTTPException) as e:
            last_error = f"could not reach the model server: {e}"
            continue
        seconds = time.monotonic() - started
        if len(data) > MAX_RESPONSE_BYTES:
            raise CallFailed(f"the response is larger than {MAX_RESPONSE_BYTES} bytes")
        text = data.decode("utf-8", "replace")
        try:
            return json.loads(text), text, seconds
        except ValueError:
            raise CallFailed("the response is not JSON", text[:20000]) from None
    raise CallFailed(last_error, raw)


def _document_text(evaluation, item):
    if not item.docid:
        return ""
    doc = Document.objects.filter(collection__evaluations=evaluation, docno=item.docid).first()
    return (doc.text if doc else "")[:DOCUMENT_CHARS]


def prompt_for(evaluation, conf, item, kind):
    """(prompt, read): the prompt for one item and the reader of its reply (None: the generic label reader). A
    track's ep.assist_prompt gives its own default template, places and reader; NotAskable from it passes up."""
    labels = labels_of(item, kind)
    template, fields, read = None, {}, None
    own = ep.assist_prompt.get(evaluation.track)
    if own is not None:
        template, fields, read = own(item, kind)
    template = (conf.get("prompts") or {}).get(kind) or template or model_reply.DEFAULT_TEMPLATE
    generic = {
        "question": item.topic.text,
        "text": item.text,
        "document": _document_text(evaluation, item),
        "labels": ", ".join(labels),
        "kind": kind,
    }
    return model_reply.fill(template, generic | fields), read


def suggest_item(evaluation, conf, item, kind, pacer, by=None, sleep=time.sleep):
    """One call for one item: the stored Suggestion, or the stored error row (no call made for an item the track
    says cannot be asked about yet)."""
    labels = labels_of(item, kind)
    parameters = {k: conf[k] for k in ("base_url", "temperature", "max_tokens", "timeout", "retries", "per_minute")}
    row = Suggestion(
        evaluation=evaluation,
        topic=item.topic,
        kind=kind,
        item=item,
        source=Suggestion.MODEL,
        source_name=str(conf["model"])[:300],
        parameters=parameters,
        created_by=by,
    )
    try:
        row.prompt, read = prompt_for(evaluation, conf, item, kind)
    except model_reply.NotAskable as e:
        row.error = f"not asked: {e}"
        row.save()
        return row
    started = time.monotonic()
    try:
        body, raw, seconds = call(conf, row.prompt, pacer, sleep)
        row.raw_output, row.seconds = raw[:100000], round(seconds, 3)
        row.cost = body.get("usage") if isinstance(body, dict) else None
        content = model_reply.completion_content(body)
        if read is not None:
            row.value, row.rationale = read(content)
        else:
            label, row.rationale = model_reply.read_reply(content, labels)
            row.value = {label_key(kind): label}
    except CallFailed as e:
        row.error, row.raw_output = str(e), e.raw
        row.seconds = round(time.monotonic() - started, 3)
    except model_reply.MalformedReply as e:
        row.error = f"malformed reply: {e}"
    row.save()
    return row


def nugget_prompt(evaluation, conf, topic):
    """The prompt asking for the topic's nugget list, or Off when the track has no texts to read it from."""
    sources_of = ep.nugget_sources.get(evaluation.track)
    if sources_of is None:
        raise Off(f"{evaluation.track} has no nugget proposals")
    texts = [t for t in sources_of(topic) if t.strip()][:MAX_SOURCES]
    if not texts:
        raise Off(f"topic {topic.ident} has no texts to read nuggets from yet (see nugget proposals in docs/assist.md)")
    sources = "\n".join(f"[{n}] {' '.join(t.split())[:SOURCE_CHARS]}" for n, t in enumerate(texts, start=1))
    template = (conf.get("prompts") or {}).get(assist_nuggets.KIND) or model_reply.NUGGET_TEMPLATE
    fields = {"question": topic.text, "sources": sources, "max_nuggets": str(model_reply.MAX_NUGGETS)}
    return model_reply.fill(template, fields | {"kind": "nugget list", "text": "", "document": "", "labels": ""})


def propose_nuggets(evaluation, conf, topic, pacer, by=None, sleep=time.sleep, prompt=None):
    """One call for one topic's nugget list: the stored Suggestion (value {"nuggets": [{"text", "importance"}]}),
    or the stored error row (a malformed or oversized reply proposes nothing)."""
    prompt = prompt or nugget_prompt(evaluation, conf, topic)
    row = Suggestion(
        evaluation=evaluation,
        topic=topic,
        kind=assist_nuggets.KIND,
        source=Suggestion.MODEL,
        source_name=str(conf["model"])[:300],
        prompt=prompt,
        parameters={k: conf[k] for k in ("base_url", "temperature", "max_tokens", "timeout", "retries", "per_minute")},
        created_by=by,
    )
    started = time.monotonic()
    try:
        body, raw, seconds = call(conf, prompt, pacer, sleep)
        row.raw_output, row.seconds = raw[:100000], round(seconds, 3)
        row.cost = body.get("usage") if isinstance(body, dict) else None
        nuggets, rationale = model_reply.read_nugget_list(model_reply.completion_content(body))
        row.value, row.rationale = {"nuggets": nuggets}, rationale
    except CallFailed as e:
        row.error, row.raw_output = str(e), e.raw
        row.seconds = round(time.monotonic() - started, 3)
    except model_reply.MalformedReply as e:
        row.error = f"malformed reply: {e}"
    row.save()
    return row


def nugget_topics(topic):
    """The topics whose nugget lists a pass over `topic` proposes: the topic, or a series' nugget questions."""
    children = list(topic.children.order_by("position", "pk"))
    return children or [topic]


def suggest_topic(evaluation, topic, kind, by=None, only_missing=True, pacer=None, sleep=time.sleep):
    """One suggestion pass: every pool item of the topic (and its questions), one call each (with only_missing,
    not for an item that has a good suggestion of the kind); for nugget proposals, one call per topic (a
    series: per question the track reads nuggets for). Returns the stored rows, errors included."""
    conf = settings_of(evaluation)
    if kind == assist_nuggets.KIND:
        pacer = pacer or Pacer(float(conf["per_minute"] or 0))
        stored = []
        for each in nugget_topics(topic):
            if only_missing and assist_nuggets.current(each) is not None:
                continue
            try:
                prompt = nugget_prompt(evaluation, conf, each)
            except Off:
                if each is topic:
                    raise
                continue  # a question of the series with nothing to read (not a nugget question)
            stored.append(propose_nuggets(evaluation, conf, each, pacer, by, sleep, prompt))
        return stored
    if not label_key(kind) or not evaluation.track_spec.labels(kind):
        raise Off(
            f"{kind}: a model server can suggest only labelled kinds ({evaluation.track} has labels for "
            f"{', '.join(k for k in evaluation.track_spec.judgment_kinds if evaluation.track_spec.labels(k))})"
        )
    pacer = pacer or Pacer(float(conf["per_minute"] or 0))
    items = PoolItem.objects.filter(
        evaluation=evaluation, topic_id__in=[topic.pk, *topic.children.values_list("pk", flat=True)]
    )
    stored = []
    for item in items.select_related("topic", "evaluation").order_by("topic__position", "position", "pk"):
        if only_missing and current_suggestion(item, kind) is not None:
            continue
        stored.append(suggest_item(evaluation, conf, item, kind, pacer, by, sleep))
    return stored
