"""Loading a run and rebuilding pools change what scores are computed from, so they mark questions stale, and
the stale-question rescoring (not only a full rescoring) then scores the new run."""

import pytest

from pooling.models import StaleTopic, Topic
from pooling.pools import build_pools
from scoring.models import Score
from scoring.rescore import rescore_stale_topics
from tests.test_pooling_loading import blog, tac  # noqa: F401 (fixtures)
from tests.test_pooling_pools import VALID, load

pytestmark = pytest.mark.django_db


def stale(evaluation):
    return set(StaleTopic.objects.filter(evaluation=evaluation).values_list("topic__ident", flat=True))


def test_loading_a_run_marks_every_question_and_the_stale_rescoring_scores_it(tac):
    assert stale(tac) == set()
    run = load(tac, "A1", 1)
    assert stale(tac) == set(Topic.objects.filter(evaluation=tac).values_list("ident", flat=True))
    assert not Score.objects.filter(run=run).exists()
    assert rescore_stale_topics(tac.id) > 0
    assert stale(tac) == set()
    assert Score.objects.filter(run=run, scope=Score.RUN, measure="score").exists()
    questions = Topic.objects.filter(evaluation=tac).exclude(kind="series").count()
    assert Score.objects.filter(run=run, scope=Score.QUESTION, measure="score").count() == questions


def test_pool_rebuild_marks_its_questions_only_when_a_pool_changed(tac):
    questions = set(Topic.objects.filter(evaluation=tac).exclude(kind="series").values_list("ident", flat=True))
    load(tac, "A1", 1)
    StaleTopic.objects.all().delete()
    build_pools(tac)
    assert stale(tac) == questions  # (marked per rebuilt batch of series: here one batch)
    StaleTopic.objects.all().delete()
    build_pools(tac)  # nothing changed: nothing to rescore
    assert stale(tac) == set()

    # B1: one new instance for 1001.1, and 1001.2's instance again (a new link to the existing item)
    load(tac, "B1", 2, VALID.replace(b"food bloggers", b"food critics"))
    StaleTopic.objects.all().delete()
    build_pools(tac)
    assert stale(tac) == questions
    StaleTopic.objects.all().delete()
    load(tac, "C3", 3)  # priority 3 is not pooled: loading marks, the rebuild changes no pool
    StaleTopic.objects.all().delete()
    build_pools(tac)
    assert stale(tac) == set()


def test_bulk_loading_and_pool_building_start_one_rescoring_each(transactional_db, tac, monkeypatch):
    """Each stored run and each pool batch commits on its own; rescoring must start once per batch of work,
    not once per commit (in-process mode would otherwise rescore the whole evaluation after every run)."""
    from pooling.runs import RunFile, load_run_files
    from scoring import tasks

    started = []
    # in-process mode runs the task body (config.celery.run_here_or_send): count the runs
    monkeypatch.setattr(tasks.rescore_stale, "run", lambda evaluation_id: started.append(evaluation_id))
    files = [
        RunFile(filename=f"{tag}.txt", data=VALID.replace(b"AlphaQA1", tag.encode()), team=f"t-{tag}", priority=1)
        for tag in ("A1", "B1", "C1")
    ]
    results = load_run_files(tac, files)  # real commits: one per stored run
    assert [r.problems for r in results] == [[], [], []]
    assert started == [tac.id]
    assert stale(tac)  # the marks are there for that one rescoring to read

    started.clear()
    build_pools(tac)
    assert started == [tac.id]
