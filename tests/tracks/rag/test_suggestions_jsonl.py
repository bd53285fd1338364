"""Assisted judging's suggestions travel in the JSON Lines judgment export (issue 30): one "suggestion" record per
stored suggestion, error rows too, with its provenance and when it was first shown to whom; imported into the
evaluation rebuilt from the same files, each is what it was, its nugget ids those of the rebuilt nuggets."""

import json

import pytest
from django.db import transaction

from assess import assist
from assess.models import Assignment, AssistCondition, AssistDesign, Nugget, Suggestion, SuggestionShown
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.models import Evaluation
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from scoring.judgments_jsonl import ImportFailed, export_jsonl, import_jsonl
from tests.tracks.rag.test_pipeline import FIXTURES, T, seg
from tracks.rag import judging

pytestmark = pytest.mark.django_db


def build():
    ev = create_evaluation("rag", judging.TRACK, ["rag-segs"])
    load_topics(ev, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    load_run_files(ev, [RunFile("alpha-2024.jsonl", (FIXTURES / "alpha-2024.jsonl").read_bytes(), "Team Alpha")])
    build_pools(ev)
    return ev


def snapshot(ev):
    texts = dict(Nugget.objects.filter(topic__evaluation=ev).values_list("id", "text"))
    out = []
    for s in Suggestion.objects.filter(evaluation=ev).select_related("item").order_by("id"):
        value = s.value and dict(s.value, nuggets={texts[int(k)]: v for k, v in (s.value.get("nuggets") or {}).items()})
        shown = [(r.assessor.username, r.condition, r.judgment_version, r.at) for r in s.shown.order_by("id")]
        out.append((s.item.key, s.kind, value, s.rationale, s.source, s.source_name, s.parameters, s.raw_output,
                    s.seconds, s.cost, s.error, s.created_at, shown))  # fmt: skip
    return out


def test_suggestions_with_their_showings_survive_export_and_import(make_user):
    load_collection("rag-segs", "msmarco-v2.1-segmented", [str(FIXTURES / "segments.jsonl")])
    ann = make_user("ann", "assessor")
    ev = build()
    topic = ev.topics.get(ident=T)
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=ann)
    assist.set_design(ev, unit="item", conditions=["suggest_first"], seed=1, by=ann)  # before any judgment
    nugget = judging.create_nugget(ann, topic, "Caffeine blocks adenosine", "vital")
    answer = judging.topic_items(topic, "answer")[0]
    segment = next(i for i in judging.topic_items(topic, "relevance") if i.docid == seg(0, 0))
    line = {"topic": T, "key": answer.key, "kind": "rag", "rationale": "names it",
            "value": {"label": "assigned", "nuggets": {str(nugget.pk): "support"}}}  # fmt: skip
    assist.load_suggestions(ev, "jsonl", json.dumps(line).encode(), "a.jsonl", by=ann)
    Suggestion.objects.create(
        evaluation=ev, topic=topic, kind="rag", item=segment, value=None, source="model", source_name="tiny",
        prompt="Grade it", parameters={"temperature": 0}, raw_output="not json", seconds=1.5,
        cost={"total_tokens": 12}, error="the reply gives no label",
    )  # fmt: skip
    assert assist.visible(ann, answer, "rag").state == "shown"  # the first showing, recorded
    before = snapshot(ev)
    assert len(before) == 2 and before[0][12][0][:3] == ("ann", "suggest_first", 0)
    lines = list(export_jsonl(ev))
    records = [json.loads(x) for x in lines if '"type": "suggestion"' in x]
    assert [r["error"] for r in records] == ["", "the reply gives no label"]

    ev.delete()
    rebuilt = build()
    counts = import_jsonl(rebuilt, lines, "j.jsonl")
    assert counts["suggestion"] == 2
    assert snapshot(Evaluation.objects.get(pk=rebuilt.pk)) == before
    (moved,) = Suggestion.objects.filter(evaluation=rebuilt, error="")
    assert moved.value["nuggets"] == {str(Nugget.objects.get(topic__evaluation=rebuilt).pk): "support"}
    assert SuggestionShown.objects.get().suggestion == moved
    design = AssistDesign.objects.get(evaluation=rebuilt)
    assert (design.unit, design.conditions, design.seed, design.created_by) == ("item", ["suggest_first"], 1, ann)
    split = AssistCondition.objects.filter(evaluation=rebuilt)
    assert split.count() == rebuilt.pool_items.count() and {c.condition for c in split} == {"suggest_first"}
    assert assist.visible(ann, judging.topic_items(rebuilt.topics.get(ident=T), "answer")[0], "rag").state == "shown"


def test_a_suggestion_record_without_value_or_error_is_refused_by_line(make_user):
    load_collection("rag-segs", "msmarco-v2.1-segmented", [str(FIXTURES / "segments.jsonl")])
    ev = build()
    key = judging.topic_items(ev.topics.get(ident=T), "relevance")[0].key
    header = {"type": "header", "format": "assay-judgments/1", "evaluation": "rag", "track": judging.TRACK}
    bad = {"type": "suggestion", "topic": T, "kind": "rag", "item": {"topic": T, "key": key}, "source": "file",
           "value": None}  # fmt: skip
    with pytest.raises(ImportFailed, match="j.jsonl:2: a suggestion without a value must be a failed call"):
        import_jsonl(ev, [json.dumps(header), json.dumps(bad)], "j.jsonl")
    assert not Suggestion.objects.exists()


def test_nugget_proposals_and_the_topic_split_survive_export_and_import(make_user):
    from assess import assist_nuggets

    load_collection("rag-segs", "msmarco-v2.1-segmented", [str(FIXTURES / "segments.jsonl")])
    ann = make_user("ann", "assessor")
    ev = build()
    topic = ev.topics.get(ident=T)
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=ann)
    drawn = assist.set_design(ev, unit="item", conditions=["none", "suggest_first"], seed=8, by=ann).topics
    ev.assist_design.topics = dict(drawn, **{T: "suggest_first"})  # this topic's proposals are shown at once
    ev.assist_design.save()
    value = {"nuggets": [{"text": "Caffeine blocks adenosine", "importance": "vital"},
                         {"text": "Caffeine is a stimulant", "importance": "okay"}]}  # fmt: skip
    made = Suggestion.objects.create(
        evaluation=ev, topic=topic, kind=assist_nuggets.KIND, value=value, rationale="r", source="model",
        source_name="tiny", prompt="List them", seconds=2.0,
    )  # fmt: skip
    assert assist_nuggets.visible(ann, topic).state == "shown"
    with transaction.atomic():
        assist_nuggets.take(ann, type(topic).objects.select_for_update().get(pk=topic.pk), made.pk, 0, "rejected")
    lines = list(export_jsonl(ev))
    ev.delete()
    rebuilt = build()
    assert import_jsonl(rebuilt, lines, "j.jsonl")["suggestion"] == 1
    assert AssistDesign.objects.get(evaluation=rebuilt).topics == dict(drawn, **{T: "suggest_first"})
    moved = Suggestion.objects.get(evaluation=rebuilt)
    assert (moved.kind, moved.item, moved.value, moved.prompt) == (assist_nuggets.KIND, None, value, "List them")
    shown = SuggestionShown.objects.get(suggestion=moved)
    assert (shown.assessor, shown.item, shown.condition, shown.judgment_version) == (ann, None, "suggest_first", 0)
    seen = assist_nuggets.visible(ann, rebuilt.topics.get(ident=T))
    assert (seen.state, seen.pending) == ("shown", [(1, value["nuggets"][1])])  # the rejected one stays handled
    bad = [x.replace('"importance": "vital"', '"importance": "crucial"') for x in lines]
    rebuilt.delete()
    again = build()
    with pytest.raises(ImportFailed, match="nugget proposals are"):
        import_jsonl(again, bad, "j.jsonl")
    beyond = [x.replace('"handled": {"0": "rejected"}', '"handled": {"2": "rejected"}') for x in lines]
    assert beyond != lines
    with pytest.raises(ImportFailed, match="INDEX below 2"):
        import_jsonl(again, beyond, "j.jsonl")
