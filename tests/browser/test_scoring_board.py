"""The organizer's board updates by itself while judging goes on; a released report renders for its team."""

import pytest
from django.db import transaction

from assess.models import Judgment
from config.patience import scaled
from pooling.staleness import mark_stale
from scoring.rescore import rescore_evaluation
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.browser


def test_board_follows_judging_and_report_for_released_team(page, login, make_user, live_server):
    t = tiny_trec2007(slug="browser-board")
    rescore_evaluation(t["evaluation"].id)
    make_user("orga", "organizer")
    make_user("alice", "participant", team="Team Alpha")
    login(page, "orga")
    page.goto(f"{live_server.url}/scores/browser-board/")
    row_a = page.locator('#scoreboard tr[data-run="runA"]')
    assert "0.3877" in row_a.inner_text()
    # An assessor judges runA's 217.1 answer correct: the board shows the new score without a reload.
    j = Judgment.objects.get(item=t["items"]["f1"], kind="instance")
    with transaction.atomic():
        j.value = {"label": "globally-correct", "answer_class": None}
        j.save()
        mark_stale(t["q"]["217.1"])
    new = f"{((1 + 4 / 7 + 6 / 7.95) / 3 + 0.5) / 2:.4f}"
    page.wait_for_function(
        "text => document.querySelector('#scoreboard tr[data-run=\"runA\"]').innerText.includes(text)",
        arg=new,
        timeout=scaled(15_000),
    )
    assert page.locator("#stale-count").inner_text() == "0"
    # Release to Team Alpha only, from the board, which then says so (not "Reports not released").
    page.click("text=Release to Team Alpha only")
    page.wait_for_load_state()
    state = page.locator("#release-state").inner_text()
    assert "Reports released to Team Alpha as provisional scores" in state and "Not released to Team Beta" in state
    page.click(".logout button")
    login(page, "alice")
    page.click("a.report-link")
    page.wait_for_load_state()
    assert page.locator("h1").inner_text().startswith("Run runA")
    assert page.locator("svg.diffplot").count() == 1
    assert page.locator('#summary tr[data-measure="score"]').inner_text().count(new) >= 1
    # The report says what it is, on screen and on paper.
    assert page.locator("#status-word").inner_text() == "Provisional"
    assert "100.0 %" in page.locator("#judged-share").inner_text()
    assert page.locator("#as-of").inner_text().startswith("Scores as of 20")
    page.emulate_media(media="print")
    assert page.locator("#report-status").is_visible() and not page.locator("#csv").is_visible()
    page.emulate_media(media="screen")
    # the other team's run stays hidden
    response = page.goto(f"{live_server.url}/scores/browser-board/runs/runB/")
    assert response.status == 404
