"""The bulk readers scoring uses agree with assess.official's, and storing keeps identical rows untouched."""

import threading

import pytest
from django.db import connection, connections, transaction

from assess.models import Judgment
from assess.official import nugget_vote_sets, nugget_votes, official_fields, official_values
from scoring.models import PoolCount, Score
from scoring.rescore import rescore_evaluation, store
from tracks.qa.scorer import score_qa
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db


def test_official_fields_follow_adjudication_like_official_values(make_user):
    t = tiny_trec2007()
    q = t["q"]["216.2"]
    item = t["items"]["l4"]  # primary: incorrect
    Judgment.objects.create(
        evaluation=t["evaluation"],
        topic=q,
        kind="instance",
        item=item,
        assessor=make_user("adj", "assessor"),
        role=Judgment.ADJUDICATED,
        value={"label": "globally-correct", "answer_class": t["classes"]["c3"].id},
    )
    full = official_values([q.id], "instance")
    fields = official_fields([q.id], "instance", "label", "answer_class")
    assert set(fields) == set(full)
    for subject, value in full.items():
        cls = value.get("answer_class")
        assert fields[subject] == (value["label"], None if cls is None else str(cls))
    assert fields[item.id] == ("globally-correct", str(t["classes"]["c3"].id))


def test_nugget_vote_sets_are_official_votes_and_every_vote():
    t = tiny_trec2007()
    qid = t["q"]["216.3"].id
    official, votes = nugget_vote_sets([qid])
    assert official == {n: v["vote"] for n, v in official_values([qid], "nugget_vote").items()}
    assert {n: sorted(v) for n, v in votes.items()} == {n: sorted(v) for n, v in nugget_votes([qid]).items()}
    assert sorted(votes[t["nuggets"]["n2"].id]) == ["okay", "okay", "vital"]


def test_store_writes_only_changed_rows_and_drops_rows_no_longer_produced():
    t = tiny_trec2007()
    ev = t["evaluation"]
    rescore_evaluation(ev.id)
    before = {s.pk: s.computed_at for s in Score.objects.filter(run__evaluation=ev)}
    assert store(ev, score_qa(ev, None)) == 0  # nothing changed: nothing written, the rows keep their ids
    assert {s.pk: s.computed_at for s in Score.objects.filter(run__evaluation=ev)} == before

    # runA's wrong list answer becomes the assessor's class c3 (already in S): runA's 216.2 row changes, runB's
    # (S = 3 still, its one answer unchanged) is kept as it was
    Judgment.objects.filter(item=t["items"]["l4"]).update(
        value={"label": "globally-correct", "answer_class": t["classes"]["c3"].id}
    )
    q = t["q"]["216.2"]
    kept = Score.objects.get(run=t["runB"], scope=Score.QUESTION, topic=q, measure="score").pk
    written = store(ev, score_qa(ev, {q.id}))
    assert written > 0
    assert Score.objects.get(run=t["runA"], scope=Score.QUESTION, topic=q, measure="score").detail["D"] == 3
    assert Score.objects.get(run=t["runB"], scope=Score.QUESTION, topic=q, measure="score").pk == kept
    assert len(before) == Score.objects.filter(run__evaluation=ev).count()

    orphan = Score.objects.create(run=t["runA"], scope=Score.QUESTION, topic=q, measure="obsolete", value=1)
    store(ev, score_qa(ev, {q.id}))
    assert not Score.objects.filter(pk=orphan.pk).exists()


def test_rescore_task_takes_marks_that_arrive_during_its_pass_at_once(monkeypatch):
    """Outside eager mode the task passes again while marks remain, instead of waiting for the task they queued."""
    from config.celery import app
    from core import rescoring_claims as pending
    from pooling.models import StaleTopic
    from pooling.staleness import mark_stale
    from scoring import rescore, tasks

    t = tiny_trec2007()
    ev = t["evaluation"]
    rescore_evaluation(ev.id)
    eager = app.conf.task_always_eager
    released = []
    monkeypatch.setattr(pending, "release", released.append)
    real = rescore.rescore_stale_topics
    passes = []

    def one_pass(evaluation_id):
        done = real(evaluation_id)
        if not passes:  # a judgment saved while the first pass ran
            mark_stale(t["q"]["217.2"])
        passes.append(done)
        return done

    monkeypatch.setattr(rescore, "rescore_stale_topics", one_pass)
    mark_stale(t["q"]["216.1"])
    app.conf.task_always_eager = False  # (on_commit never runs inside the test's transaction: nothing is queued)
    try:
        total = tasks.rescore_stale.run(ev.id)
    finally:
        app.conf.task_always_eager = eager
    assert total == 2
    assert passes == [1, 1]
    assert released == [ev.id]  # the claim is given back once, before the first pass reads the marks
    assert not StaleTopic.objects.filter(evaluation=ev).exists()


def test_rows_of_a_run_or_topic_deleted_before_storing_are_not_written():
    """Score has no foreign-key constraints in the database: store() writes no row for a run or question that was
    deleted after the scorer read it (the constraint's check would have failed the whole rescoring)."""
    t = tiny_trec2007()
    ev = t["evaluation"]
    batch = score_qa(ev, None)
    gone_run, gone_q = t["runB"].id, t["q"]["216.2"].id
    assert any(r.topic_id == gone_q for r in batch.rows)
    t["runB"].delete()
    Judgment.objects.filter(topic_id=gone_q).delete()
    t["q"]["216.2"].delete()
    written = store(ev, batch)
    kept = [r for r in batch.rows if r.run_id != gone_run and r.topic_id != gone_q]
    assert written == len(kept) == Score.objects.filter(run__evaluation=ev).count()
    assert not Score.objects.filter(run_id=gone_run).exists()
    assert not Score.objects.filter(topic_id=gone_q).exists()
    # nor a pool count (stored once per question: scoring.models.PoolCount) for the deleted question
    assert set(PoolCount.objects.filter(evaluation=ev).values_list("topic_id", flat=True)) == {
        tid for tid in batch.pool_counts if tid != gone_q
    }


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="row locks are PostgreSQL's")
def test_store_holds_its_runs_and_topics_against_deletion_until_commit():
    """What the foreign-key checks took: the runs and topics of the rows written are locked FOR KEY SHARE until
    the rescoring commits, so a deleter (which locks them FOR UPDATE first) waits and then removes the new rows."""
    t = tiny_trec2007()
    ev = t["evaluation"]
    question = t["q"]["216.2"]
    seen = {}

    def other_transaction():
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                for table, pk in (("pooling_run", t["runA"].id), ("pooling_topic", question.id)):
                    try:
                        with transaction.atomic():
                            cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE NOWAIT", [pk])
                        seen[table] = "free"
                    except Exception as refused:
                        seen[table] = str(refused)
        finally:
            connections.close_all()

    with transaction.atomic():
        assert store(ev, score_qa(ev, None)) > 0
        thread = threading.Thread(target=other_transaction)
        thread.start()
        thread.join()
    assert "could not obtain lock" in seen["pooling_run"]
    assert "could not obtain lock" in seen["pooling_topic"]
