"""TREC 2007: a run with nothing to say for a list or Other question answers it with a NIL line, the explicit empty
response (docs/formats.md). It is loaded, never pooled, and scores 0 (SPEC-NOTES: "an empty response scores 0")."""

from pathlib import Path

import pytest

from assess import judging as generic
from assess.assignments import assign
from corpus.loading import load_collection
from pooling.models import Evaluation, PoolItem, RunEntry
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from scoring.models import Score
from scoring.rescore import rescore_evaluation

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture
def trec2007(db, make_user):
    from tracks.qa.demo_trec2007 import SLUG, load_trec2007_demo

    load_collection(
        "demo-blog06",
        "blog06",
        [FIXTURES / "corpus" / "blog06-demo.txt", FIXTURES / "corpus" / "blog06-demo-2.txt.gz"],
    )
    make_user("assessor3", "assessor")
    load_trec2007_demo(out=lambda _: None)
    return Evaluation.objects.get(slug=SLUG)


def test_an_empty_list_and_other_response_is_loaded_not_pooled_and_scores_zero(trec2007, make_user):
    from tracks.qa import instance_judging, nugget_judging

    ev = trec2007
    alpha_watts = PoolItem.objects.get(topic__ident="301.1", text="Naomi Watts")
    docno = alpha_watts.docid
    data = (
        f"301.1 GammaQA07 {docno} Naomi Watts\n301.2 GammaQA07 NIL\n301.3 GammaQA07 NIL\n"
        f"302.1 GammaQA07 NIL\n302.2 GammaQA07 NIL\n302.3 GammaQA07 NIL\n"
    ).encode()
    late = [RunFile(filename="GammaQA07.txt", data=data, team="Team Gamma", priority=1)]
    (result,) = load_run_files(ev, late, override_reason="a late run, judged with the others")  # the demo is judged
    assert result.problems == []
    items_before = PoolItem.objects.filter(evaluation=ev).count()
    build_pools(ev)
    # Gamma's factoid answer is Alpha's (one item); its NIL lines make no pool item
    assert PoolItem.objects.filter(evaluation=ev).count() == items_before
    gamma = ev.runs.get(tag="GammaQA07")
    assert not RunEntry.objects.filter(run=gamma, pool_items__isnull=False).exclude(topic__ident="301.1").exists()

    # Judged: 301.1 "Naomi Watts" right; 301.2 Alpha's "Naomi Watts" right (a class: S = 1); 301.3 one vital
    # nugget that Alpha's string holds (R = 1).
    user = make_user("judge", "assessor")
    assign(ev, "301", "judge")
    instance_judging.judge_instance(user, generic.load_item(user, alpha_watts.pk), "globally-correct", 0)
    listq, other = ev.topics.get(ident="301.2"), ev.topics.get(ident="301.3")
    watts = PoolItem.objects.get(topic=listq, text="Naomi Watts")
    instance_judging.create_class(
        user, listq, "Naomi Watts", item=generic.load_item(user, watts.pk), expected_version=0
    )
    nugget = nugget_judging.create_nugget(user, other, "too long")
    nugget_judging.vote(user, nugget, "vital", 0)
    alpha_other = PoolItem.objects.get(topic=other, text="King Kong is too long at three hours")
    nugget_judging.match(user, generic.load_item(user, alpha_other.pk), [nugget.pk], 0)
    rescore_evaluation(ev.id)

    def score(run, ident, measure="score", scope="question"):
        return Score.objects.get(run__tag=run, scope=scope, topic__ident=ident, measure=measure)

    assert score("GammaQA07", "301.1").value == 1.0
    empty_list = score("GammaQA07", "301.2")
    assert empty_list.value == 0.0 and (empty_list.detail["N"], empty_list.detail["D"], empty_list.detail["S"]) == (
        0,
        0,
        1,
    )
    assert empty_list.detail["entries"] == 0 and not empty_list.detail["left_out"]
    empty_other = score("GammaQA07", "301.3")
    assert empty_other.value == 0.0 and empty_other.detail["length"] == 0 and empty_other.detail["entries"] == 0
    # Alpha beside it: list D = 1 of N = 2 (Andy Serkis unjudged), S = 1: IP = 1/2, IR = 1, F = 2/3; Other: 29
    # non-white-space characters within the allowance of 100: P = 1, R = 1, F = 1.
    assert score("AlphaQA07", "301.2").value == pytest.approx(2 / 3)
    assert score("AlphaQA07", "301.3").value == pytest.approx(1.0)
    # Series 301: 1/3 factoid + 1/3 list + 1/3 Other = 1/3 (1 + 0 + 0)
    assert score("GammaQA07", "301", scope="series").value == pytest.approx(1 / 3)
