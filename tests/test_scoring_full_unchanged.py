"""A full rescoring stores exactly what it stored before it was made faster (issue 19: writes, JSON, measures).

tests/fixtures/scoring/full_rescoring.json holds every Score row (value and detail, keyed by run tag, scope,
topic ident and measure) that the scorer of commit 608d855 stored for four small synthetic evaluations: TREC 2007
as generated, the same with binary nugget weights, TREC 2004 weighting, unjudged items and an organizer's NIL
decision, and its questions recast as TAC 2008 (rigid and squishy lists) and ciQA (recall by length) topics.
Values are compared exactly (JSON keeps a float's shortest repr, which reads back to the same double). Since
issue 32 each series row's detail also holds the exact sums a live pass updates ("sums"; its sum of question ids
is left out here, as ids depend on the tests run before); nothing else changed. Since then too, each question's
pool counts are stored once (scoring.models.PoolCount), not in its runs' rows: compared as readers see the rows
(scoring.pool_counts.Shown), which must be as stored before.

Regenerate (only when a scoring change is meant to change stored numbers): ASSAY_WRITE_GOLDEN=1 pytest this file.
"""

import json
import os
from pathlib import Path

import pytest

from assess.models import Judgment
from pooling.models import Evaluation, Topic
from scoring.models import PoolCount, Score
from scoring.pool_counts import Shown
from scoring.rescore import rescore_evaluation
from tracks.qa.synthetic import trec2007_sized

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "fixtures" / "scoring" / "full_rescoring.json"


def _snapshot(ev):
    """Every row as readers see it: each question's pool counts, stored once per question since issue 32
    (scoring.pool_counts), shown in the details as they were stored before."""
    shown = Shown(ev)
    rows = Score.objects.filter(run__evaluation=ev).values_list(
        "run__tag", "scope", "topic_id", "topic__ident", "measure", "value", "detail"
    )
    return sorted(
        [tag, scope, ident, measure, value, portable(shown.detail(scope, tid, measure, detail))]
        for tag, scope, tid, ident, measure, value, detail in rows
    )


def portable(detail):
    """The detail without what depends on the database's ids: the sum of the question ids a series' sums hold."""
    sums = detail.get("sums")
    if isinstance(sums, dict) and "ids" in sums:
        ids = {kind: n for kind, (n, _) in sums["ids"].items()}
        return detail | {"sums": sums | {"ids": ids}}
    return detail


def _evaluation(slug, **kw):
    return trec2007_sized(slug=slug, series=4, questions=24, runs=4, seed=kw.pop("seed", 5), **kw)


def _trec2007_as_generated():
    return _evaluation("golden-trec")


def _binary_trec2004_partly_judged():
    ev = _evaluation("golden-mixed", seed=6)
    ev.settings = dict(ev.settings, nugget_method="binary", series_weighting="trec2004")
    ev.save()
    judgments = Judgment.objects.filter(evaluation=ev).order_by("id")
    # some items left unjudged (a list question's, a factoid's, an Other question's match) and one vote gone
    for kind, topic_kind in (("instance", "LIST"), ("instance", "FACTOID"), ("nugget_match", "OTHER")):
        first = judgments.filter(kind=kind, topic__kind=topic_kind).first()
        judgments.filter(pk__in=judgments.filter(topic=first.topic, kind=kind).values("pk")[:2]).delete()
    judgments.filter(kind="nugget_vote").first().delete()
    factoids = Topic.objects.filter(evaluation=ev, kind="FACTOID").order_by("id")
    for topic, nil in zip(factoids, (True, False)):
        topic.data = {"answer_is_nil": nil}
        topic.save()
    return ev


def _recast(slug, track, kinds, seed):
    ev = _evaluation(slug, seed=seed)
    Evaluation.objects.filter(pk=ev.pk).update(track=track, settings={})
    for old, new in kinds.items():
        Topic.objects.filter(evaluation=ev, kind=old).update(kind=new)
    return Evaluation.objects.get(pk=ev.pk)


def _tac2008():
    ev = _recast("golden-tac", "tac2008-qa", {"LIST": "RIGIDLIST", "OTHER": "SQUISHYLIST"}, 7)
    judgments = list(Judgment.objects.filter(evaluation=ev, kind="instance", value__label="globally-correct"))
    for j in judgments:  # TAC 2008's instance labels have "correct" where TREC 2007's have "globally-correct"
        j.value = dict(j.value, label="correct")
    Judgment.objects.bulk_update(judgments, ["value"])
    return ev


def _ciqa():
    return _recast("golden-ciqa", "trec2007-ciqa", {"OTHER": "CIQA"}, 8)


CASES = {
    "trec2007": _trec2007_as_generated,
    "binary_trec2004_partly_judged": _binary_trec2004_partly_judged,
    "tac2008": _tac2008,
    "ciqa": _ciqa,
}


def test_full_rescoring_stores_the_same_rows_as_before():
    got = {}
    for name, build in CASES.items():
        ev = build()
        rescore_evaluation(ev.id)
        got[name] = json.loads(json.dumps(_snapshot(ev)))  # (tuples in details come back as lists, as stored)
        # the counts are stored once per question, not in its runs' rows (the shown view adds them back)
        stored = Score.objects.filter(run__evaluation=ev)
        scored = set(stored.filter(scope=Score.QUESTION).values_list("topic_id", flat=True))
        assert set(PoolCount.objects.filter(evaluation=ev).values_list("topic_id", flat=True)) == scored
        assert not stored.filter(detail__has_key="pool").exists()
        assert not stored.filter(detail__has_key="pool_items").exists()
    if os.environ.get("ASSAY_WRITE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=None, separators=(",", ":")).replace("],[", "],\n["))
    expected = json.loads(GOLDEN.read_text())
    for name in CASES:
        assert len(got[name]) == len(expected[name]), name
        for row, want in zip(got[name], expected[name]):
            assert row == want, (name, row[:4])
    # every scope, measure kind and detail shape is covered
    measures = {(scope, measure) for rows in expected.values() for _, scope, _, measure, _, _ in rows}
    assert {("run", m) for m in ("score", "factoid", "list", "other", "rigidlist", "squishylist", "ciqa")} <= measures
    assert any(row[5].get("recall_points") for row in expected["ciqa"])
    assert any(row[5].get("unjudged") for row in expected["binary_trec2004_partly_judged"])
