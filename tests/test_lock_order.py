"""Saves, adjudication and rescoring never deadlock.

The cycle found under load: an adjudication locked its pool item with SELECT ... FOR UPDATE, and the pool item's
default ordering (by topic) joined pooling_topic, so the topic row was locked too. Rescoring, committing, checked
its new Score rows' foreign keys (FOR KEY SHARE on the topic; scoring.rescore.store now takes that lock itself)
and waited for the adjudication, which waited for the stale mark the rescoring had deleted. Every row lock now
names its own table (FOR UPDATE OF), so a lock taken while judging never reaches a row rescoring references.
"""

import threading
import time
from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from assess import judging
from assess.models import Assignment, Invitation, Judgment
from config import patience
from pooling.staleness import rescoring_deferred
from scoring.rescore import rescore_evaluation, rescore_stale_topics
from tracks.qa import adjudication, instance_judging, nugget_judging, questions
from tracks.qa.sample import build_sample

pytestmark = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="row locks are PostgreSQL's")
User = get_user_model()


@contextmanager
def held_in_thread(work):
    """Run `work(pause)` in a thread of its own (its own connection) and enter the block once it calls pause(),
    which holds it there until the block ends. The thread must reach pause() and raise nothing."""
    holding, release, failures, paused = threading.Event(), threading.Event(), [], []

    def pause():
        paused.append(True)
        holding.set()
        patience.wait_until(release.is_set, 30, 0.01)  # (a busy machine takes longer over the block)

    def run():
        try:
            work(pause)
        except Exception as error:  # pragma: no cover - reported below
            failures.append(error)
        finally:
            holding.set()
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        assert patience.wait_until(holding.is_set, 10, 0.01)
        assert failures == [] and paused, "the thread ended without reaching its pause"
        yield
    finally:
        release.set()
        thread.join()
    assert failures == []


def _double_judged(make_user, n_series=1):
    sample = build_sample(slug="locks", n_series=n_series)
    ann, bob = make_user("ann", "assessor"), make_user("bob", "assessor")
    disputed = []
    for series in sample.series:
        Assignment.objects.create(evaluation=sample.evaluation, topic=series, assessor=ann)
        Assignment.objects.create(evaluation=sample.evaluation, topic=series, assessor=bob, role=Assignment.SECONDARY)
    with rescoring_deferred():  # one in-process pass after these saves, not one per save (~0.15 s each)
        for ident, items in sample.items.items():
            if not questions.is_instance_question(sample.questions[ident]):
                continue
            for item in items:
                if questions.is_nil(item):
                    continue
                instance_judging.judge_instance(ann, judging.load_item(ann, item.pk), "incorrect", 0)
                instance_judging.judge_instance(bob, judging.load_item(bob, item.pk), "globally-correct", 0)
                disputed.append(item)
    cy = make_user("cy", "assessor")
    judging.invite(make_user("org", "organizer"), sample.evaluation, cy, Invitation.ADJUDICATOR)
    return sample, disputed, cy


@pytest.mark.django_db(transaction=True)
def test_an_adjudication_in_progress_leaves_the_topic_and_evaluation_free(make_user):
    sample, disputed, cy = _double_judged(make_user)
    item = disputed[0]

    def adjudicate(pause):
        with transaction.atomic():
            judging.claim_decision(cy, item, "instance")
            pause()

    with held_in_thread(adjudicate):
        with transaction.atomic(), connection.cursor() as cursor:
            # what rescoring takes on the rows its Score and stale-mark rows reference; NOWAIT fails
            # at once if the adjudication holds them
            for table, pk in (("pooling_topic", item.topic_id), ("pooling_evaluation", item.evaluation_id)):
                cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR KEY SHARE NOWAIT", [pk])
            # the item itself is locked: a second decider waits for the first
            with pytest.raises(Exception, match="could not obtain lock"):
                with transaction.atomic():
                    cursor.execute("SELECT 1 FROM pooling_poolitem WHERE id = %s FOR UPDATE NOWAIT", [item.pk])


@pytest.mark.django_db(transaction=True)
def test_every_row_lock_taken_while_judging_names_its_table(make_user, monkeypatch):
    """FOR UPDATE without OF locks every joined table's rows: default orderings by a foreign key join quietly."""
    from assess import fastsave

    sample, disputed, cy = _double_judged(make_user)
    monkeypatch.setattr(fastsave, "available", lambda: False)  # the ORM path takes the row locks itself
    other = sample.questions["1.3"]
    nugget = nugget_judging.create_nugget(User.objects.get(username="ann"), other, "founded by Coco Chanel")
    with CaptureQueriesContext(connection) as queries:
        adjudication.adjudicate(cy, judging.load_item(cy, disputed[0].pk), "globally-correct", 0)
        adjudication.adjudicate(cy, judging.load_item(cy, disputed[0].pk), "incorrect", 1)
        nugget_judging.reorder_nuggets(User.objects.get(username="ann"), other, [nugget.pk])
        nugget_judging.delete_nugget(User.objects.get(username="ann"), nugget, confirmed=True)
        rescore_stale_topics(sample.evaluation.pk)
    locks = [q["sql"] for q in queries.captured_queries if "FOR UPDATE" in q["sql"]]
    assert len(locks) >= 4
    assert [sql for sql in locks if "FOR UPDATE OF" not in sql] == []


@pytest.mark.django_db(transaction=True)
def test_adjudications_during_rescoring_are_all_stored(make_user):
    """Two adjudicators decide and re-decide disputed items while rescoring runs pass after pass: no request
    fails, and every acknowledged decision is the one stored."""
    sample, disputed, cy = _double_judged(make_user, n_series=6)
    rescore_evaluation(sample.evaluation.pk)
    stop = threading.Event()
    errors, acknowledged, passes = [], {}, [0]

    def rescoring():
        try:
            while not stop.is_set():
                rescore_stale_topics(sample.evaluation.pk)
                passes[0] += 1
        except Exception as error:
            errors.append(repr(error))
        finally:
            connections.close_all()

    def adjudicating(share):
        # The rescoring thread is the worker here: the decisions' own requests for a pass wait until the thread
        # ends (in-process mode would otherwise run a whole pass inside every decision, as no deployment does).
        try:
            version = {}
            with rescoring_deferred():
                while not stop.is_set():
                    for item in share:
                        if stop.is_set():
                            break
                        v = version.get(item.pk, 0)
                        label = "incorrect" if v % 2 else "globally-correct"
                        saved = adjudication.adjudicate(cy, judging.load_item(cy, item.pk), label, v)
                        version[item.pk] = saved.judgment.version
                        acknowledged[item.pk] = (saved.judgment.version, label)
        except Exception as error:
            errors.append(repr(error))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=rescoring)] + [
        threading.Thread(target=adjudicating, args=(disputed[k::2],)) for k in (0, 1)
    ]
    for thread in threads:
        thread.start()
    # Six seconds of both at once, and at least one pass and every item decided (a busy machine takes longer).
    started = time.monotonic()
    patience.wait_until(
        lambda: errors or (time.monotonic() - started > 6 and passes[0] and len(acknowledged) == len(disputed)), 60
    )
    stop.set()
    for thread in threads:
        thread.join()
    assert errors == []
    assert passes[0] > 0 and len(acknowledged) == len(disputed)
    stored = {j.item_id: (j.version, j.value["label"]) for j in Judgment.objects.filter(role=Judgment.ADJUDICATED)}
    assert stored == acknowledged


@pytest.mark.django_db(transaction=True)
def test_a_save_of_the_question_being_rescored_never_waits_for_the_pass(make_user, monkeypatch):
    """A pass held up just before its commit (as a niced worker is, when saves keep the cores busy) holds nothing
    a save needs: the save of the question it is rescoring upserts that question's stale mark at once, and the
    mark, changed since the pass read it, stays for the next pass."""
    from pooling.models import StaleTopic
    from scoring.models import ScoringState

    sample, disputed, cy = _double_judged(make_user)
    ann = User.objects.get(username="ann")
    item = disputed[0]
    rescore_evaluation(sample.evaluation.pk)
    version = Judgment.objects.get(item=item, assessor=ann).version
    monkeypatch.setattr(judging, "request_rescoring", lambda evaluation_id: None)  # (eager tasks): the thread scores
    instance_judging.judge_instance(ann, judging.load_item(ann, item.pk), "non-exact", version)
    real_save = ScoringState.save
    pauses = []

    def paused_save(self, *args, **kwargs):  # the thread's pass: its last statement before its commit
        if pauses:
            pauses.pop()()
        return real_save(self, *args, **kwargs)

    monkeypatch.setattr(ScoringState, "save", paused_save)

    def rescore(pause):
        pauses.append(pause)
        rescore_stale_topics(sample.evaluation.pk)

    with held_in_thread(rescore):
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '1s'")  # with the marks locked by the pass, this save would fail
        try:
            saved = instance_judging.judge_instance(ann, judging.load_item(ann, item.pk), "incorrect", version + 1)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET lock_timeout")
        assert saved.changed
    assert StaleTopic.objects.filter(topic_id=item.topic_id).exists()  # the save's mark outlived the pass
    rescore_stale_topics(sample.evaluation.pk)
    assert not StaleTopic.objects.filter(topic_id=item.topic_id).exists()
