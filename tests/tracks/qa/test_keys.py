"""What is particular to the QA judging pages' keys (the shared checks of every page: tests/test_keymap.py)."""

import pytest
from django.urls import reverse

from assess import keymap
from assess.models import Assignment, Invitation
from tests.test_keymap import assert_page_keys
from tests.tracks.qa.test_adjudication import _disagreement
from tracks.qa import instance_judging, nugget_judging
from tracks.qa import keys as qa_keys


@pytest.fixture
def qa(sample, make_user, organizer):
    nora = make_user("nora", "assessor")
    assignment = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=nora)
    list_item = sample.items["1.2"][0]
    list_item.evaluation = sample.evaluation
    instance_judging.create_class(nora, sample.questions["1.2"], "", item=list_item, expected_version=0)
    nugget_judging.create_nugget(nora, sample.questions["1.3"], "founded by Coco Chanel")
    voter = make_user("victor", "assessor")
    Invitation.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], user=voter, kind=Invitation.VOTER, invited_by=organizer
    )
    return sample, nora, assignment, voter


def test_qa_pages_use_and_list_only_declared_keys(client, qa):
    sample, nora, assignment, voter = qa
    client.force_login(nora)
    html = assert_page_keys(client, reverse("qa:assignment", args=[assignment.pk]), qa_keys.SERIES.ident)
    assert 'data-key="u"' in html
    html = assert_page_keys(
        client, reverse("qa:question", args=[assignment.pk, sample.questions["1.2"].pk]), qa_keys.INSTANCES.ident
    )
    assert 'data-class-number="1"' in html and "<kbd>⇧1</kbd>" in html and 'id="auto-advance"' in html
    assert 'data-key="n"' not in html and 'data-key="j"' in html
    assert_page_keys(
        client, reverse("qa:question", args=[assignment.pk, sample.questions["1.3"].pk]), qa_keys.NUGGETS.ident
    )
    client.force_login(voter)
    html = assert_page_keys(client, reverse("qa:vote_series", args=[sample.series[0].pk]), qa_keys.VOTES.ident)
    assert "vital <kbd>v</kbd>" in html


def test_qa_adjudication_lists_its_keys(client, make_user, organizer):
    sample, item = _disagreement(make_user)
    client.force_login(organizer)
    html = assert_page_keys(
        client, reverse("qa:adjudication", args=[sample.evaluation.slug]), qa_keys.ADJUDICATION.ident
    )
    assert {"p", "s", "u", "j", "1"} <= set(keymap.for_script(qa_keys.ADJUDICATION.ident))
    assert 'data-primary="incorrect" data-second="globally-correct"' in html and 'data-label-number="1"' in html


def test_a_match_answers_with_the_new_matched_count(client, sample, primary):
    question = sample.questions["1.3"]
    nugget = nugget_judging.create_nugget(primary, question, "founded by Coco Chanel")
    client.force_login(primary)
    for n, item in enumerate(sample.items["1.3"][:2], start=1):
        response = client.post(reverse("qa:match", args=[item.pk]), {"version": 0, "nuggets": [nugget.pk]})
        assert response.status_code == 200
        assert f'<span id="matched-count" hx-swap-oob="true">{n}</span>' in response.content.decode()
