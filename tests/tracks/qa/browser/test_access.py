"""In the browser: an assessor cannot open or change another assessor's assignment; a participant cannot open
any judging page."""

import pytest
from django.urls import reverse

from assess.models import Assignment, Judgment
from tracks.qa.sample import build_sample

pytestmark = pytest.mark.browser


@pytest.fixture
def two_assessors(transactional_db, make_user):
    sample = build_sample()
    mine = Assignment.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], assessor=make_user("owner", "assessor")
    )
    make_user("intruder", "assessor")
    return sample, mine


def test_assessor_cannot_open_or_change_another_assessors_assignment(page, login, live_server, two_assessors):
    sample, theirs = two_assessors
    login(page, "intruder")
    assert "Nothing assigned to you yet" in page.locator("#assignments").inner_text()
    for url in (
        reverse("qa:assignment", args=[theirs.pk]),
        reverse("qa:question", args=[theirs.pk, sample.questions["1.1"].pk]),
        reverse("qa:question", args=[theirs.pk, sample.questions["1.3"].pk]),
    ):
        assert page.goto(live_server.url + url).status == 404
    # a hand-made save from the intruder's own signed-in page is refused too
    page.goto(live_server.url + reverse("assess:my_assignments"))
    status = page.evaluate(
        """async (url) => {
        const token = JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken'];
        const r = await fetch(url, {method: 'POST', headers: {'X-CSRFToken': token,
            'Content-Type': 'application/x-www-form-urlencoded'}, body: 'label=incorrect&version=0'});
        return r.status; }""",
        reverse("qa:judge", args=[sample.items["1.1"][0].pk]),
    )
    assert status == 404
    assert not Judgment.objects.exists()


def test_participant_cannot_open_any_judging_page(page, login, live_server, two_assessors, make_user):
    sample, theirs = two_assessors
    make_user("pat", "participant", team="Team Alpha")
    login(page, "pat")
    assert page.locator("nav.mainnav a", has_text="My assignments").count() == 0
    for url in (
        reverse("assess:my_assignments"),
        reverse("qa:assignment", args=[theirs.pk]),
        reverse("qa:question", args=[theirs.pk, sample.questions["1.1"].pk]),
        reverse("qa:vote_series", args=[sample.series[0].pk]),
        reverse("qa:adjudication", args=[sample.evaluation.slug]),
        reverse("assess:organize", args=[sample.evaluation.slug]),
    ):
        assert page.goto(live_server.url + url).status == 403, url
