"""End-to-end scoring of a tiny TREC 2007 evaluation, every expected number worked out by hand."""

import pytest
from django.db import transaction

from assess.judging import save_judgment
from assess.models import Judgment
from pooling.models import StaleTopic
from pooling.staleness import mark_stale
from scoring.models import PoolCount, Score, ScoringState
from scoring.pool_counts import Shown
from scoring.rescore import freshness, rescore_evaluation, rescore_stale_topics
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db

# 216.2 runA: classes [c1, c1, c2, wrong] -> N=4, D=2; S=3 (c1, c2 and the assessor's c3)
#   IP = 2/4 = .5, IR = 2/3, F = 2*.5*(2/3)/(.5+2/3) = (2/3)/(7/6) = 4/7
# 216.2 runB: [c2] -> IP 1, IR 1/3, F = 2*(1/3)/(4/3) = .5
# 216.3 pyramid: vital votes n1 3, n2 1, n3 0 -> weights 1, 1/3, 0; R = 4/3
#   runA matches n1, n3 with 250 chars: allowance 200, P = 1 - 50/250 = .8, r = 1/(4/3) = .75
#     F = 10*.8*.75/(9*.8+.75) = 6/7.95
#   runB matches n2 with 50 chars: P = 1, r = (1/3)/(4/3) = .25, F = 2.5/9.25
# 217.2: m1, m2 one vital vote each -> weights 1, 1; runA empty -> 0; runB m1 in 80 chars: r=.5, F = 5/9.5
A_216 = (1 + 4 / 7 + 6 / 7.95) / 3
B_216 = (0 + 0.5 + 2.5 / 9.25) / 3
A_217 = (0 + 0) / 2  # no list question in 217: the present types are averaged and the series flagged
B_217 = (1 + 5 / 9.5) / 2


def _scores(run, scope, topic=None):
    qs = Score.objects.filter(run=run, scope=scope)
    qs = qs.filter(topic=topic) if topic is not None else qs.filter(topic__isnull=True)
    return {s.measure: s for s in qs}


def test_full_rescoring_matches_hand_computation():
    t = tiny_trec2007()
    rescore_evaluation(t["evaluation"].id)
    q = t["q"]
    a, b = t["runA"], t["runB"]
    assert _scores(a, "question", q["216.1"])["score"].value == 1.0
    assert _scores(b, "question", q["216.1"])["score"].value == 0.0  # NIL while an answer is known
    la = _scores(a, "question", q["216.2"])["score"]
    assert la.value == pytest.approx(4 / 7)
    assert (la.detail["D"], la.detail["N"], la.detail["S"]) == (2, 4, 3)
    assert _scores(b, "question", q["216.2"])["score"].value == pytest.approx(0.5)
    oa = _scores(a, "question", q["216.3"])["score"]
    assert oa.value == pytest.approx(6 / 7.95)
    # binary version: n1 is the only official vital nugget -> r = 1, F = 10*.8*1/(7.2+1) = 8/8.2
    assert oa.detail["binary_f"] == pytest.approx(8 / 8.2)
    assert _scores(b, "question", q["216.3"])["score"].value == pytest.approx(2.5 / 9.25)
    assert _scores(a, "question", q["217.2"])["score"].value == 0.0
    assert _scores(b, "question", q["217.2"])["score"].value == pytest.approx(5 / 9.5)

    s = t["series"]
    assert _scores(a, "series", s["216"])["score"].value == pytest.approx(A_216)
    flagged = _scores(a, "series", s["217"])["score"]
    assert flagged.value == pytest.approx(A_217) and flagged.detail["missing"] == ["LIST"]
    assert _scores(b, "series", s["217"])["score"].value == pytest.approx(B_217)

    run_a, run_b = _scores(a, "run"), _scores(b, "run")
    assert run_a["score"].value == pytest.approx((A_216 + A_217) / 2)
    assert run_b["score"].value == pytest.approx((B_216 + B_217) / 2)
    assert run_a["factoid"].value == pytest.approx(0.5)
    assert run_a["list"].value == pytest.approx(4 / 7)
    assert run_a["other"].value == pytest.approx((6 / 7.95 + 0) / 2)
    assert run_a["nil_precision"].value is None  # runA never said NIL: "–"
    assert run_b["nil_precision"].value == 0.0  # one NIL, wrong
    assert run_b["nil_recall"].value is None  # no question's answer is NIL
    assert run_a["judged"].value == 1.0


def test_unjudged_scores_zero_and_completeness_shows_it():
    t = tiny_trec2007(judge=False)
    rescore_evaluation(t["evaluation"].id)
    run_a = _scores(t["runA"], "run")
    assert run_a["score"].value == 0.0
    assert run_a["judged"].value == 0.0
    # (the pool counts and the question lists are stored once per question and shown in the run's detail as
    # before: scoring.pool_counts)
    shown = Shown(t["evaluation"]).detail("run", None, "score", run_a["score"].detail)
    assert (shown["pool_judged"], shown["pool_items"]) == (0, 11)
    # nothing judged yet: 216.2 (S = 0 so far) is left out as unjudged, not as an empty final answer set
    assert shown["left_out_questions"] == []
    assert shown["unjudged_questions"] == ["216.1", "216.2", "216.3", "217.1", "217.2"]


def test_stale_question_recomputed_for_every_run_and_marks_cleared():
    t = tiny_trec2007()
    ev = t["evaluation"]
    rescore_evaluation(ev.id)
    # The assessor now finds runA's 217.1 answer correct too.
    j = Judgment.objects.get(item=t["items"]["f1"], kind="instance")
    with transaction.atomic():
        j.value = {"label": "globally-correct", "answer_class": None}
        j.save()
        mark_stale(t["q"]["217.1"])
    assert StaleTopic.objects.filter(topic=t["q"]["217.1"]).exists()
    assert rescore_stale_topics(ev.id) == 1
    assert not StaleTopic.objects.exists()
    assert _scores(t["runA"], "question", t["q"]["217.1"])["score"].value == 1.0
    assert _scores(t["runA"], "series", t["series"]["217"])["score"].value == pytest.approx(0.5)
    # series 216 untouched, run score follows: (A_216 + .5) / 2
    assert _scores(t["runA"], "run")["score"].value == pytest.approx((A_216 + 0.5) / 2)
    assert _scores(t["runA"], "run")["factoid"].value == pytest.approx(1.0)
    # nothing stale: a second task is a no-op
    assert rescore_stale_topics(ev.id) == 0
    assert freshness(ev)["stale_questions"] == 0
    assert ScoringState.objects.get(evaluation=ev).fresh_as_of is not None


def test_mark_changed_during_recomputation_survives():
    """A judgment saved while a recomputation runs moves changed_at on; that mark must not be cleared."""
    t = tiny_trec2007()
    ev = t["evaluation"]
    mark_stale(t["q"]["216.1"])
    from core import extension_points as ep

    inner = ep.scorer.require(ev.track)

    def scorer_that_sees_a_new_judgment(evaluation, topic_ids):
        batch = inner(evaluation, topic_ids)
        mark_stale(t["q"]["216.1"])  # a later judgment of the same question
        return batch

    ep.scorer.register(ev.track, scorer_that_sees_a_new_judgment)
    try:
        rescore_stale_topics(ev.id)
    finally:
        ep.scorer.register(ev.track, inner)
    assert StaleTopic.objects.filter(topic=t["q"]["216.1"]).exists()


def test_stale_series_recomputes_its_questions():
    t = tiny_trec2007()
    mark_stale(t["series"]["216"])
    assert rescore_stale_topics(t["evaluation"].id) == 3


def test_assessor_found_answer_enlarges_final_answer_set():
    t = tiny_trec2007()
    Judgment.objects.filter(item=t["items"]["l5"]).delete()  # the assessor's own answer unjudged: S = 2
    rescore_evaluation(t["evaluation"].id)
    # runA: D=2, N=4, S=2 -> IP .5, IR 1, F = 1/1.5
    assert _scores(t["runA"], "question", t["q"]["216.2"])["score"].value == pytest.approx(2 / 3)


def test_nil_is_correct_once_every_pooled_answer_is_judged_wrong():
    t = tiny_trec2007()
    Judgment.objects.filter(item=t["items"]["a1"]).update(value={"label": "incorrect", "answer_class": None})
    rescore_evaluation(t["evaluation"].id)
    assert _scores(t["runB"], "question", t["q"]["216.1"])["score"].value == 1.0
    run_b, run_a = _scores(t["runB"], "run"), _scores(t["runA"], "run")
    assert run_b["nil_precision"].value == 1.0  # 1 correct of 1 NIL returned
    assert run_b["nil_recall"].value == 1.0  # 1 of the 1 NIL question
    assert run_a["nil_recall"].value == 0.0 and run_a["nil_precision"].value is None


@pytest.mark.parametrize(
    "label, nil_right", [("non-exact", False), ("locally-correct", False), ("unsupported", True), ("incorrect", True)]
)
def test_nil_is_wrong_where_a_pooled_answer_shows_the_collection_holds_one(label, nil_right):
    """Seed 001: NIL is correct "only if there was no known answer to the question in the collection"; a response
    judged non-exact or locally correct found one, even though none was judged globally correct."""
    t = tiny_trec2007()
    Judgment.objects.filter(item=t["items"]["a1"]).update(value={"label": label, "answer_class": None})
    rescore_evaluation(t["evaluation"].id)
    assert _scores(t["runB"], "question", t["q"]["216.1"])["score"].value == (1.0 if nil_right else 0.0)


def test_nil_not_assumed_while_judging_is_incomplete():
    t = tiny_trec2007()
    Judgment.objects.filter(item=t["items"]["a1"]).delete()
    rescore_evaluation(t["evaluation"].id)
    assert _scores(t["runB"], "question", t["q"]["216.1"])["score"].value == 0.0


def test_ciqa_pyramid_f_and_recall_by_length_in_report():
    from accounts.models import Team
    from assess.models import Nugget
    from pooling.models import Evaluation, PoolItem, Run, RunEntry, Topic
    from scoring.reports import build_report
    from tracks.qa.synthetic import _user

    who = _user("ciqa-assessor")
    ev = Evaluation.objects.create(slug="ciqa", title="ciQA", track="trec2007-ciqa")
    team = Team.objects.create(name="UMD")
    run = Run.objects.create(evaluation=ev, team=team, tag="UMD07a", priority=1)
    topic = Topic.objects.create(evaluation=ev, ident="57", kind="CIQA")
    n1, n2 = (Nugget.objects.create(topic=topic, text=t, created_by=who) for t in ("ties", "money"))
    for i, (length, nugget) in enumerate([(105, n1), (130, n2)]):
        e = RunEntry.objects.create(run=run, topic=topic, line_no=i + 1, docid=f"D{i}", text="q" * length)
        item = PoolItem.objects.create(evaluation=ev, topic=topic, key=f"k{i}", docid=f"D{i}", text="q" * length)
        item.sources.add(e)
        Judgment.objects.create(
            evaluation=ev, topic=topic, kind="nugget_match", item=item, assessor=who, value={"nuggets": [nugget.id]}
        )
        Judgment.objects.create(
            evaluation=ev, topic=topic, kind="nugget_vote", nugget=nugget, assessor=who, value={"vote": "vital"}
        )
    rescore_evaluation(ev.id)
    # weights 1, 1; both matched: recall 1; length 235 >= allowance 200: P = 1 - 35/235 = 200/235
    # F = 10 * P * 1 / (9P + 1)
    p = 200 / 235
    assert _scores(run, "run")["score"].value == pytest.approx(10 * p / (9 * p + 1))
    curve = next(s for s in build_report(run).sections if s.title == "Recall by length")
    # the SPEC-NOTES example: points (150, .5) and (250, 1.0), carried forward between them
    assert [(r.key, r.value) for r in curve.rows] == [
        ("50", 0.0),
        ("100", 0.0),
        ("150", 0.5),
        ("200", 0.5),
        ("250", 1.0),
    ]


def test_trec2004_weighting_is_a_setting():
    t = tiny_trec2007()
    ev = t["evaluation"]
    ev.settings["series_weighting"] = "trec2004"
    ev.save()
    rescore_evaluation(ev.id)
    # series 216 of runA: .5 * factoid 1 + .25 * list 4/7 + .25 * Other 6/7.95
    expected = 0.5 * 1 + 0.25 * 4 / 7 + 0.25 * 6 / 7.95
    assert _scores(t["runA"], "series", t["series"]["216"])["score"].value == pytest.approx(expected)


def _stored(ev):
    """Every Score row of the evaluation, and each question's pool counts and flags (stored once per question)."""
    rows = {
        (r, s, t, m): (v, d)
        for r, s, t, m, v, d in Score.objects.filter(run__evaluation=ev).values_list(
            "run_id", "scope", "topic_id", "measure", "value", "detail"
        )
    }
    # (with what else it holds: a live pass must leave the flags the scores' details are shown with as a full one)
    for tid, *count in PoolCount.objects.filter(evaluation=ev).values_list(
        "topic_id", "judged", "items", "unpooled", "left_out"
    ):
        rows[("pool", "question", tid, "count")] = (None, count)
    return rows


def _from_scratch(ev):
    """What a full rescoring of an unscored evaluation stores (rolled back: the live scores stay)."""
    with transaction.atomic():
        Score.objects.filter(run__evaluation=ev).delete()
        PoolCount.objects.filter(evaluation=ev).delete()
        rescore_evaluation(ev.id)
        scratch = _stored(ev)
        transaction.set_rollback(True)
    return scratch


def _assert_live_equals_full(ev):
    live, full = _stored(ev), _from_scratch(ev)
    assert live.keys() == full.keys()
    for key, (value, detail) in full.items():
        # exactly: the run-level sums are kept exact, so a live pass stores the full rescoring's very numbers
        assert live[key][0] == value or (live[key][0] is None and value is None), key
        assert abs((live[key][0] or 0) - (value or 0)) <= 1e-12, key
        assert live[key][1] == detail, key


def _save(j, value):
    """A change through the judging pages' writer (version check, history, the stale mark)."""
    subject = {"item": j.item} if j.item_id else {"nugget": j.nugget}
    save_judgment(
        j.assessor, topic=j.topic, kind=j.kind, role=j.role, value=value, expected_version=j.version, **subject
    )
    j.refresh_from_db()


def test_live_passes_store_exactly_what_a_full_rescoring_stores():
    """Judgments saved through the judging writer, each batch scored by a live pass (the runs' stored sums updated
    from the recomputed series), leave every stored score equal to a full rescoring from scratch: labels, answer
    classes, a list question's final answer set emptied (left out), a factoid question turning NIL, nugget matches
    and votes (pyramid weights), and runs whose stored sums are missing or count a series deleted since."""
    from tracks.qa.synthetic import trec2007_sized

    ev = trec2007_sized(slug="agree", series=6, questions=40, runs=5, seed=3)
    rescore_evaluation(ev.id)
    judgments = Judgment.objects.filter(evaluation=ev).select_related("topic", "assessor", "item", "nugget")
    instance = list(judgments.filter(kind="instance").order_by("id"))

    def live_pass():
        assert rescore_stale_topics(ev.id) >= 1
        assert not StaleTopic.objects.filter(evaluation=ev).exists()
        _assert_live_equals_full(ev)

    # labels flipped in several series
    for j in instance[:40:4]:
        label = "incorrect" if j.value["label"] == "globally-correct" else "globally-correct"
        _save(j, {"label": label, "answer_class": j.value.get("answer_class")})
    live_pass()

    # a list question's correct answers moved between classes, then all judged wrong: S = 0, left out
    lst = next(j.topic for j in instance if j.topic.kind == "LIST")
    classes = list(lst.answer_classes.order_by("id").values_list("id", flat=True))
    for j in (j for j in instance if j.topic_id == lst.id):
        _save(j, {"label": "globally-correct", "answer_class": classes[-1]})
    live_pass()
    for j in (j for j in instance if j.topic_id == lst.id):
        _save(j, {"label": "incorrect", "answer_class": None})
    live_pass()
    left_out = Score.objects.filter(topic=lst, scope=Score.QUESTION, measure="score").values_list("value", flat=True)
    assert set(left_out) == {None}

    # a factoid question some run answered NIL: every pooled answer judged wrong, so its answer is NIL
    nil_q = next(
        q
        for q in {j.topic for j in instance if j.topic.kind == "FACTOID"}
        if q.run_entries.filter(docid="NIL").exists()
    )
    for j in (j for j in instance if j.topic_id == nil_q.id):
        _save(j, {"label": "incorrect", "answer_class": None})
    live_pass()
    nil_run = nil_q.run_entries.filter(docid="NIL").values_list("run_id", flat=True).first()
    assert Score.objects.get(run_id=nil_run, topic=nil_q, scope=Score.QUESTION, measure="score").value == 1.0
    recall = Score.objects.get(run_id=nil_run, topic__isnull=True, measure="nil_recall")
    assert recall.detail["nil_questions"] >= 1

    # nugget matches and votes of Other questions (the votes change the pyramid weights)
    matches = list(judgments.filter(kind="nugget_match").order_by("id")[:12:3])
    for j in matches:
        nuggets = list(j.topic.nuggets.order_by("id").values_list("id", flat=True))
        _save(j, {"nuggets": nuggets[:1] if j.value["nuggets"] != nuggets[:1] else nuggets[1:3]})
    for j in list(judgments.filter(kind="nugget_vote").order_by("id")[:30:5]):
        _save(j, {"vote": "okay" if j.value["vote"] == "vital" else "vital"})
    live_pass()

    # runs scored before their sums were stored, or whose sums count a series deleted since: summed again
    run_rows = Score.objects.filter(run__evaluation=ev, scope=Score.RUN, measure="score")
    first = run_rows.order_by("run_id").first()
    del first.detail["sums"]
    first.save()
    gone = Score.objects.filter(run__evaluation=ev, scope=Score.SERIES).order_by("id").first()
    Score.objects.filter(run_id=gone.run_id, scope=Score.SERIES, topic_id=gone.topic_id).delete()
    with transaction.atomic():
        mark_stale(instance[1].topic)
    assert rescore_stale_topics(ev.id) >= 1
    run_level = {
        (r, m): (v, d)
        for r, m, v, d in Score.objects.filter(run__evaluation=ev, scope=Score.RUN).values_list(
            "run_id", "measure", "value", "detail"
        )
    }
    # the deleted series row counts in neither: its run is summed from the series rows it has
    summed = run_level[(gone.run_id, "score")][1]
    assert summed["series"] == Score.objects.filter(run_id=gone.run_id, scope=Score.SERIES, measure="score").count()
    assert "sums" in run_level[(first.run_id, "score")][1]


def test_live_series_from_stored_sums_equal_a_full_rescoring_and_fall_back_when_they_do_not_fit(monkeypatch):
    """A live pass makes a recomputed series' other questions from the series' stored sums minus the stored rows of
    the questions it recomputes (tracks.qa.scorer.series_partials), not by reading every other question's row: the
    stored scores then equal a full rescoring's. Sums that are missing, or were made of other questions (one moved
    to another series, one retyped), are not used: the series is summed from its questions' rows again."""
    from pooling.models import Topic
    from tracks.qa import scorer
    from tracks.qa.synthetic import trec2007_sized

    ev = trec2007_sized(slug="sums", series=5, questions=30, runs=4, seed=9)
    rescore_evaluation(ev.id)
    instance = list(Judgment.objects.filter(evaluation=ev, kind="instance").select_related("topic", "assessor", "item"))
    summed_again = []
    every = scorer.stored_series_partials
    monkeypatch.setattr(scorer, "stored_series_partials", lambda *a: summed_again.append(a) or every(*a))

    def flip(judgments):
        for j in judgments:
            label = "incorrect" if j.value["label"] == "globally-correct" else "globally-correct"
            _save(j, {"label": label, "answer_class": None})
        assert rescore_stale_topics(ev.id) >= 1
        _assert_live_equals_full(ev)

    flip(instance[:60:5])  # several questions of several series, some twice
    assert summed_again == []  # every series from its stored sums

    # one run's sums of a series gone (scored before they were kept): that series is summed again, and keeps sums
    j = instance[7]
    series_id = j.topic.parent_id
    row = Score.objects.filter(scope=Score.SERIES, topic_id=series_id, measure="score").order_by("run_id").first()
    del row.detail["sums"]
    row.save()
    flip([j])
    assert len(summed_again) == 1
    assert (
        "sums"
        in Score.objects.get(pk=Score.objects.get(run_id=row.run_id, topic_id=series_id, scope=Score.SERIES).pk).detail
    )

    # a question moved to another series and one retyped, in place (a topics file reloaded): the sums no longer
    # describe those series' questions
    moved, retyped = (
        Topic.objects.filter(evaluation=ev, parent__isnull=False, kind=kind).order_by("id").first()
        for kind in ("FACTOID", "LIST")
    )
    other_series = Topic.objects.filter(evaluation=ev, parent__isnull=True).exclude(pk=moved.parent_id).first()
    Topic.objects.filter(pk=moved.pk).update(parent=other_series)
    Topic.objects.filter(pk=retyped.pk).update(kind="FACTOID")
    summed_again.clear()
    with transaction.atomic():
        mark_stale(moved)
        mark_stale(retyped)
        mark_stale(Topic.objects.get(pk=moved.parent_id))  # the series it left
    assert rescore_stale_topics(ev.id) >= 1
    assert summed_again
    _assert_live_equals_full(ev)


def test_a_live_pass_compares_with_the_rows_its_scorer_read_and_drops_rows_no_longer_produced():
    """The QA scorer hands store() the stored rows it read for its sums (ScoreBatch.stored): unchanged rows are
    kept with their ids, and rows of those scopes that the pass no longer produces (another measure) are deleted,
    as when store() read them itself."""
    from tracks.qa.scorer import score_qa

    t = tiny_trec2007(slug="handed")
    ev, q = t["evaluation"], t["q"]["216.2"]
    rescore_evaluation(ev.id)
    series = q.parent
    orphans = [
        Score.objects.create(run=t["runA"], scope=scope, topic=topic, measure="obsolete", value=1)
        for scope, topic in ((Score.QUESTION, q), (Score.SERIES, series))
    ]
    kept = Score.objects.get(run=t["runB"], scope=Score.QUESTION, topic=q, measure="score").pk
    batch = score_qa(ev, {q.id})
    assert q.id in batch.stored_question_ids and series.id in batch.stored_series_ids
    assert (t["runA"].id, Score.QUESTION, q.id, "obsolete") in batch.stored
    with transaction.atomic():
        mark_stale(q)
    assert rescore_stale_topics(ev.id) >= 1
    assert not Score.objects.filter(pk__in=[o.pk for o in orphans]).exists()
    assert Score.objects.get(run=t["runB"], scope=Score.QUESTION, topic=q, measure="score").pk == kept
    _assert_live_equals_full(ev)
