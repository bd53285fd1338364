"""Each question's pool counts are stored once (scoring.models.PoolCount), not in every run's question, series and
run rows (issue 32: they changed with every save, so a live pass rewrote every run's rows). Whatever reads them
must show what it showed when the rows held them: the API's scores (byte for byte), `score --json`'s tree, the
judging share, every run's report and its status. The same goes for what else says how far judging has got (a
question's unpooled answers and whether it is unjudged, their sums per series and run, and the lists of unjudged and
left-out questions), made from each question's stored flags since (PoolCount.unpooled, .left_out). The old shape is made
from the new one by putting what is shown back into the rows (what the scorer stored before:
tests/test_scoring_full_unchanged.py checks the shown rows against the rows the old scorer stored), and the
migrations must turn it back into the new shape exactly."""

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.urls import reverse
from rest_framework.test import APIClient

from api.tokens import create_token
from assess.judging import save_judgment
from assess.models import Judgment
from pooling.models import Run, RunEntry
from scoring.models import PoolCount, Score
from scoring.pool_counts import Shown
from scoring.reports import build_report
from scoring.rescore import rescore_evaluation, rescore_stale_topics
from scoring.results import evaluation_judging, run_judging, score_tree
from tracks.qa.synthetic import trec2007_sized

pytestmark = pytest.mark.django_db
MIGRATIONS = (
    (importlib.import_module("scoring.migrations.0007_pool_counts"), "move_counts"),
    (importlib.import_module("scoring.migrations.0008_pool_count_flags"), "move_flags"),
    (importlib.import_module("scoring.migrations.0009_judging_counts_leave_rows"), "move_out"),
)
MOVED = ("pool", "unpooled", "unjudged", "pool_items", "questions_judged", "unjudged_questions")


def _stored(ev):
    rows = sorted(
        Score.objects.filter(run__evaluation=ev).values_list("pk", "value", "detail", "computed_at"),
        key=lambda r: r[0],
    )
    counts = sorted(
        PoolCount.objects.filter(evaluation=ev).values_list("topic_id", "judged", "items", "unpooled", "left_out")
    )
    return rows, counts


def _shown(ev, organizer):
    """Everything that shows the counts, as its readers give it."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(organizer)}")
    api, url = [], reverse("api:scores", args=[ev.slug])
    while url:
        response = client.get(url)
        assert response.status_code == 200
        api.append(response.content)  # (bytes: the detail's keys in the order they came before)
        url = response.json()["next"]
    runs = Run.objects.filter(evaluation=ev).order_by("tag")
    reports = []
    for run in runs:
        report = build_report(run)
        reports.append((report, report.status, run_judging(run).as_dict()))
    return api, score_tree(ev), evaluation_judging(ev).as_dict(), reports


def _to_old_shape(ev):
    """The rows as the scorer stored them before the counts and the lists moved: every run's rows holding them."""
    shown = Shown(ev)
    for pk, scope, topic_id, measure, detail in Score.objects.filter(run__evaluation=ev).values_list(
        "pk", "scope", "topic_id", "measure", "detail"
    ):
        old = shown.detail(scope, topic_id, measure, detail)
        if old != detail:
            Score.objects.filter(pk=pk).update(detail=old)  # (computed_at kept: update() leaves it)
    PoolCount.objects.filter(evaluation=ev).delete()


class _Elsewhere:
    """A schema editor whose database is not PostgreSQL: the migration's row-by-row path (the demo's SQLite)."""

    class connection:
        vendor = "sqlite"


def _migrate(sql):
    for module, name in MIGRATIONS:
        if not sql or connection.vendor != "postgresql":  # (SQLite's schema editor refuses a test's transaction)
            getattr(module, name)(apps, _Elsewhere())
            continue
        with connection.schema_editor() as editor:
            getattr(module, name)(apps, editor)


def _holding(ev, key, scope=None):
    rows = Score.objects.filter(run__evaluation=ev, detail__has_key=key)
    return rows.filter(scope=scope) if scope else rows


def _check_reads_as_before_and_migrates_back(ev, organizer, sql=True):
    new, shown = _stored(ev), _shown(ev, organizer)
    assert new[1] and not any(_holding(ev, key).exists() for key in MOVED)
    runs = Score.objects.filter(run__evaluation=ev, scope=Score.RUN, measure="score").values_list("detail", flat=True)
    assert runs and not any({"unpooled", "questions_judged", "pool_items"} & set(d["sums"]["counts"]) for d in runs)
    _to_old_shape(ev)
    for key, scopes in (("pool", [Score.QUESTION]), ("unjudged", [Score.QUESTION]), ("pool_items", [Score.RUN])):
        assert all(_holding(ev, key, scope).exists() for scope in scopes)
    for key in ("unpooled", "questions_judged", "unjudged_questions"):
        assert all(_holding(ev, key, scope).exists() for scope in (Score.SERIES, Score.RUN))
    assert _shown(ev, organizer) == shown
    _migrate(sql)
    assert _stored(ev) == new
    assert _shown(ev, organizer) == shown
    # and back one step (0009's reverse: the sums and flags put back in the rows from PoolCount), and forward again
    MIGRATIONS[-1][0].put_back(apps, None)
    assert _holding(ev, "unjudged", Score.QUESTION).exists() and _holding(ev, "questions_judged", Score.RUN).exists()
    if connection.vendor == "postgresql":  # (SQLite shows the keys put back in another order)
        assert _shown(ev, organizer) == shown
    MIGRATIONS[-1][0].move_out(apps, _Elsewhere())
    assert _stored(ev) == new


def test_counts_read_as_when_every_run_held_them_after_a_full_rescoring_and_live_passes(make_user):
    organizer = make_user("org", "organizer")
    ev = trec2007_sized(slug="pool-counts", series=4, questions=24, runs=4, seed=4)
    # some items unjudged: reports say "k of n judged" from the counts, the judging share is below 1
    judgments = Judgment.objects.filter(evaluation=ev, kind="instance").order_by("id")
    first = judgments.filter(topic__kind="LIST").first()
    judgments.filter(pk__in=judgments.filter(topic=first.topic).values("pk")[:3]).delete()
    rescore_evaluation(ev.id)
    assert evaluation_judging(ev).judged < evaluation_judging(ev).items
    _check_reads_as_before_and_migrates_back(ev, organizer)

    # live passes: labels flipped and answers judged anew change some runs' scores and the counts of their questions
    instance = list(judgments.select_related("topic", "assessor", "item"))
    for j in instance[:30:3]:
        label = "incorrect" if j.value["label"] == "globally-correct" else "globally-correct"
        save_judgment(
            j.assessor,
            topic=j.topic,
            kind=j.kind,
            role=j.role,
            value={"label": label, "answer_class": j.value.get("answer_class")},
            expected_version=j.version,
            item=j.item,
        )
    before = dict(PoolCount.objects.filter(evaluation=ev).values_list("topic_id", "judged"))
    unjudged = first.topic.pool_items.exclude(judgments__kind="instance").first()
    save_judgment(
        first.assessor,
        topic=first.topic,
        kind="instance",
        role=Judgment.PRIMARY,
        value={"label": "incorrect", "answer_class": None},
        expected_version=0,
        item=unjudged,
    )
    assert rescore_stale_topics(ev.id) >= 1
    assert PoolCount.objects.get(topic=first.topic).judged == before[first.topic_id] + 1
    _check_reads_as_before_and_migrates_back(ev, organizer, sql=False)


def _keyed(ev):
    return {
        (r, scope, t, m): pk
        for pk, r, scope, t, m in Score.objects.filter(run__evaluation=ev).values_list(
            "pk", "run_id", "scope", "topic_id", "measure"
        )
    }


def _unjudged(question):
    count = PoolCount.objects.get(topic=question)
    return count.judged < count.items or count.unpooled > 0


@pytest.mark.parametrize("completes", [False, True], ids=["question-stays-unjudged", "question-fully-judged"])
def test_a_live_pass_rewrites_only_the_rows_of_runs_whose_numbers_changed(completes):
    """A save changes its question's count for every run but the scores only of the runs holding the answer: the
    other runs' rows stay as they were (same row ids: not deleted and written again). So when the save is the
    question's last unjudged item: it is then fully judged in every run, which changes no other run's score."""
    ev = trec2007_sized(slug="pool-writes", series=4, questions=24, runs=4, seed=9)
    judgments = Judgment.objects.filter(evaluation=ev, kind="instance", topic__kind="FACTOID").select_related(
        "topic", "assessor", "item"
    )
    # an answer few runs hold (of a question with another answer left unjudged, so that it stays unjudged)
    j = min(judgments, key=lambda j: (j.item.sources.count(), j.pk))
    other = judgments.filter(topic=j.topic).exclude(pk=j.pk).first()
    holders = set(j.item.sources.values_list("run_id", flat=True))
    assert 0 < len(holders) < Run.objects.filter(evaluation=ev).count()
    value = dict(j.value)
    Judgment.objects.filter(pk__in=[j.pk] if completes else [j.pk, other.pk]).delete()
    rescore_evaluation(ev.id)
    before, judged = _keyed(ev), PoolCount.objects.get(topic=j.topic).judged
    assert _unjudged(j.topic)

    save_judgment(j.assessor, topic=j.topic, kind=j.kind, role=j.role, value=value, expected_version=0, item=j.item)
    assert rescore_stale_topics(ev.id) >= 1
    assert PoolCount.objects.get(topic=j.topic).judged == judged + 1
    assert _unjudged(j.topic) is not completes
    after = _keyed(ev)
    assert after.keys() == before.keys()
    rewritten = {key[0] for key in before if after[key] != before[key]}
    # (before issue 32's moves every run's rows were rewritten: for the count, and for the question fully judged)
    assert rewritten and rewritten <= holders


def test_a_runs_lists_of_unjudged_and_left_out_questions_are_made_from_each_questions_flags(make_user):
    """Every run's and series' "score" showed its unjudged questions (an item unjudged, or an answer of a judged run
    no pool item holds) and its left-out ones (a list question judged to have no correct answer); the rows no longer
    hold the lists (a live pass rewrote them in every run), each question's flags do, and the lists read as before
    and follow a live pass: a question fully judged leaves the unjudged list, and its emptiness is shown then."""
    organizer = make_user("org", "organizer")
    ev = trec2007_sized(slug="pool-flags", series=3, questions=18, runs=3, seed=8)
    judgments = Judgment.objects.filter(evaluation=ev, kind="instance").order_by("id")
    lists = judgments.filter(topic__kind="LIST").select_related("topic", "assessor", "item")
    empty = lists.first().topic  # every answer incorrect: no correct answer, its score left out of the series
    judgments.filter(topic=empty).update(value={"label": "incorrect", "answer_class": None})
    last = judgments.filter(topic=empty).last()
    judgments.filter(pk=last.pk).delete()  # ... once its last answer is judged
    factoid = judgments.filter(topic__kind="FACTOID").last().topic
    run = Run.objects.filter(evaluation=ev).order_by("tag").first()
    RunEntry.objects.create(run=run, topic=factoid, line_no=9999, docid="XIE19990101.0001", text="not pooled")
    rescore_evaluation(ev.id)

    def shown_lists():
        details = [run_judging(r).as_dict() for r in Run.objects.filter(evaluation=ev)]
        assert all(d == details[0] for d in details)  # (the same in every run)
        tree = score_tree(ev)
        left_out = {tag: t["run_detail"]["left_out_questions"] for tag, t in tree.items()}
        assert len(set(map(tuple, left_out.values()))) == 1
        series = {tag: t["series"][empty.parent.ident]["detail"] for tag, t in tree.items()}
        in_series = {(tuple(d["unjudged_questions"]), tuple(d["left_out_questions"])) for d in series.values()}
        assert len(in_series) == 1
        return details[0]["unjudged_questions"], next(iter(left_out.values())), *next(iter(in_series))

    same_series = factoid.parent_id == empty.parent_id
    unjudged_in_series = tuple(sorted([empty.ident] + [factoid.ident] * same_series))
    assert shown_lists() == (sorted([empty.ident, factoid.ident]), [], unjudged_in_series, ())
    assert not Score.objects.filter(run__evaluation=ev, scope=Score.RUN, detail__has_key="unjudged_questions").exists()
    assert PoolCount.objects.get(topic=factoid).unpooled == 1
    _check_reads_as_before_and_migrates_back(ev, organizer)

    save_judgment(
        last.assessor,
        topic=empty,
        kind="instance",
        role=last.role,
        value={"label": "incorrect", "answer_class": None},
        expected_version=0,
        item=last.item,
    )
    assert rescore_stale_topics(ev.id) >= 1
    assert shown_lists() == ([factoid.ident], [empty.ident], (factoid.ident,) * same_series, (empty.ident,))
    assert PoolCount.objects.get(topic=empty).left_out
    _check_reads_as_before_and_migrates_back(ev, organizer, sql=False)
