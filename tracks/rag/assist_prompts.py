"""What a model server is asked for each TREC RAG pool item (ep.assist_prompt; assisted judging, docs/assist.md):
one judgment kind, "rag", judges three different things, so each gets its own prompt —

- a segment's relevance (r:): the request and the segment, graded on UMBRELA's 0-3 scale;
- a (sentence, cited segment) pair's support (p:): the request, the answer's sentence and the segment;
- an answer's nugget assignment (a:): the request, the answer and the topic's nuggets, numbered; the reply names
  each nugget by its number with support / partial_support / not_support, and is read into the judgment's own
  shape ({"label": "assigned", "nuggets": {nugget id: assignment}}). Before the topic has nuggets an answer is
  not asked about (no call is made).
An organizer's template for the kind "rag" replaces all three (it may use {text}, {document}, {nuggets})."""

from assess.formats.model_reply import (
    MalformedReply,
    NotAskable,
    check_reply,
    json_object,
    rationale_of,
)
from assess.models import Nugget
from tracks.rag.labels import ASSIGNMENTS, KIND, item_kind

REPLY = 'Answer with one JSON object and nothing else: {{"label": one of {labels}, "rationale": "one sentence why"}}'

RELEVANCE = (
    "You help an assessor grade how well a passage answers a search request (TREC RAG, UMBRELA's scale).\n"
    "Request: {question}\n"
    "Passage: {document}\n"
    "Grade 0 if the passage has nothing to do with the request, 1 if it is related but does not answer it, 2 if it "
    "answers it in part or among other things, 3 if it is dedicated to the request and answers it exactly.\n" + REPLY
)

SUPPORT = (
    "You help an assessor judge whether a cited passage supports a sentence of a generated answer (TREC RAG).\n"
    "Request: {question}\n"
    "Sentence of the answer: {text}\n"
    "Cited passage: {document}\n"
    "full_support: the passage states everything the sentence says; partial_support: some of it; no_support: "
    "none of it, or the passage contradicts it.\n" + REPLY
)

ASSIGNMENT = (
    "You help an assessor judge which facts (nuggets) a generated answer holds (TREC RAG).\n"
    "Request: {question}\n"
    "Answer: {text}\n"
    "Nuggets, numbered:\n{nuggets}\n"
    "For each nugget say whether the answer supports it: support, partial_support or not_support. Answer with one "
    'JSON object and nothing else: {{"nuggets": {{"1": "support", "2": "not_support"}}, "rationale": "one '
    'sentence"}}'
)


def assist_prompt(item, kind):
    """(template, fields, read) for one pool item (ep.assist_prompt)."""
    if kind != KIND:
        return None, {}, None
    which = item_kind(item.key)
    if which == "relevance":
        return RELEVANCE, {}, None
    if which == "support":
        return SUPPORT, {}, None
    nuggets = list(Nugget.objects.filter(topic_id=item.topic_id).order_by("position", "id").values_list("pk", "text"))
    if not nuggets:
        raise NotAskable(f"topic {item.topic.ident} has no nuggets to assign yet")
    listed = "\n".join(f"{n}. {text}" for n, (_, text) in enumerate(nuggets, start=1))
    ids = {str(n): str(pk) for n, (pk, _) in enumerate(nuggets, start=1)}
    return ASSIGNMENT, {"nuggets": listed}, lambda content: read_assignment(content, ids)


def read_assignment(content, ids):
    """({"label": "assigned", "nuggets": {nugget id: assignment}}, rationale) of a reply naming nuggets by their
    numbers in the prompt (`ids`: number -> id); MalformedReply for an unknown number or assignment, or none."""
    obj = json_object(check_reply(content))
    given = obj.get("nuggets")
    if not isinstance(given, dict) or not given:
        raise MalformedReply("the reply's nuggets is not an object of nugget numbers")
    out = {}
    for number, assignment in given.items():
        if str(number).strip() not in ids:
            raise MalformedReply(f"the reply names nugget {str(number)[:20]!r}, not one of 1-{len(ids)}")
        if assignment not in ASSIGNMENTS:
            raise MalformedReply(f"nugget {number}: {str(assignment)[:40]!r} is not one of {', '.join(ASSIGNMENTS)}")
        out[ids[str(number).strip()]] = assignment
    return {"label": "assigned", "nuggets": out}, rationale_of(obj)
