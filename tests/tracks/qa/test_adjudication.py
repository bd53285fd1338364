"""QA adjudication: one decision per item. A second adjudicator's save is refused (409, naming the decision and
who made it), the one who decided may change it with its version, and deciding at once is serialised by a lock
on the pool item."""

import threading
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.urls import reverse

from assess import judging
from assess.models import Assignment, Invitation, Judgment
from assess.official import official_values
from config import patience
from tracks.qa import adjudication, instance_judging
from tracks.qa.sample import build_sample


def _waiting_for_a_lock():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # (inside a transaction the first look is kept)
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


def _disagreement(make_user):
    sample = build_sample()
    ann, bob = make_user("ann", "assessor"), make_user("bob", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=ann)
    Assignment.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], assessor=bob, role=Assignment.SECONDARY
    )
    it = sample.items["1.1"][1]
    instance_judging.judge_instance(ann, judging.load_item(ann, it.pk), "incorrect", 0)
    instance_judging.judge_instance(bob, judging.load_item(bob, it.pk), "globally-correct", 0)
    return sample, it


@pytest.fixture
def disagreement(db, make_user):
    return _disagreement(make_user)


def test_one_decision_per_item(disagreement, organizer, make_user, save_path):
    sample, it = disagreement
    cy = make_user("cy", "assessor")
    judging.invite(organizer, sample.evaluation, cy, Invitation.ADJUDICATOR)
    adjudication.adjudicate(cy, it, "globally-correct", 0)
    for version in (0, 1):  # whatever version the rival saw, the decision is cy's
        with pytest.raises(judging.AlreadyDecided, match="cy already decided this item") as refused:
            adjudication.adjudicate(organizer, it, "incorrect", version)
        assert refused.value.status == 409 and refused.value.current.assessor == cy
        assert refused.value.current.value["label"] == "globally-correct"
    assert issubclass(judging.AlreadyDecided, judging.StaleJudgment)  # views show it like a stale save
    saved = adjudication.adjudicate(cy, it, "incorrect", 1)  # the one who decided changes it with its version
    assert saved.judgment.version == 2
    with pytest.raises(judging.StaleJudgment):
        adjudication.adjudicate(cy, it, "globally-correct", 1)
    decisions = Judgment.objects.filter(item=it, role=Judgment.ADJUDICATED)
    assert list(decisions.values_list("assessor__username", "version")) == [("cy", 2)]
    assert official_values([it.topic_id], "instance")[it.pk]["label"] == "incorrect"


def test_rival_gets_409_and_the_queue_shows_who_decided(client, disagreement, organizer, make_user):
    sample, it = disagreement
    rival = make_user("rival", "organizer")
    url = reverse("qa:adjudicate", args=[it.pk])
    client.force_login(organizer)
    assert client.post(url, {"label": "globally-correct", "version": 0}).status_code == 200
    queue = reverse("qa:adjudication", args=[sample.evaluation.slug])
    page = client.get(queue).content.decode()
    assert "decided: globally-correct" in page and "by org" in page and "only they can change it" not in page
    client.force_login(rival)
    r = client.post(url, {"label": "incorrect", "version": 1})
    body = r.content.decode()
    assert r.status_code == 409 and "org already decided this item" in body
    assert "by org (only they can change it)" in body and "disabled" in body
    page = client.get(queue).content.decode()
    assert "by org (only they can change it)" in page
    assert Judgment.objects.get(item=it, role=Judgment.ADJUDICATED).value["label"] == "globally-correct"
    out = StringIO()
    call_command("judging", "queue", sample.evaluation.slug, stdout=out)
    assert "decided globally-correct by org" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_two_adjudicators_at_once_are_serialised(make_user, organizer):
    """While one adjudicator's decision is being saved (the item locked), a second waits; once the first commits,
    the second is refused, so there is never more than one decision."""
    sample, it = _disagreement(make_user)
    rival = make_user("rival", "organizer")
    outcome = {}

    def rival_decides():
        try:
            adjudication.adjudicate(rival, it, "incorrect", 0)
            outcome["rival"] = "saved"
        except judging.AlreadyDecided as refused:
            outcome["rival"] = f"refused: decided by {refused.current.assessor.username}"
        finally:
            connection.close()

    with transaction.atomic():
        judging.claim_decision(organizer, it, "instance")  # the organizer's save holds the item's lock
        thread = threading.Thread(target=rival_decides)
        thread.start()
        # the rival waits for the item's lock (seen in pg_stat_activity, not guessed with a sleep)
        assert patience.wait_until(lambda: _waiting_for_a_lock() or not thread.is_alive(), 30, 0.01)
        assert thread.is_alive() and "rival" not in outcome  # waiting for the lock, not deciding
        adjudication.adjudicate(organizer, it, "globally-correct", 0)
    thread.join(patience.scaled(30))
    assert outcome == {"rival": "refused: decided by org"}
    assert list(
        Judgment.objects.filter(item=it, role=Judgment.ADJUDICATED).values_list("assessor__username", "value__label")
    ) == [("org", "globally-correct")]
