"""The prompt sent to a model server and the reading of its reply (issue 30, docs/assist.md). Pure: no Django.

A prompt template is the organizer's text with named places `{question}`, `{text}`, `{document}`, `{labels}`,
`{kind}` filled in (only those: no format mini-language, nothing else of Python's str.format is reachable). The
model is asked to answer with one JSON object `{"label": LABEL, "rationale": TEXT}`; a reply wrapped in a Markdown
code fence or with words around the object is still read, anything else is a MalformedReply naming what is wrong.
"""

import json
import re
from typing import Any

PLACES = ("question", "text", "document", "labels", "kind", "sources", "max_nuggets", "nuggets")
# read left to right as str.format does: a doubled brace is a brace, {place} a place ("{labels}}}" is a place and
# a brace)
_TOKEN = re.compile(r"\{\{|\}\}|\{(" + "|".join(PLACES) + r")\}")
_ANY_TOKEN = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
MAX_REPLY_CHARS = 100_000
MAX_RATIONALE_CHARS = 5_000

DEFAULT_TEMPLATE = (
    "You help an assessor judge a {kind}.\n"
    "Question: {question}\n"
    "Response to judge: {text}\n"
    "Document: {document}\n"
    "Answer with one JSON object and nothing else: "
    '{{"label": one of {labels}, "rationale": "one or two sentences saying why"}}'
)


# nugget proposals (a topic's nugget list from its relevant segments or pooled answers): one JSON object
# {"nuggets": [{"text", "importance"}]}, read strictly — a reply past a limit is refused whole, not cut
MAX_NUGGETS = 30  # nuggetizer's own cap on a topic's nugget list
MAX_NUGGET_CHARS = 1000  # as the nugget pages' text box
IMPORTANCES = ("vital", "okay")

NUGGET_TEMPLATE = (
    "You help an assessor build the list of nuggets for a {kind}: the atomic facts a good answer to the request "
    "holds.\n"
    "Request: {question}\n"
    "Read these texts:\n{sources}\n"
    "List at most {max_nuggets} nuggets, each a short self-contained fact taken from the texts, and mark each "
    '"vital" (a good answer must hold it) or "okay" (worth holding). Answer with one JSON object and nothing '
    'else: {{"nuggets": [{{"text": "the fact", "importance": "vital"}}], "rationale": "one sentence"}}'
)


class MalformedReply(ValueError):
    """A model's reply that gives no usable suggestion; the message says what was wrong."""


class NotAskable(ValueError):
    """An item a model cannot be asked about yet (an answer's nugget assignment before the topic has nuggets)."""


def json_object(text: str) -> dict[str, Any]:
    """The one JSON object of a reply (in a Markdown code fence or with words around it); MalformedReply."""
    return _json_object(text)


def check_reply(content: Any) -> str:
    """The reply's content if it is a non-empty string within MAX_REPLY_CHARS; MalformedReply otherwise."""
    if not isinstance(content, str) or not content.strip():
        raise MalformedReply("the reply is empty")
    if len(content) > MAX_REPLY_CHARS:
        raise MalformedReply(f"the reply is longer than {MAX_REPLY_CHARS} characters")
    return content


def rationale_of(obj: dict[str, Any]) -> str:
    rationale = obj.get("rationale", "")
    if not isinstance(rationale, str):
        raise MalformedReply("the reply's rationale is not a string")
    return rationale.strip()[:MAX_RATIONALE_CHARS]


def fill(template: str, fields: dict[str, str]) -> str:
    """The template with its places filled (`{{` and `}}` give braces, as in str.format)."""
    return _TOKEN.sub(lambda m: fields.get(m.group(1), "") if m.group(1) else m.group(0)[0], template)


def unknown_places(template: str) -> list[str]:
    """Places of the template that fill() does not know ({name} other than PLACES)."""
    return sorted({m.group(1) for m in _ANY_TOKEN.finditer(template) if m.group(1) is not None} - set(PLACES))


def _json_object(text: str) -> dict[str, Any]:
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    candidate = fenced.group(1) if fenced else text[text.find("{") : text.rfind("}") + 1]
    if not candidate:
        raise MalformedReply("the reply holds no JSON object")
    try:
        obj = json.loads(candidate)
    except ValueError as e:
        raise MalformedReply(f"the reply's JSON object does not decode: {e}") from None
    if not isinstance(obj, dict):
        raise MalformedReply("the reply's JSON is not an object")
    return obj


def read_reply(content: Any, labels: tuple[str, ...]) -> tuple[str, str]:
    """(label, rationale) from the assistant message's content; MalformedReply if it gives no label of `labels`."""
    if not isinstance(content, str) or not content.strip():
        raise MalformedReply("the reply is empty")
    if len(content) > MAX_REPLY_CHARS:
        raise MalformedReply(f"the reply is longer than {MAX_REPLY_CHARS} characters")
    obj = _json_object(content)
    label = obj.get("label")
    if not isinstance(label, str) or label.strip() not in labels:
        raise MalformedReply(f"the reply's label {label!r} is not one of {', '.join(labels)}")
    rationale = obj.get("rationale", "")
    if not isinstance(rationale, str):
        raise MalformedReply("the reply's rationale is not a string")
    return label.strip(), rationale.strip()[:MAX_RATIONALE_CHARS]


def completion_content(body: Any) -> str:
    """The first choice's message content of a chat-completions response body; MalformedReply otherwise."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise MalformedReply("the response has no choices[0].message.content") from None
    if not isinstance(content, str):
        raise MalformedReply("choices[0].message.content is not a string")
    return content


def read_nugget_list(content: Any) -> tuple[list[dict[str, str]], str]:
    """([{"text", "importance"}], rationale) of a nugget-proposals reply; MalformedReply when it is not exactly
    that: a list of 1 to MAX_NUGGETS nuggets, each a non-empty text of at most MAX_NUGGET_CHARS characters with
    importance vital or okay (nothing else is guessed: a reply past a limit gives no proposal at all). Texts
    the same but for case and spacing are proposed once."""
    if not isinstance(content, str) or not content.strip():
        raise MalformedReply("the reply is empty")
    if len(content) > MAX_REPLY_CHARS:
        raise MalformedReply(f"the reply is longer than {MAX_REPLY_CHARS} characters")
    obj = _json_object(content)
    nuggets = obj.get("nuggets")
    if not isinstance(nuggets, list) or not nuggets:
        raise MalformedReply("the reply's nuggets is not a non-empty list")
    if len(nuggets) > MAX_NUGGETS:
        raise MalformedReply(f"the reply proposes {len(nuggets)} nuggets, more than {MAX_NUGGETS}")
    out: list[dict[str, str]] = []
    seen = set()
    for n, nugget in enumerate(nuggets, start=1):
        if not isinstance(nugget, dict):
            raise MalformedReply(f"nugget {n} is not an object")
        text, importance = nugget.get("text"), nugget.get("importance")
        if not isinstance(text, str) or not " ".join(text.replace("\x00", "").split()):
            raise MalformedReply(f"nugget {n} has no text")
        text = " ".join(text.replace("\x00", "").split())
        if len(text) > MAX_NUGGET_CHARS:
            raise MalformedReply(f"nugget {n} is longer than {MAX_NUGGET_CHARS} characters")
        if not isinstance(importance, str) or importance.strip().lower() not in IMPORTANCES:
            raise MalformedReply(f"nugget {n}'s importance {importance!r} is not vital or okay")
        if text.casefold() in seen:
            continue
        seen.add(text.casefold())
        out.append({"text": text, "importance": importance.strip().lower()})
    rationale = obj.get("rationale", "")
    if not isinstance(rationale, str):
        raise MalformedReply("the reply's rationale is not a string")
    return out, rationale.strip()[:MAX_RATIONALE_CHARS]
