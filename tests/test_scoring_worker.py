"""Live rescoring through a real Celery worker, and judging that goes on while the broker is unreachable."""

import logging

import pytest
from django.db import transaction

from assess.models import Judgment
from config import patience
from pooling.models import StaleTopic
from pooling.staleness import mark_stale, wait_for_publisher
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tracks.qa.synthetic import tiny_trec2007


def _value(run, topic):
    s = Score.objects.filter(run=run, scope="question", topic=topic, measure="score").first()
    return s.value if s else None


def _save_judgment(t, label):
    j = Judgment.objects.get(item=t["items"]["f1"], kind="instance")
    with transaction.atomic():
        j.value = {"label": label, "answer_class": None}
        j.version += 1
        j.save()
        mark_stale(t["q"]["217.1"])


@pytest.mark.worker
def test_saved_judgment_updates_score_through_worker(transactional_db, celery_worker):
    from scoring.tasks import rescore_evaluation as full_task

    t = tiny_trec2007(slug="worker-live")
    assert full_task.delay(t["evaluation"].id).get(timeout=patience.scaled(60)) == 5  # the whole evaluation is one task
    assert _value(t["runA"], t["q"]["217.1"]) == 0.0
    _save_judgment(t, "globally-correct")
    rescored = patience.wait_until(lambda: _value(t["runA"], t["q"]["217.1"]) == 1.0, 60)
    assert rescored, "the worker did not rescore the judged question"
    run_score = Score.objects.get(run=t["runA"], scope="run", measure="score")
    assert run_score.value == pytest.approx(((1 + 4 / 7 + 6 / 7.95) / 3 + 0.5) / 2)
    assert patience.wait_until(lambda: not StaleTopic.objects.filter(evaluation=t["evaluation"]).exists(), 30)


def test_judging_goes_on_with_broker_unreachable(db, django_capture_on_commit_callbacks, caplog, monkeypatch):
    from config.celery import app
    from pooling import staleness

    monkeypatch.setattr(staleness, "_broker_warned_at", None)  # another test may have warned a moment ago
    caplog.set_level(logging.DEBUG, logger="pooling.staleness")

    t = tiny_trec2007(slug="broker-down")
    rescore_evaluation(t["evaluation"].id)
    saved = {k: app.conf[k] for k in ("broker_url", "broker_write_url", "task_always_eager")}
    try:
        app.conf.task_always_eager = False
        app.conf.broker_url = app.conf.broker_write_url = "redis://127.0.0.1:9/0"  # nothing listens there
        app._pool, app.amqp._producer_pool = None, None
        with django_capture_on_commit_callbacks(execute=True):
            _save_judgment(t, "globally-correct")
        assert wait_for_publisher(timeout=patience.scaled(60))
    finally:
        for k, v in saved.items():
            app.conf[k] = v
        app._pool, app.amqp._producer_pool = None, None
    # The judgment is saved, the question is still marked stale, the score waits.
    assert Judgment.objects.get(item=t["items"]["f1"], kind="instance").value["label"] == "globally-correct"
    assert StaleTopic.objects.filter(topic=t["q"]["217.1"]).exists()
    assert _value(t["runA"], t["q"]["217.1"]) == 0.0
    warned = [r for r in caplog.records if "could not enqueue rescoring" in r.getMessage()]
    assert [r.levelname for r in warned] == ["WARNING"] and warned[0].exc_info
    # When the broker is back the catch-up sweep scores it (tasks in-process here).
    from scoring.tasks import sweep_stale

    sweep_stale.delay()
    assert _value(t["runA"], t["q"]["217.1"]) == 1.0
    assert not StaleTopic.objects.exists()


def test_a_broker_that_stays_down_is_logged_with_a_traceback_once_a_minute(caplog, monkeypatch):
    from pooling import staleness

    monkeypatch.setattr(staleness, "_broker_warned_at", None)
    caplog.set_level(logging.DEBUG, logger="pooling.staleness")
    for evaluation_id, at in ((1, 1000.0), (2, 1030.0), (3, 1059.0), (4, 1061.0)):
        try:
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379")
        except ConnectionError:
            staleness._broker_down(evaluation_id, now=at)
    levels = [(r.levelname, r.exc_info is not None) for r in caplog.records]
    assert levels == [("WARNING", True), ("DEBUG", False), ("DEBUG", False), ("WARNING", True)]


def test_the_gap_between_passes_widens_with_the_pass_before_it_within_its_bounds(settings):
    """Saves arriving fast make long passes: the next one waits a multiple of the last (fewer, larger passes),
    never less than SCORING_PASS_GAP_MS, and never so long that the gap and two such passes exceed
    SCORING_FRESHNESS_MS (a save waits at most that)."""
    from scoring.tasks import pass_gap

    settings.SCORING_PASS_GAP_MS, settings.SCORING_FRESHNESS_MS, settings.SCORING_PASS_GAP_PERCENT = 250, 1500, 200
    assert pass_gap(0.01, settings) == 0.25  # a short pass (a few saves): the floor
    assert pass_gap(0.2, settings) == pytest.approx(0.4)
    assert pass_gap(0.4, settings) == pytest.approx(0.7)  # 0.8 would make gap + 2 passes 1.6 s
    assert pass_gap(2.0, settings) == 0.25  # a long pass (or a starved worker): the floor, freshness first
    settings.SCORING_PASS_GAP_PERCENT = 0  # the fixed gap of before
    assert pass_gap(0.3, settings) == 0.25
