"""QA4MRE pages in Chromium: the organizer's per-question view and reading test, a participant's released report."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from pooling.evaluations import create_evaluation, set_state

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "qa4mre"
SLUG = "qa4mre-browser"


@pytest.fixture
def evaluation(transactional_db):
    evaluation = create_evaluation(SLUG, "qa4mre-2012", title="QA4MRE browser test")
    call_command("load_topics", SLUG, str(FIXTURES / "test_set.xml"), stdout=StringIO())
    for name, team in [
        ("alph12011enen.xml", "Team Alpha"),
        ("alph12022enen.xml", "Team Alpha"),
        ("beta12013enen.xml", "Team Beta"),
    ]:
        call_command("load_runs", SLUG, str(FIXTURES / name), "--team", team, stdout=StringIO(), stderr=StringIO())
    call_command("load_gold", SLUG, str(FIXTURES / "gold.xml"), stdout=StringIO())
    return evaluation


def test_organizer_reads_questions_and_documents(page, login, make_user, live_server, evaluation):
    make_user("org1", "organizer")
    login(page, "org1")
    page.goto(f"{live_server.url}/qa4mre/{SLUG}/")
    assert page.locator("#qa4mre-runs tbody tr").first.get_attribute("data-run") == "alph12011enen"
    page.click("#per-question")
    row = page.locator('tr[data-question="1.1.3"]')
    assert row.locator("td.right").inner_text() == "1"
    assert row.locator("td.candidate-right").inner_text() == "NO (1)"
    page.click('a[href$="/tests/1.2/"] >> nth=0')
    assert page.locator("li.gold").count() == 4  # question 1.2.3 has no correct answer
    # the document is shown in the corpus viewer's sandboxed frame
    # expect() retries: the frame's first body is the empty about:blank one until the document arrives
    frame = page.frame_locator('[data-doc-frame="1.2"] iframe')
    expect(frame.locator("body")).to_contain_text("400 retired teachers")


def test_participant_opens_released_report(page, login, make_user, live_server, evaluation):
    make_user("par1", "participant", team="Team Alpha")
    login(page, "par1")
    response = page.goto(f"{live_server.url}/qa4mre/{SLUG}/runs/alph12022enen/")
    assert response.status == 404  # not released yet
    set_state(evaluation, "released")
    page.goto(f"{live_server.url}/qa4mre/{SLUG}/runs/alph12022enen/")
    assert page.locator('#report tr[data-scope="run"] td.c-at-1').inner_text() == "0.600"
    assert page.locator('#report tr[data-topic="1.2"] td.c-at-1').inner_text() == "0.560"
    document = page.locator('[data-doc="1.1"]')
    assert not document.is_visible()
    page.locator("summary", has_text="Document").first.click()
    assert document.is_visible()
    assert page.goto(f"{live_server.url}/qa4mre/{SLUG}/runs/beta12013enen/").status == 404
