"""TREC RAG on the shared machinery: segments, topics, an answer run and a retrieval run, pools of segments,
(sentence, segment) pairs and answers; judging with versions and history, nuggets from suggestions, assignment,
double judging and adjudication; scores worked by hand here; the nuggetizer exports and the qrels."""

import json
import math
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.judging import Forbidden, StaleJudgment
from assess.models import Assignment, Judgment, JudgmentChange, Nugget, StructureChange
from core.audit import AuditEntry
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from scoring.models import Score
from scoring.qrels import qrels_lines
from scoring.rescore import rescore_evaluation
from tracks.rag import exports, judging
from tracks.rag.suggestions import SuggestionError, load_suggestions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rag"
T = "2024-145"


def seg(doc, n):
    return f"msmarco_v2.1_doc_00_{1000 + doc}#{n}_{n * 400}"


@pytest.fixture
def pooled(db):
    load_collection("rag-segs", "msmarco-v2.1-segmented", [str(FIXTURES / "segments.jsonl")])
    ev = create_evaluation("rag", judging.TRACK, ["rag-segs"])
    load_topics(ev, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    files = [
        RunFile(filename=n, data=(FIXTURES / n).read_bytes(), team="Team Alpha")
        for n in ("alpha-2024.jsonl", "alpha-r.txt")
    ]
    assert [r.problems for r in load_run_files(ev, files)] == [[], []]
    build_pools(ev)
    return ev


@pytest.fixture
def judged(pooled, make_user):
    ann = make_user("ann", "assessor")
    topic = pooled.topics.get(ident=T)
    Assignment.objects.create(evaluation=pooled, topic=topic, assessor=ann, role=Assignment.PRIMARY)
    return pooled, topic, ann


def items(topic, kind):
    return {(i.text, i.docid) if kind == "support" else i.docid or i.text: i for i in judging.topic_items(topic, kind)}


def score(ev, tag, measure, ident=None):
    return Score.objects.get(run__tag=tag, measure=measure, topic__ident=ident).value


def test_the_pools_hold_one_item_per_segment_pair_and_answer(judged):
    ev, topic, _ = judged
    relevance = items(topic, "relevance")
    # the answer cites 4 segments, all among the retrieval run's 12 (all within the pool depth of 20): 12 items
    assert len(relevance) == 12 and {seg(0, 0), seg(0, 1), seg(0, 2), seg(2, 0)} <= set(relevance)
    support = items(topic, "support")
    assert sorted(d for _, d in support) == sorted([seg(0, 0), seg(0, 1), seg(0, 2), seg(2, 0)])
    assert len(items(topic, "answer")) == 1
    # support batched by segment: one batch per cited segment, its sentences
    batches = judging.support_batches(topic)
    assert [s for s, _ in batches] == [seg(0, 0), seg(0, 1), seg(0, 2), seg(2, 0)]
    assert [i.text for i in batches[1][1]] == ["Caffeine taken six hours before bed cut sleep by more than an hour."]


def test_a_judgment_must_fit_its_item_and_keeps_its_history(judged):
    ev, topic, ann = judged
    r = items(topic, "relevance")[seg(0, 0)]
    with pytest.raises(judging.RagError, match="judged 0, 1, 2, 3, not 'full_support'"):
        judging.judge_item(ann, r, {"label": "full_support"}, 0)
    with pytest.raises(judging.RagError, match="only an answer is assigned nuggets"):
        judging.judge_item(ann, r, {"label": "3", "nuggets": {"1": "support"}}, 0)
    judging.judge_item(ann, r, {"label": "2"}, 0)
    with pytest.raises(StaleJudgment):
        judging.judge_item(ann, r, {"label": "3"}, 0)  # another tab saved meanwhile
    judging.judge_item(ann, r, {"label": "3"}, 1)
    j = Judgment.objects.get(item=r)
    assert (j.value, j.version) == ({"label": "3", "nuggets": {}}, 2)
    assert JudgmentChange.objects.filter(judgment=j).count() == 2
    stranger = type(ann).objects.create_user("stranger")
    with pytest.raises(Forbidden):
        judging.judge_item(stranger, r, {"label": "1"}, 0)


def test_suggestions_are_accepted_edited_or_rejected_by_the_primary_only(judged, make_user):
    ev, topic, ann = judged
    with pytest.raises(SuggestionError, match="bad.jsonl:1: rag has no topic 'nope'"):
        load_suggestions(ev, b'{"qid": "nope", "query": "", "nuggets": []}\n', "bad.jsonl", ann)
    assert load_suggestions(ev, (FIXTURES / "nuggets-suggested.jsonl").read_bytes(), "n.jsonl", ann) == (3, 11)
    topic.refresh_from_db()
    assert len(judging.suggestions(topic)) == 5
    judging.accept_suggestion(ann, topic, 0)
    judging.accept_suggestion(ann, topic, 1, text="Caffeine stays active about five hours", importance="vital")
    judging.reject_suggestion(ann, topic, 0)  # "Caffeine reduces total sleep time"
    topic.refresh_from_db()
    assert [s["text"] for s in judging.suggestions(topic)] == [
        "Caffeine reduces deep sleep",
        "Sensitivity depends on genes (CYP1A2)",
    ]
    assert [(n.text, imp) for n, imp in judging.nuggets_of(topic)] == [
        ("Caffeine blocks adenosine receptors", "vital"),
        ("Caffeine stays active about five hours", "vital"),  # edited, and okay made vital
    ]
    log = list(StructureChange.objects.filter(topic=topic).order_by("id").values_list("action", flat=True))
    assert log == ["nugget.create", "nugget.create", "nugget.suggestion_rejected"]
    assert AuditEntry.objects.filter(action="rag.suggestions").count() == 1
    second = make_user("bob", "assessor")
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=second, role=Assignment.SECONDARY)
    with pytest.raises(Forbidden):
        judging.accept_suggestion(second, topic, 0)
    with pytest.raises(judging.RagError, match="no suggestion 9"):
        judging.accept_suggestion(ann, topic, 8)


def judge_example(ev, topic, ann):
    """The hand-worked example: support, nuggets and their assignment, relevance grades."""
    support = items(topic, "support")
    s1 = "Caffeine blocks adenosine, the chemical that builds sleep pressure."
    s2 = "Caffeine taken six hours before bed cut sleep by more than an hour."
    judging.judge_item(ann, support[(s1, seg(0, 0))], {"label": "full_support"}, 0)
    judging.judge_item(ann, support[(s2, seg(0, 1))], {"label": "partial_support"}, 0)
    judging.judge_item(ann, support[(s2, seg(0, 2))], {"label": "no_support"}, 0)
    # sentence 3's pair (segment 2,0) stays unjudged
    n1 = judging.create_nugget(ann, topic, "Caffeine blocks adenosine", "vital")
    n2 = judging.create_nugget(ann, topic, "Caffeine shortens sleep", "vital")
    n3 = judging.create_nugget(ann, topic, "Avoid caffeine in the afternoon", "okay")
    answer = next(iter(items(topic, "answer").values()))
    held = {str(n1.pk): "support", str(n2.pk): "partial_support", str(n3.pk): "not_support"}
    judging.judge_item(ann, answer, {"label": "assigned", "nuggets": held}, 0)
    relevance = items(topic, "relevance")
    for segid, grade in ((seg(0, 0), "3"), (seg(0, 1), "2"), (seg(1, 0), "1")):
        judging.judge_item(ann, relevance[segid], {"label": grade}, 0)
    return answer, (n1, n2, n3)


def test_scores_match_the_hand_worked_example(judged):
    ev, topic, ann = judged
    judge_example(ev, topic, ann)
    rescore_evaluation(ev.id)
    # nuggets: N1 vital support, N2 vital partial, N3 okay not. All (1 + ½ + 0)/3; Vital (1 + ½)/2;
    # Strict All 1/3; Strict Vital 1/2. The other topics have no nuggets: left out, so the run's = topic's.
    # support: pairs 1, ½, 0 (one unjudged, left out) -> precision ½; sentences max(1)=1, max(½, 0)=½, the third
    # unjudged -> recall ¾.
    expected = {"nugget_all": 0.5, "nugget_vital": 0.75, "nugget_strict_all": 1 / 3, "nugget_strict_vital": 0.5,
                "support_precision": 0.5, "support_recall": 0.75}  # fmt: skip
    for measure, value in expected.items():
        assert score(ev, "alpha-2024", measure, T) == pytest.approx(value), measure
        assert score(ev, "alpha-2024", measure) == pytest.approx(value), measure
    assert score(ev, "alpha-2024", "score") == pytest.approx(0.5)  # All
    assert score(ev, "alpha-2024", "nugget_all", "2024-212") is None
    # retrieval: ranks 1 (grade 3), 2 (grade 2), 5 (grade 1), the rest 0 or unjudged.
    # DCG = 3/log2(2) + 2/log2(3) + 1/log2(6); ideal 3 + 2/log2(3) + 1/log2(4) -> 4.64871 / 4.76186
    ndcg = (3 + 2 / math.log2(3) + 1 / math.log2(6)) / (3 + 2 / math.log2(3) + 0.5)
    assert score(ev, "alpha-r", "ndcg_cut_20", T) == pytest.approx(ndcg)
    assert score(ev, "alpha-r", "ndcg_cut_20") == pytest.approx(0.976239, abs=1e-6)
    assert not Score.objects.filter(run__tag="alpha-r", measure="nugget_all").exists()


def test_deleting_a_nugget_rewrites_the_assignments_and_rescores(judged):
    ev, topic, ann = judged
    answer, (n1, n2, n3) = judge_example(ev, topic, ann)
    judging.delete_nugget(ann, n2)
    j = Judgment.objects.get(item=answer)
    assert j.value["nuggets"] == {str(n1.pk): "support", str(n3.pk): "not_support"} and j.version == 2
    rescore_evaluation(ev.id)
    assert score(ev, "alpha-2024", "nugget_all", T) == pytest.approx(0.5)  # (1 + 0) / 2
    assert score(ev, "alpha-2024", "nugget_vital", T) == pytest.approx(1.0)
    # a nugget added later leaves the answer out until it is assigned too
    judging.create_nugget(ann, topic, "Caffeine is in tea", "okay")
    rescore_evaluation(ev.id)
    assert score(ev, "alpha-2024", "nugget_all", T) is None


def test_disagreements_are_adjudicated_once(judged, make_user):
    ev, topic, ann = judged
    bob = make_user("bob", "assessor")
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=bob, role=Assignment.SECONDARY)
    r = items(topic, "relevance")[seg(0, 0)]
    judging.judge_item(ann, r, {"label": "3"}, 0)
    judging.judge_item(bob, r, {"label": "2"}, 0)
    other = items(topic, "relevance")[seg(0, 1)]
    judging.judge_item(ann, other, {"label": "1"}, 0)
    judging.judge_item(bob, other, {"label": "1"}, 0)  # agrees
    queue = judging.adjudication_queue(ev)
    assert [(row[0].pk, row[1].value["label"], row[2].value["label"], row[3]) for row in queue] == [
        (r.pk, "3", "2", None)
    ]
    with pytest.raises(Forbidden):
        judging.adjudicate(ann, r, {"label": "2"}, 0)
    boss = make_user("boss", "organizer")
    judging.adjudicate(boss, r, {"label": "2", "nuggets": {}}, 0)
    with pytest.raises(StaleJudgment):
        judging.adjudicate(make_user("boss2", "organizer"), r, {"label": "3", "nuggets": {}}, 0)
    lines = list(qrels_lines(ev))
    assert f"{T} 0 {seg(0, 0)} 2\n" in lines  # the decision counts


def test_the_nuggetizer_exports_and_qrels(judged):
    ev, topic, ann = judged
    judge_example(ev, topic, ann)
    nuggets = [json.loads(line) for line in exports.nuggetizer_nuggets(ev)]
    assert nuggets[0] == {
        "query": "how does caffeine affect sleep",
        "qid": T,
        "nuggets": [
            {"text": "Caffeine blocks adenosine", "importance": "vital"},
            {"text": "Caffeine shortens sleep", "importance": "vital"},
            {"text": "Avoid caffeine in the afternoon", "importance": "okay"},
        ],
    }
    assert [n["qid"] for n in nuggets] == [T, "2024-212", "2025-31"] and nuggets[1]["nuggets"] == []
    assigned = [json.loads(line) for line in exports.nuggetizer_assignments(ev)]
    assert len(assigned) == 1  # one topic with nuggets, one answer run (the retrieval run has no answers)
    a = assigned[0]
    assert (a["qid"], a["run_id"], a["response_length"]) == (T, "alpha-2024", len(a["answer_text"].split()))
    assert [n["assignment"] for n in a["nuggets"]] == ["support", "partial_support", "not_support"]
    lines = list(qrels_lines(ev))
    assert f"{T} 0 {seg(0, 0)} 3\n" in lines and f"{T} 0 {seg(1, 0)} 1\n" in lines
    assert f"{T} 0 {seg(0, 3)} -1\n" in lines  # pooled, not judged yet
    assert Nugget.objects.filter(topic=topic).count() == 3


def test_the_commands_load_suggestions_and_decide(judged, make_user, capsys, tmp_path):
    ev, topic, ann = judged
    make_user("boss", "organizer")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "nope", "query": "", "nuggets": []}\n')
    with pytest.raises(CommandError, match="no topic 'nope'"):
        call_command("rag_suggestions", "rag", str(bad), "--by", "boss")
    call_command("rag_suggestions", "rag", str(FIXTURES / "nuggets-suggested.jsonl"), "--by", "boss")
    assert "11 suggested nuggets loaded for 3 topics of rag" in capsys.readouterr().out
    bob = make_user("bob", "assessor")
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=bob, role=Assignment.SECONDARY)
    r = items(topic, "relevance")[seg(0, 0)]
    judging.judge_item(ann, r, {"label": "3"}, 0)
    judging.judge_item(bob, r, {"label": "1"}, 0)
    call_command("rag_adjudicate", "rag")
    listed = capsys.readouterr().out
    assert r.pool_id in listed and "ann: 3" in listed and "bob: 1" in listed and "open" in listed
    call_command("rag_adjudicate", "rag", r.pool_id, "--by", "boss", "--label", "2")
    assert Judgment.objects.get(item=r, role=Judgment.ADJUDICATED).value == {"label": "2", "nuggets": {}}
