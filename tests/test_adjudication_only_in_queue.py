"""An adjudicator decides only what is in the adjudication queue: a decision on an item nobody disputes (single
judged, or both assessors agree), or on a nugget question, is refused and writes nothing, for every judged track
and judgment kind, through the service, the page and the command."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from assess import judging
from assess.models import Assignment, Invitation, Judgment
from assess.official import official_values
from tests.tracks.bolt.test_adjudication import build_disagreements, invite
from tracks.bolt import adjudication as adj
from tracks.qa import adjudication, instance_judging, questions
from tracks.qa.sample import build_sample


def _double_judged(track, make_user):
    """The sample's first series judged by two assessors on its first instance question: item 0 disputed,
    item 1 agreed, item 2 judged by the primary only."""
    sample = build_sample(slug=f"inq-{track}", track=track)
    ann, bob = make_user("ann", "assessor"), make_user("bob", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=ann)
    Assignment.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], assessor=bob, role=Assignment.SECONDARY
    )
    first_question = next(iter(sample.questions))
    items = sample.items[first_question]
    labels = questions.instance_labels(sample.evaluation)
    worst, best = labels[0], labels[-1]
    for user, item, label in (
        (ann, items[0], worst),
        (bob, items[0], best),
        (ann, items[1], worst),
        (bob, items[1], worst),
        (ann, items[2], worst),
    ):
        instance_judging.judge_instance(user, judging.load_item(user, item.pk), label, 0)
    adjudicator = make_user("cy", "assessor")
    judging.invite(make_user("org", "organizer"), sample.evaluation, adjudicator, Invitation.ADJUDICATOR)
    return sample, items, adjudicator, worst, best


@pytest.mark.parametrize("track", ["trec2007-qa", "tac2008-qa"])
def test_instance_decisions_only_for_disputed_items(db, make_user, track, save_path):
    sample, items, cy, worst, best = _double_judged(track, make_user)
    before = official_values([items[0].topic_id], "instance")
    for item, why in ((items[1], f"both assessors judged it {worst}"), (items[2], "not judged by two")):
        with pytest.raises(judging.NotInQueue, match=why) as refused:
            adjudication.adjudicate(cy, judging.load_item(cy, item.pk), best, 0)
        assert refused.value.status == 403
    assert not Judgment.objects.filter(role=Judgment.ADJUDICATED).exists()
    assert official_values([items[0].topic_id], "instance") == before  # the undisputed stay as judged
    adjudication.adjudicate(cy, judging.load_item(cy, items[0].pk), worst, 0)  # the disputed one is decided
    assert official_values([items[0].topic_id], "instance")[items[0].pk]["label"] == worst


def test_nugget_questions_have_nothing_to_adjudicate(db, make_user):
    sample, items, cy, worst, best = _double_judged("trec2007-qa", make_user)
    other = sample.items["1.3"][0]  # an Other question's response
    with pytest.raises(judging.NotInQueue, match="OTHER question"):
        adjudication.adjudicate(cy, judging.load_item(cy, other.pk), best, 0)
    assert not Judgment.objects.filter(item=other).exists()


def test_the_page_refuses_an_undisputed_item_and_stores_nothing(client, db, make_user):
    sample, items, cy, worst, best = _double_judged("tac2008-qa", make_user)
    client.force_login(cy)
    official = official_values([items[1].topic_id], "instance")
    for item in (items[1], items[2]):
        response = client.post(reverse("qa:adjudicate", args=[item.pk]), {"label": best, "version": 0})
        assert response.status_code == 403
        assert "not in the adjudication queue" in response.content.decode()
    assert not Judgment.objects.filter(role=Judgment.ADJUDICATED).exists()
    assert official_values([items[1].topic_id], "instance") == official
    ok = client.post(reverse("qa:adjudicate", args=[items[0].pk]), {"label": best, "version": 0})
    assert ok.status_code == 200


def test_bolt_citation_decisions_only_for_disputed_citations(client, db, make_user):
    setup = build_disagreements(make_user)
    ev = setup["ev"]
    cy = make_user("adj-cy", "assessor")
    invite(ev, cy, make_user)
    # metro: the two differ only in translation, which no measure reads: not in the queue
    for name, why in (("metro", "judged it alike"), ("women", "not been judged by both")):
        with pytest.raises(judging.NotInQueue, match=why):
            adj.adjudicate_citation(cy, setup[name], {"rel": "no"}, 0)
    client.force_login(cy)
    response = client.post(reverse("bolt:adjudicate", args=[ev.slug, setup["metro"].pk]), {"version": 0, "rel": "no"})
    assert response.status_code == 404  # not a disagreement this adjudicator may open
    out = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "bolt_adjudicate",
            ev.slug,
            setup["metro"].pool_id,
            "--by",
            cy.username,
            "--rel",
            "no",
            stdout=out,
            stderr=out,
        )
    assert not Judgment.objects.filter(role=Judgment.ADJUDICATED).exists()
    assert official_values([setup["topic"].pk], "citation")[setup["metro"].pk]["rel"] == "yes"
