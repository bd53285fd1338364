"""The evaluation's state follows the work (issue 12): open for runs until judging can begin, then judging, once a
pool is built or a series assigned; shown on the evaluation page."""

from django.urls import reverse

from assess.assignments import assign
from pooling.evaluations import set_state
from pooling.models import Evaluation
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from tests.conftest import PASSWORD
from tests.test_pooling_loading import FIXTURES, blog, tac  # noqa: F401 (fixtures)


def test_assigning_a_series_starts_judging(tac, make_user):
    make_user("ann", "assessor")
    assert tac.state == Evaluation.OPEN
    assign(tac, "1001", "ann")
    assert tac.state == Evaluation.JUDGING and Evaluation.objects.get(pk=tac.pk).state == Evaluation.JUDGING


def test_building_a_pool_starts_judging_but_an_empty_one_does_not(tac):
    build_pools(tac)  # no runs: nothing to judge yet
    assert Evaluation.objects.get(pk=tac.pk).state == Evaluation.OPEN
    run = RunFile(filename="tac_valid_run.txt", data=(FIXTURES / "tac_valid_run.txt").read_bytes(), team="Alpha")
    assert not load_run_files(tac, [run])[0].problems
    build_pools(tac)
    assert Evaluation.objects.get(pk=tac.pk).state == Evaluation.JUDGING


def test_released_scores_stay_released(tac, make_user):
    make_user("ann", "assessor")
    set_state(tac, Evaluation.RELEASED)
    assign(tac, "1001", "ann")
    assert Evaluation.objects.get(pk=tac.pk).state == Evaluation.RELEASED


def test_the_evaluation_page_shows_judging(client, tac, organizer, make_user):
    make_user("ann", "assessor")
    assign(tac, "1001", "ann")
    client.login(username="org", password=PASSWORD)
    body = client.get(reverse("pooling:evaluation_detail", args=["tac-test"])).content.decode()
    assert '<strong id="state">Judging</strong>' in body


def test_the_migration_moves_evaluations_already_being_judged(tac, blog):
    from importlib import import_module

    from django.apps import apps

    from pooling.evaluations import create_evaluation
    from pooling.models import PoolItem

    empty = create_evaluation("empty", "tac2008-qa", ["test-blog06"])
    PoolItem.objects.create(evaluation=tac, topic=tac.topics.filter(parent__isnull=False).first(), key="d\tx")
    import_module("pooling.migrations.0003_evaluations_being_judged").open_to_judging(apps, None)
    assert Evaluation.objects.get(pk=tac.pk).state == Evaluation.JUDGING
    assert Evaluation.objects.get(pk=empty.pk).state == Evaluation.OPEN
