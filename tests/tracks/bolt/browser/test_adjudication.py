"""BOLT adjudication in Chromium: an organizer goes from the agreement page to the queue and decides two
disagreements with the keyboard only, one built from parts of both judgments, one taking the second's whole."""

import pytest
from django.urls import reverse

from assess.models import Judgment
from assess.official import official_values
from tests.tracks.bolt.test_adjudication import build_disagreements

pytestmark = pytest.mark.browser


def wait_status(page, text):
    page.wait_for_function("(t) => document.getElementById('status').textContent.includes(t)", arg=text)


def test_adjudicate_bolt_disagreements_with_the_keyboard(
    page, login, live_server, transactional_db, make_user, organizer
):
    setup = build_disagreements(make_user)
    fare, taxi = setup["fare"], setup["taxi"]
    login(page, "org")
    page.goto(live_server.url + reverse("bolt:agreement", args=["bolt-adj"]))
    page.click("#adjudication-link")
    page.wait_for_url("**/bolt/adjudicate/bolt-adj/")  # until "load": the deferred key script is running
    assert "2 of 2 disagreements open" in page.locator("#queue-summary").inner_text()
    page.keyboard.press("u")  # the first open disagreement
    page.wait_for_url(f"**/adjudicate/bolt-adj/{fare.pk}/")
    assert "Opinions of taxi drivers" in page.locator("#topic").inner_text()
    assert page.locator("iframe[sandbox]").count() == 1
    assert page.locator("#primary-judgment .rel").inner_text() == "no"
    assert page.locator("#secondary-judgment .rel").inner_text() == "yes"
    assert page.locator("#secondary-judgment mark.relspan").all_inner_texts() == ["too high for students"]
    wait_status(page, "Not decided yet")
    for key in "y1cb":  # yes, translation acceptable, source checked, the relevant part as the second marked it
        page.keyboard.press(key)
    assert page.locator("input[name=rel][value=yes]").is_checked()
    assert page.locator("input[name=spans][value=secondary]").is_checked()
    page.keyboard.press("d")
    page.wait_for_url(f"**/adjudicate/bolt-adj/{fare.pk}/?decided=1")
    wait_status(page, "Decided (version 1)")
    assert page.locator("#decided-judgment mark.relspan").all_inner_texts() == ["too high for students"]
    decided = Judgment.objects.get(item=fare, role=Judgment.ADJUDICATED)
    assert decided.value == {"rel": "yes", "trans": "accept", "chksrc": True, "relspans": [[12, 21]]}
    assert decided.assessor.username == "org" and decided.changes.count() == 1

    page.keyboard.press("u")  # the next open one
    page.wait_for_url(f"**/adjudicate/bolt-adj/{taxi.pk}/")
    page.keyboard.press("s")  # take the second's judgment whole
    page.wait_for_url(f"**/adjudicate/bolt-adj/{taxi.pk}/?decided=1")
    wait_status(page, "Decided (version 1)")
    second = Judgment.objects.get(item=taxi, role=Judgment.SECONDARY).value
    assert official_values([setup["topic"].pk], "citation")[taxi.pk] == second
    page.click("#queue-link")
    page.wait_for_url("**/bolt/adjudicate/bolt-adj/")
    assert "0 of 2 disagreements open" in page.locator("#queue-summary").inner_text()
    assert page.locator(f"#disagreement-{fare.pk} .decision").inner_text().startswith("yes (part)")
