"""Machine judges beside TREC RAG's assessors (issue 29): an UMBRELA qrels file and a nuggetizer assignments file
read as judgment sets, their agreement on RAG's ordinal scales (relevance 3 > 2 > 1 > 0, support, nugget
assignment support > partial_support > not_support) worked by hand, the runs scored under each set, and the
bounds for unjudged items collapsing to the score when the last item is judged."""

import json
import math

import pytest

from assess.models import Assignment
from pooling.evaluations import LoadError
from pooling.models import PoolItem, Run
from scoring import agreement_store, judgment_sets, rankings
from scoring.models import Agreement, Score, SetJudgment
from scoring.rescore import rescore_evaluation
from tests.tracks.rag.test_pipeline import T, items, judge_example, judged, pooled, seg  # noqa: F401 (fixtures)
from tracks.rag import judging

UNPOOLED = "msmarco_v2.1_doc_00_1099#0_0"

# UMBRELA's grades beside the assessor's (judge_example: seg(0,0) 3, seg(0,1) 2, seg(1,0) 1; the test adds
# seg(0,2) 0): the machine agrees on 3 and 1, says 3 for the 2 and 1 for the 0. An unpooled segment and an
# unjudged line are skipped.
UMBRELA = f"""\
{T} 0 {seg(0, 0)} 3
{T} 0 {seg(0, 1)} 3
{T} 0 {seg(0, 2)} 1
{T} 0 {seg(1, 0)} 1
{T} 0 {UNPOOLED} 2
{T} 0 {seg(0, 3)} -1
""".encode()


def assignments_line(run_id, assigned):
    nuggets = [{"text": text, "importance": imp, "assignment": a} for text, imp, a in assigned]
    record = {"query": "q", "qid": T, "answer_text": "a b", "response_length": 2, "run_id": run_id, "nuggets": nuggets}
    return json.dumps(record) + "\n"


# nuggetizer's assignment of alpha-2024's answer (the assessor's: support, partial_support, not_support)
NUGGETIZER = assignments_line(
    "alpha-2024",
    [
        ("Caffeine blocks adenosine", "vital", "support"),
        ("caffeine  shortens sleep", "vital", "support"),  # (nuggets are found by their text, case and space aside)
        ("Avoid caffeine in the afternoon", "okay", "partial_support"),
    ],
).encode()


@pytest.fixture
def example(judged, make_user):
    ev, topic, ann = judged
    answer, nuggets = judge_example(ev, topic, ann)
    judging.judge_item(ann, items(topic, "relevance")[seg(0, 2)], {"label": "0"}, 0)
    return ev, topic, ann, answer, nuggets, make_user("rag-org", "organizer")


def stats(ev, made, kind):
    return Agreement.objects.get(evaluation=ev, judgment_set=made, topic__isnull=True, kind=kind).stats


def run_scores(ev, made, tag):
    data = rankings.compute(ev)
    return data["scores"][f"set:{made.pk}"][str(Run.objects.get(evaluation=ev, tag=tag).pk)]


def test_umbrela_qrels_are_relevance_grades_compared_on_an_ordinal_scale(example):
    ev, topic, ann, _, _, org = example
    made = judgment_sets.load_set(ev, UMBRELA, "umbrela.qrels", "qrels", "UMBRELA", by=org, provenance={"model": "x"})
    assert made.skipped == 2
    values = {j.item.docid: j.value for j in SetJudgment.objects.filter(judgment_set=made).select_related("item")}
    assert values == {
        seg(0, 0): {"label": "3", "nuggets": {}},
        seg(0, 1): {"label": "3", "nuggets": {}},
        seg(0, 2): {"label": "1", "nuggets": {}},
        seg(1, 0): {"label": "1", "nuggets": {}},
    }
    # a second assessor grades one segment, so the human comparison has a unit too
    bob = type(ann).objects.create_user("bob")
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=bob, role=Assignment.SECONDARY)
    judging.judge_item(bob, items(topic, "relevance")[seg(0, 0)], {"label": "2"}, 0)
    agreement_store.refresh(ev.id)
    row = stats(ev, made, "relevance")
    # rows official, columns UMBRELA, best first: 3/3, 2/3, 1/1, 0/1
    assert row["labels"] == ["3", "2", "1", "0"] and row["ordinal"] is True
    assert row["confusion"] == [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 1, 0]]
    assert row["items"] == 4 and row["percent"] == 0.5
    # kappa: p_o 2/4; margins rows 1,1,1,1, columns 2,0,2,0: p_e (2 + 2)/16 = 1/4 -> (1/2 - 1/4)/(3/4) = 1/3
    assert row["kappa"] == pytest.approx(1 / 3)
    # linear weights |i - j|/3: observed (1/3 + 1/3)/4 = 1/6; expected (sum_i sum_j w_ij r_i c_j)/16 with
    # row 3: 2*0 + 2*2/3, row 2: 2*1/3 + 2*1/3, row 1: 2*2/3 + 0, row 0: 2*1 + 2*1/3 -> (20/3)/16 = 5/12;
    # 1 - (1/6)/(5/12) = 3/5
    assert row["weighted_kappa"] == pytest.approx(0.6)
    human = stats(ev, None, "relevance")
    assert human["items"] == 1 and human["confusion"][0][1] == 1  # ann 3, bob 2
    # support and answers: nothing of the set's to compare (it holds grades only)
    assert stats(ev, made, "support")["items"] == 0 and stats(ev, made, "assignment")["items"] == 0
    (cell,) = agreement_store.disagreements(ev, made, "relevance", cell=("0", "1"))
    assert cell["item_id"] == items(topic, "relevance")[seg(0, 2)].pk
    # the retrieval run under UMBRELA's grades: ranks 1-3 and 5 hold seg(0,0..2) and seg(1,0), graded 3, 3, 1, 1
    rescore_evaluation(ev.id)
    dcg = 3 + 3 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(6)
    ideal = 3 + 3 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)
    assert run_scores(ev, made, "alpha-r")["ndcg_cut_20"] == pytest.approx(dcg / ideal)
    assert run_scores(ev, made, "alpha-2024")["score"] is None  # grades only: the answers unassigned under the set
    official = Score.objects.get(run__tag="alpha-r", measure="ndcg_cut_20", topic__isnull=True).value
    assert official == pytest.approx((3 + 2 / math.log2(3) + 1 / math.log2(6)) / (3 + 2 / math.log2(3) + 0.5))


def test_nuggetizer_assignments_keep_partial_support_as_the_ordinal_middle(example):
    ev, topic, ann, answer, (n1, n2, n3), org = example
    made = judgment_sets.load_set(ev, NUGGETIZER, "assign.jsonl", "nuggetizer", "AutoNuggetizer", by=org)
    (value,) = SetJudgment.objects.filter(judgment_set=made, kind="rag").values_list("value", flat=True)
    assert value == {
        "label": "assigned",
        "nuggets": {str(n1.pk): "support", str(n2.pk): "support", str(n3.pk): "partial_support"},
    }
    assert SetJudgment.objects.get(judgment_set=made, item=answer).value == value  # the answer's pool item only
    votes = dict(SetJudgment.objects.filter(judgment_set=made, kind="nugget_vote").values_list("nugget_id", "value"))
    assert votes == {n1.pk: {"vote": "vital"}, n2.pk: {"vote": "vital"}, n3.pk: {"vote": "okay"}}
    agreement_store.refresh(ev.id)
    row = stats(ev, made, "assignment")
    # units (answer, nugget), rows the assessor: support/support, partial/support, not/partial
    assert row["labels"] == ["support", "partial_support", "not_support"]
    assert row["confusion"] == [[1, 0, 0], [1, 0, 0], [0, 1, 0]]
    # kappa: p_o 1/3; rows 1,1,1, columns 2,1,0: p_e (2 + 1 + 0)/9 = 1/3 -> 0
    assert row["kappa"] == pytest.approx(0.0)
    # linear weights (adjacent 1/2, far 1): observed (1/2 + 1/2)/3 = 1/3; expected
    # (support: 1/2; partial: 2*1/2; not: 2*1 + 1/2) / 9 = 4/9 -> 1 - (1/3)/(4/9) = 1/4
    assert row["weighted_kappa"] == pytest.approx(0.25)
    assert stats(ev, made, "nugget_vote")["percent"] == 1.0  # the same importances
    (cell,) = agreement_store.disagreements(ev, made, "assignment", cell=("not_support", "partial_support"))
    assert (cell["item_id"], cell["nugget_id"]) == (answer.pk, n3.pk)
    # the answer run scored under the machine's assignment: All (1 + 1 + 1/2)/3, Strict All 2/3, Vital 1
    rescore_evaluation(ev.id)
    under = run_scores(ev, made, "alpha-2024")
    assert under["nugget_all"] == pytest.approx(2.5 / 3)
    assert under["nugget_strict_all"] == pytest.approx(2 / 3)
    assert under["nugget_vital"] == pytest.approx(1.0)
    assert run_scores(ev, made, "alpha-r")["score"] is None  # no grade in the set: the retrieval run drops out
    assert Score.objects.get(run__tag="alpha-2024", measure="nugget_all", topic__isnull=True).value == 0.5  # unchanged


def test_a_rag_set_must_fit_each_item_and_its_nuggets(example):
    ev, topic, ann, answer, (n1, *_), org = example
    support = next(iter(items(topic, "support").values()))
    segment = items(topic, "relevance")[seg(0, 0)]

    def record(item, value):
        return {"type": "judgment", "topic": T, "kind": "rag", "item": {"topic": T, "key": item.key}, "value": value}

    lines = [
        record(segment, {"label": "full_support", "nuggets": {}}),  # a support label on a segment
        record(support, {"label": "full_support", "nuggets": {}}),  # fine
        record(answer, {"label": "assigned", "nuggets": {str(n1.pk): "support"}}),  # fine
    ]
    data = "".join(json.dumps(r) + "\n" for r in lines).encode()
    with pytest.raises(LoadError) as error:
        judgment_sets.load_set(ev, data, "set.jsonl", "jsonl", "bad", by=org)
    assert error.value.problems == ["set.jsonl:1: 'full_support' is not a label of this item (one of 3, 2, 1, 0)"]
    made = judgment_sets.load_set(ev, data.split(b"\n", 1)[1], "set.jsonl", "jsonl", "good", by=org)
    assert made.judgments.count() == 2
    wrong_run = assignments_line("no-such-run", [("Caffeine blocks adenosine", "vital", "support")]).encode()
    with pytest.raises(LoadError, match="assign.jsonl:1: run no-such-run is not a run of rag"):
        judgment_sets.load_set(ev, wrong_run, "assign.jsonl", "nuggetizer", "x", by=org)


def robust(ev, tag):
    rescore_evaluation(ev.id)
    data = rankings.compute(ev)["robustness"]
    run = str(Run.objects.get(evaluation=ev, tag=tag).pk)
    (row,) = [r for r in data["runs"] if r["run"] == run]
    return row, data["filled"]


def test_bounds_collapse_to_the_score_when_the_last_item_is_judged(judged):
    ev, topic, ann = judged
    for other in ev.topics.exclude(pk=topic.pk):
        Assignment.objects.create(evaluation=ev, topic=other, assessor=ann, role=Assignment.PRIMARY)
    n1 = judging.create_nugget(ann, topic, "Caffeine blocks adenosine", "vital")
    n2 = judging.create_nugget(ann, topic, "Caffeine shortens sleep", "okay")
    answer = next(iter(items(topic, "answer").values()))
    # nothing judged: the answer supports none or all of the two nuggets; every segment irrelevant or perfect
    row, filled = robust(ev, "alpha-2024")
    assert (row["score"], row["worst"], row["best"]) == (None, 0.0, 1.0)
    retrieval, _ = robust(ev, "alpha-r")
    assert (retrieval["worst"], retrieval["best"]) == (None, 1.0)  # no relevant segment: nDCG undefined
    # every item judged but the answer: the retrieval run's bounds are its score, the answer run's still apart
    grades = iter("3210" * 20)
    for item in PoolItem.objects.filter(evaluation=ev).exclude(pk=answer.pk).order_by("pk"):
        label = {"relevance": next(grades), "support": "partial_support", "answer": "assigned"}[item.data["kind"]]
        judging.judge_item(ann, item, {"label": label}, 0)
    row, filled = robust(ev, "alpha-2024")
    assert filled == 1 and (row["score"], row["worst"], row["best"]) == (None, 0.0, 1.0)
    retrieval, _ = robust(ev, "alpha-r")
    assert retrieval["worst"] == retrieval["best"] == retrieval["score"] is not None
    # the last item: the bounds collapse to the score, All = (1 + 1/2)/2
    held = {str(n1.pk): "support", str(n2.pk): "partial_support"}
    judging.judge_item(ann, answer, {"label": "assigned", "nuggets": held}, 0)
    row, filled = robust(ev, "alpha-2024")
    assert filled == 0 and row["score"] == row["worst"] == row["best"] == pytest.approx(0.75)


def test_the_organizer_pages_show_rags_agreement_and_rankings(example, client):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    ev, topic, ann, answer, _, org = example
    client.force_login(org)
    upload = SimpleUploadedFile("assign.jsonl", NUGGETIZER)
    page = reverse("scoring:judgment_sets", args=[ev.slug])
    loaded = client.post(page, {"file": upload, "format": "nuggetizer", "name": "AutoNuggetizer", "model": "gpt-4o"})
    assert loaded.status_code == 302
    made = judgment_sets.JudgmentSet.objects.get(evaluation=ev, name="AutoNuggetizer")
    assert made.provenance == {"model": "gpt-4o"}
    listing = client.get(page).content.decode()
    assert "AutoNuggetizer" in listing and "assignment" in listing
    detail = client.get(reverse("scoring:judgment_set", args=[ev.slug, made.pk]), {"kind": "assignment"})
    text = detail.content.decode()
    assert detail.status_code == 200 and 'id="confusion-assignment"' in text and "partial_support" in text
    assert "Avoid caffeine in the afternoon" in text  # a disagreeing nugget, listed with its answer
    rescore_evaluation(ev.id)
    rankings.refresh(ev.id)
    robustness = client.get(reverse("scoring:robustness", args=[ev.slug])).content.decode()
    assert "AutoNuggetizer" in robustness and "alpha-2024" in robustness


def test_the_demo_holds_machine_sets_with_their_agreement_and_rankings(make_user):
    from pooling.models import Evaluation
    from scoring.models import JudgmentSet, RankingState
    from tracks.rag.demo import NUGGETIZER, SLUG, UMBRELA, load_rag_demo

    for name, role in (("organizer", "organizer"), ("assessor", "assessor"), ("assessor2", "assessor")):
        make_user(name, role)
    load_rag_demo(lambda _: None)
    load_rag_demo(lambda _: None)  # idempotent: the sets are loaded once
    ev = Evaluation.objects.get(slug=SLUG)
    sets = {s.name: s for s in JudgmentSet.objects.filter(evaluation=ev)}
    assert set(sets) == {UMBRELA, NUGGETIZER}
    assert all(s.provenance["producer"] == "demo machine judge" for s in sets.values())
    relevance = stats(ev, sets[UMBRELA], "relevance")
    # the assessor grades as the machine does but for every fourth segment: a few disagreements, mostly agreement
    assert relevance["items"] > 8 and 0.6 < relevance["percent"] < 1 and relevance["weighted_kappa"] is not None
    assignment = stats(ev, sets[NUGGETIZER], "assignment")
    assert assignment["items"] > 4 and 0.5 < assignment["percent"] < 1
    assert agreement_store.disagreements(ev, sets[NUGGETIZER], "assignment")
    state = RankingState.objects.get(evaluation=ev)
    assert {f"set:{s.pk}" for s in sets.values()} <= set(state.data["scores"])
    pairs = [p for p in state.data["pairs"] if p["a"] == "official" and p["b"] == f"set:{sets[NUGGETIZER].pk}"]
    assert any(p["measure"] == "nugget_all" and p["tau"] is not None for p in pairs)
    assert rankings.present(ev)["as_of"] is not None
