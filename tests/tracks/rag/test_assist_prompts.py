"""What a model server is asked for TREC RAG's kind "rag" (tracks/rag/assist_prompts.py), stood in for by a local
HTTP server: a segment's relevance is asked with the request and the segment's text, a sentence's support with
the sentence and the cited segment's text, an answer's nugget assignment with the topic's numbered nuggets (the
reply's numbers read back into nugget ids); an answer before any nugget is not asked at all."""

import json

import pytest

from assess import assist_client
from assess.models import Nugget, Suggestion
from tests.test_assist_model_server import completion, model_server, no_sleep, turn_on  # noqa: F401 (fixture)
from tests.tracks.rag.test_pipeline import FIXTURES, T, items, judged, pooled, seg  # noqa: F401 (fixtures)
from tracks.rag import judging


def ask(ev, item, server):
    turn_on(ev, server)
    conf = assist_client.settings_of(ev)
    return assist_client.suggest_item(ev, conf, item, "rag", assist_client.Pacer(0), sleep=no_sleep)


def sent(server):
    return server.requests[-1]["body"]["messages"][0]["content"]


def test_relevance_is_asked_with_the_segment_on_umbrelas_scale(judged, model_server):
    ev, topic, ann = judged
    segment = items(topic, "relevance")[seg(0, 0)]
    server = model_server((200, completion('{"label": "3", "rationale": "states the mechanism"}'), None))
    row = ask(ev, segment, server)
    assert (row.error, row.value, row.rationale) == ("", {"label": "3"}, "states the mechanism")
    prompt = sent(server)
    assert prompt == row.prompt and "Request: how does caffeine affect sleep" in prompt
    assert "Passage: Caffeine blocks adenosine receptors in the brain" in prompt
    assert "UMBRELA" in prompt and '"label": one of 0, 1, 2, 3' in prompt
    again = ask(ev, segment, model_server((200, completion('{"label": "full_support"}'), None)))
    assert again.error == "malformed reply: the reply's label 'full_support' is not one of 0, 1, 2, 3"


def test_support_is_asked_with_the_sentence_and_the_cited_segment(judged, model_server):
    ev, topic, ann = judged
    (sentence, docid), pair = next(iter(items(topic, "support").items()))
    server = model_server((200, completion('{"label": "partial_support", "rationale": "half of it"}'), None))
    row = ask(ev, pair, server)
    assert (row.error, row.value) == ("", {"label": "partial_support"})
    prompt = sent(server)
    assert len(sentence) > 20 and f"Sentence of the answer: {sentence}" in prompt
    segments = [json.loads(line) for line in (FIXTURES / "segments.jsonl").read_text().splitlines()]
    segment_text = next(s["segment"] for s in segments if s["docid"] == docid)
    assert f"Cited passage: {segment_text}" in prompt
    assert "full_support, partial_support, no_support" in prompt


def test_an_answers_assignment_is_asked_with_the_numbered_nuggets_and_read_back_into_ids(judged, model_server):
    ev, topic, ann = judged
    answer = next(iter(items(topic, "answer").values()))
    server = model_server((200, completion("{}"), None))
    row = ask(ev, answer, server)
    assert (row.error, row.value) == (f"not asked: topic {T} has no nuggets to assign yet", None)
    assert server.requests == [] and Suggestion.objects.filter(error="").count() == 0
    n1 = judging.create_nugget(ann, topic, "Caffeine blocks adenosine", "vital")
    n2 = judging.create_nugget(ann, topic, "Avoid coffee after noon", "okay")
    reply = '```json\n{"nuggets": {"1": "support", "2": "partial_support"}, "rationale": "says both"}\n```'
    server = model_server((200, completion(reply), None))
    row = ask(ev, answer, server)
    assert row.value == {"label": "assigned", "nuggets": {str(n1.pk): "support", str(n2.pk): "partial_support"}}
    prompt = sent(server)
    assert len(answer.text) > 40 and f"Answer: {answer.text}" in prompt
    assert "Nuggets, numbered:\n1. Caffeine blocks adenosine\n2. Avoid coffee after noon\n" in prompt
    assert Nugget.objects.filter(topic=topic).count() == 2


@pytest.mark.parametrize(
    "reply, error",
    [
        ('{"nuggets": {"3": "support"}}', "the reply names nugget '3', not one of 1-1"),
        ('{"nuggets": {"1": "maybe"}}', "nugget 1: 'maybe' is not one of support, partial_support, not_support"),
        ('{"nuggets": ["support"]}', "the reply's nuggets is not an object of nugget numbers"),
        ('{"label": "assigned"}', "the reply's nuggets is not an object of nugget numbers"),
    ],
)
def test_a_malformed_assignment_is_an_error_row(judged, model_server, reply, error):
    ev, topic, ann = judged
    judging.create_nugget(ann, topic, "Caffeine blocks adenosine", "vital")
    answer = next(iter(items(topic, "answer").values()))
    row = ask(ev, answer, model_server((200, completion(reply), None)))
    assert (row.error, row.value) == (f"malformed reply: {error}", None)


def test_a_pass_of_the_rag_kind_asks_each_item_with_its_own_prompt(judged, model_server):
    ev, topic, ann = judged
    server = model_server((200, completion('{"label": "1"}'), None))
    turn_on(ev, server)
    rows = assist_client.suggest_topic(ev, topic, "rag", sleep=no_sleep)
    by_kind = {}
    for row in rows:
        by_kind.setdefault(row.item.key[:1], []).append(row)
    assert {r.value["label"] for r in by_kind["r"]} == {"1"} and all(not r.error for r in by_kind["r"])
    assert all(r.error.startswith("malformed reply") for r in by_kind["p"])  # "1" is no support label
    assert all(r.error.startswith("not asked") for r in by_kind["a"])  # no nuggets yet
    asked = [r["body"]["messages"][0]["content"] for r in server.requests]
    assert len(asked) == len(by_kind["r"]) + len(by_kind["p"])
    assert sum("UMBRELA" in p for p in asked) == len(by_kind["r"])
