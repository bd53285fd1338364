"""Progress in sight, in Chromium (issue 12): the assessor's bars on their home page, and the organizer's per
question, assessor and run on the evaluation page, where htmx fetches them from assess once the page is there."""

import pytest

from assess import judging
from assess.models import Assignment
from tracks.qa import instance_judging
from tracks.qa.sample import build_sample

pytestmark = pytest.mark.browser


@pytest.fixture
def judged(transactional_db, make_user):
    sample = build_sample()
    ann = make_user("ann", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=ann)
    for item in sample.items["1.1"][:2]:
        instance_judging.judge_instance(ann, judging.load_item(ann, item.pk), "incorrect", 0)
    return sample


def bar(locator):
    progress = locator.locator("progress")
    return int(progress.get_attribute("value")), int(progress.get_attribute("max")), progress.is_visible()


def test_assessor_and_organizer_see_the_bars(page, login, make_user, judged):
    login(page, "ann")
    assert bar(page.locator("#overall-progress")) == (2, 12, True)
    assert "10 items left" in page.locator("#overall-progress").inner_text()
    page.click("#assignments >> text=open")
    assert bar(page.locator("#series-progress")) == (2, 12, True)
    page.context.clear_cookies()

    make_user("boss", "organizer")
    login(page, "boss")
    page.click(f"text={judged.evaluation.title}")
    page.wait_for_selector("#judging-progress #progress-questions")  # swapped in by htmx
    section = page.locator("#judging-progress")
    assert bar(section.locator("#overall-progress")) == (2, 12, True)
    assert bar(section.locator("tr[data-question='1.1']")) == (2, 4, True)
    assert bar(section.locator("tr[data-assessor='ann']")) == (2, 12, True)
    assert bar(section.locator("tr[data-run='assess-samplerun1']")) == (2, 12, True)
    assert bar(section.locator("tr[data-run='assess-samplerun2']")) == (1, 6, True)
