"""A nugget's text twice on one question (white space and case aside) is refused with a clear message (issue 12):
the copies would split the matches and votes."""

import pytest
from django.urls import reverse

from assess import judging
from assess.models import Assignment, Nugget
from tests.conftest import PASSWORD
from tracks.qa import nugget_judging
from tracks.qa.sample import build_sample


def test_the_same_text_again_is_refused(sample, primary):
    q = sample.questions["1.3"]
    nugget_judging.create_nugget(primary, q, "founded by Coco Chanel")
    with pytest.raises(judging.JudgingError, match="nugget 1 already says “founded by Coco Chanel”"):
        nugget_judging.create_nugget(primary, q, "  Founded   by coco\tCHANEL ")
    assert Nugget.objects.filter(topic=q).count() == 1


def test_an_edit_may_not_copy_another_nugget_but_may_recase_its_own(sample, primary):
    q = sample.questions["1.3"]
    first = nugget_judging.create_nugget(primary, q, "founded by Coco Chanel")
    second = nugget_judging.create_nugget(primary, q, "based in Paris")
    with pytest.raises(judging.JudgingError, match="nugget 1 already says .*merge the two instead"):
        nugget_judging.edit_nugget(primary, second, "FOUNDED BY COCO CHANEL")
    nugget_judging.edit_nugget(primary, first, "Founded by Coco Chanel")
    assert sorted(Nugget.objects.filter(topic=q).values_list("text", flat=True)) == [
        "Founded by Coco Chanel",
        "based in Paris",
    ]


def test_another_question_may_have_the_same_nugget(sample, primary):
    nugget_judging.create_nugget(primary, sample.questions["1.3"], "founded by Coco Chanel")
    other = build_sample(slug="other-sample")
    Assignment.objects.create(evaluation=other.evaluation, topic=other.series[0], assessor=primary)
    nugget_judging.create_nugget(primary, other.questions["1.3"], "founded by Coco Chanel")
    assert Nugget.objects.filter(text="founded by Coco Chanel").count() == 2


def test_the_workspace_says_why(client, sample, primary):
    q = sample.questions["1.3"]
    nugget_judging.create_nugget(primary, q, "founded by Coco Chanel")
    assignment = Assignment.objects.get(assessor=primary)
    client.login(username="prim", password=PASSWORD)
    response = client.post(
        reverse("qa:nugget_create", args=[assignment.pk, q.pk]),
        {"text": "Founded by Coco Chanel"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    assert "nugget 1 already says “founded by Coco Chanel”" in response.content.decode()
