"""A track defined inside the test suite (tests/plugin_track/, installed by tests/settings.py alone) plugs in
through the contract: it is offered in the create form, its topics and run load, its pools build and its trivial
measure is scored and shown, with nothing of it named outside its folder."""

from django.urls import reverse

from pooling.forms import EvaluationForm
from pooling.models import Evaluation, PoolItem, Run, Topic
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tests.conftest import PASSWORD
from tests.plugin_track import plugin


def test_the_track_is_offered_in_the_create_form(client, make_user, db):
    assert (plugin.TRACK.slug, plugin.TRACK.title) in EvaluationForm().fields["track"].choices
    make_user("org", "organizer")
    client.login(username="org", password=PASSWORD)
    response = client.post(
        reverse("pooling:evaluation_create"), {"slug": "plugged", "title": "Plugged", "track": plugin.TRACK.slug}
    )
    assert response.status_code == 302
    assert Evaluation.objects.get(slug="plugged").track == plugin.TRACK.slug


def test_its_topics_and_run_load_pool_and_score(client, make_user, db):
    plugin.load_demo(lambda *args: None)
    evaluation = Evaluation.objects.get(slug=plugin.SLUG)
    assert list(Topic.objects.filter(evaluation=evaluation).values_list("ident", flat=True)) == ["t1", "t2"]
    run = Run.objects.get(evaluation=evaluation)
    assert run.tag == "Alpha1"
    # pools: one item per distinct docid of each topic
    assert sorted(PoolItem.objects.filter(evaluation=evaluation).values_list("topic__ident", "key")) == [
        ("t1", "d1"),
        ("t1", "d2"),
        ("t2", "d1"),
    ]
    rescore_evaluation(evaluation.pk)
    scores = dict(Score.objects.filter(run=run, scope=Score.RUN).values_list("measure", "value"))
    assert scores == {"lines": 3.0, "score": 3.0}
    make_user("org", "organizer")
    client.login(username="org", password=PASSWORD)
    board = client.get(reverse("scoring:board", args=[plugin.SLUG])).content.decode()
    assert "Alpha1" in board
