"""Assisted judging on TREC RAG's pages (issue 30): suggestions for the "rag" kind loaded from UMBRELA's graded
qrels (relevance: a segment's grade goes to its relevance item, not to the sentences citing it) and from Assay
JSON Lines (support of a sentence by a segment, an answer's nugget assignment); under *reveal after* nothing of a
suggestion is in the relevance or support page, the panel or the API, before the assessor's own first save."""

import json

import pytest
from django.urls import reverse

from assess import assist
from assess.models import Assignment, Nugget, Suggestion
from tests.tracks.rag.test_pipeline import T, items, judged, pooled, seg  # noqa: F401 (fixtures)
from tracks.rag import judging
from tracks.rag import keys as rag_keys

SECRET = "Rationale-7f3c: the segment states the dose"


def qrels_load(ev, text):
    grades = {g: g for g in ("0", "1", "2", "3")}
    return assist.load_suggestions(ev, "qrels", text.encode(), "umbrela.qrels", kind="rag", grades=grades)


def test_umbrela_qrels_grade_the_relevance_item_of_a_segment_also_cited_by_sentences(judged):
    ev, topic, ann = judged
    cited = seg(0, 1)  # in the relevance pool and in a support batch
    assert any(s == cited for s, _ in judging.support_batches(topic)) and cited in items(topic, "relevance")
    stored = qrels_load(ev, f"{T} 0 {cited} 2\n{T} 0 {seg(0, 0)} 0\n")
    assert sorted((s.item.key[:2], s.item.docid, s.value["label"]) for s in stored) == [
        ("r:", seg(0, 0), "0"),
        ("r:", cited, "2"),
    ]
    assert stored[0].parameters == {"format": "qrels", "line": 1}


def test_a_support_label_for_a_segment_names_the_sentence_and_a_grade_of_4_is_refused(judged):
    ev, topic, ann = judged
    with pytest.raises(assist.AssistError) as refused:
        assist.load_suggestions(
            ev, "qrels", f"{T} 0 {seg(0, 0)} 4\n".encode(), "u.qrels", kind="rag", grades={"4": "4"}
        )
    assert refused.value.problems[0].startswith("u.qrels:1: value.label must be one of '0', '1', '2', '3'")
    sentence = next(iter(items(topic, "support").values()))
    rows = [
        {"topic": T, "key": sentence.key, "kind": "rag", "value": {"label": "partial_support"}, "rationale": "r"},
        {"topic": T, "key": sentence.key, "kind": "rag", "value": {"label": "2"}},
    ]
    data = "\n".join(json.dumps(r) for r in rows).encode()
    with pytest.raises(assist.AssistError) as refused:
        assist.load_suggestions(ev, "jsonl", data, "s.jsonl")
    assert refused.value.problems == [
        "s.jsonl:2: '2' is not a label of rag (full_support, partial_support, no_support)"
    ]
    assert not Suggestion.objects.exists()  # all or nothing
    assist.load_suggestions(ev, "jsonl", json.dumps(rows[0]).encode(), "s.jsonl")
    assert Suggestion.objects.get().item == sentence


def test_an_answers_nugget_assignment_is_suggested_from_json_lines(judged):
    ev, topic, ann = judged
    n1 = Nugget.objects.create(topic=topic, text="Caffeine blocks adenosine", position=1, created_by=ann)
    answer = next(iter(items(topic, "answer").values()))
    value = {"label": "assigned", "nuggets": {str(n1.pk): "support"}}
    row = {"topic": T, "key": answer.key, "kind": "rag", "value": value}
    assist.load_suggestions(ev, "jsonl", json.dumps(row).encode(), "a.jsonl")
    assert Suggestion.objects.get(item=answer).value == value
    bad = dict(row, value={"label": "assigned", "nuggets": {str(n1.pk): "maybe"}})
    with pytest.raises(assist.AssistError) as refused:
        assist.load_suggestions(ev, "jsonl", json.dumps(bad).encode(), "a.jsonl")
    assert refused.value.problems[0].startswith("a.jsonl:1: ")


def _suggest(ev, item, label):
    return Suggestion.objects.create(
        evaluation=ev, topic=item.topic, kind="rag", item=item, value={"label": label}, rationale=SECRET,
        source="file", source_name="umbrela.qrels",
    )  # fmt: skip


def test_reveal_after_sends_nothing_on_the_relevance_and_support_pages_before_the_first_save(client, judged):
    ev, topic, ann = judged
    a = Assignment.objects.get(assessor=ann)
    segment = items(topic, "relevance")[seg(0, 1)]
    number, batch = next((n, b) for n, (s, b) in enumerate(judging.support_batches(topic), start=1) if s == seg(0, 1))
    sentence = batch[0]
    _suggest(ev, segment, "2")
    _suggest(ev, sentence, "full_support")
    assist.set_design(ev, unit="item", conditions=["reveal_after"], seed=4)
    client.force_login(ann)
    pages = {
        "relevance": (reverse("rag:relevance", args=[a.pk, segment.pk]), segment, "1"),
        "support": (reverse("rag:support", args=[a.pk, number]), sentence, "no_support"),
    }
    for name, (url, item, own) in pages.items():
        panel = reverse("assess:assist_panel", args=[item.pk, "rag"])
        api = reverse("api:item_suggestion", args=[item.pk, "rag"])
        for response in (client.get(url), client.get(panel), client.get(api)):
            body = response.content.decode()
            assert response.status_code == 200 and SECRET not in body, name
        assert "once you have saved your own judgment" in client.get(url).content.decode(), name
        saved = client.post(
            reverse("rag:judge", args=[item.pk]),
            json.dumps({"version": 0, "value": {"label": own}}),
            content_type="application/json",
        )
        assert saved.status_code == 200 and SECRET not in saved.content.decode(), name
        for response in (client.get(url), client.get(panel), client.get(api)):
            assert SECRET in response.content.decode(), name
        assert "saved before this suggestion was shown" in client.get(panel).content.decode(), name


def test_the_rag_pages_list_the_accept_key():
    for page in (rag_keys.RELEVANCE, rag_keys.SUPPORT, rag_keys.ASSIGN):
        assert "accept-suggestion" in [key.action for key, _ in page.keys]


def test_an_answers_suggested_assignment_waits_for_the_first_save_then_is_shown_whole(client, judged):
    ev, topic, ann = judged
    a = Assignment.objects.get(assessor=ann)
    n1 = Nugget.objects.create(topic=topic, text="Caffeine blocks adenosine", position=1, created_by=ann)
    n2 = Nugget.objects.create(topic=topic, text="Avoid late coffee", position=2, created_by=ann)
    answer = next(iter(items(topic, "answer").values()))
    value = {"label": "assigned", "nuggets": {str(n1.pk): "support", str(n2.pk): "partial_support"}}
    Suggestion.objects.create(
        evaluation=ev, topic=topic, kind="rag", item=answer, value=value, rationale=SECRET, source="file",
        source_name="a.jsonl",
    )  # fmt: skip
    assist.set_design(ev, unit="item", conditions=["reveal_after"], seed=1)
    client.force_login(ann)
    url = reverse("rag:assign", args=[a.pk, answer.pk])
    before = client.get(url).content.decode()
    assert SECRET not in before and "partial_support" not in before.split('id="assist-panel"')[1]
    client.post(
        reverse("rag:judge", args=[answer.pk]),
        json.dumps({"version": 0, "value": {"label": "assigned", "nuggets": {str(n1.pk): "not_support"}}}),
        content_type="application/json",
    )
    after = client.get(url).content.decode()
    assert SECRET in after and "nuggets assigned: 1 support, 1 partial_support" in after
    held = f"{{&quot;{n1.pk}&quot;: &quot;support&quot;, &quot;{n2.pk}&quot;: &quot;partial_support&quot;}}"
    assert f'data-assist-value="{{&quot;label&quot;: &quot;assigned&quot;, &quot;nuggets&quot;: {held}}}"' in after
