"""The organizer loads a machine judge's nugget assignments on the judgment sets page, reads the agreement, follows
a confusion-matrix cell to the disagreeing item, and releases the set (issue 29)."""

import json

import pytest

from scoring.rescore import rescore_evaluation
from tests.tracks.qa.test_nuggetizer_exports import ASSIGNMENTS
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.browser


def test_load_a_set_read_its_agreement_and_follow_a_cell(page, login, make_user, live_server, tmp_path):
    t = tiny_trec2007(slug="browser-sets")
    rescore_evaluation(t["evaluation"].id)
    make_user("sets-org", "organizer")
    flipped = json.loads(json.dumps(ASSIGNMENTS))
    flipped[2]["nuggets"][1]["assignment"] = "not_support"
    path = tmp_path / "autonuggetizer.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in flipped))
    login(page, "sets-org")
    page.goto(f"{live_server.url}/scores/browser-sets/")
    page.click("#judgment-sets-link")
    page.wait_for_load_state()
    page.fill("#load-set input[name=name]", "autonuggetizer")
    page.select_option("#load-set select[name=format]", "nuggetizer")
    page.fill("#load-set input[name=model]", "gpt-4o <b>bold</b>")
    page.set_input_files("#load-set input[name=file]", str(path))
    page.click("#load-set button[type=submit]")
    page.wait_for_load_state()
    sets = page.locator("#judgment-sets").inner_text()
    assert "autonuggetizer" in sets and "model: gpt-4o <b>bold</b>" in sets  # shown as text, not markup
    row = page.locator("#agreement tr", has_text="nugget_match").first.inner_text()
    assert "87.5 %" in row and "0.750" in row  # 7 of 8 (item, nugget) units agree; kappa 3/4
    page.click("#agreement a:has-text('autonuggetizer')")
    page.wait_for_load_state()
    page.click("#confusion-nugget_match tbody tr:first-child td:nth-child(3) a")  # official match, set no match
    page.wait_for_load_state()
    items = page.locator("#items tbody").inner_text()
    assert "professor at Princeton" in items and "z" * 50 in items
    assert page.locator("#items tbody tr").count() == 1
    page.click("text=← judgment sets")
    page.wait_for_load_state()
    page.click("#judgment-sets button:has-text('Release to teams')")
    page.wait_for_load_state()
    assert "Withdraw from teams" in page.locator("#judgment-sets").inner_text()
