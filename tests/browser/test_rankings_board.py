"""The organizer's board shows the rankings under the other readings of the judgments and follows judging live:
a second assessor's two flipped labels (tests/test_rankings.py's evaluation) appear as τ = 1/3 without a reload,
and the robustness page shows each run's rank interval."""

import pytest
from django.db import transaction

from assess.models import Judgment
from config.patience import scaled
from pooling.staleness import mark_stale
from tests.test_rankings import build_world

pytestmark = pytest.mark.browser


def test_board_follows_the_second_assessor_and_links_the_robustness_page(page, login, make_user, live_server):
    world = build_world(make_user, slug="browser-ranks")
    # start with the second assessor agreeing everywhere: their two flips come later, from "judging"
    flipped = [world["items"][("X", 3)], world["items"][("Y", 3)]]
    seconds = Judgment.objects.filter(item__in=flipped, role=Judgment.SECONDARY)
    originals = {j.pk: j.value for j in seconds}
    for j in seconds:
        j.value = dict(j.value, label="incorrect" if j.value["label"] == "globally-correct" else "globally-correct")
        j.save()
    from scoring import rankings

    rankings.refresh(world["ev"].pk)
    make_user("orga", "organizer")
    login(page, "orga")
    page.goto(f"{live_server.url}/scores/browser-ranks/")
    pair = page.locator('#rank-correlation tr[data-pair="official|second"]')
    assert pair.locator(".tau").inner_text() == "1.000"
    with transaction.atomic():
        for j in seconds:
            j.value = originals[j.pk]
            j.save()
        mark_stale(flipped[0].topic)  # (how a save asks for rescoring; the rankings follow the pass)
    page.wait_for_function(
        "() => document.querySelector('#rank-correlation tr[data-pair=\"official|second\"] .tau').innerText === '0.333'",
        timeout=scaled(15_000),  # the rescoring pass, then the rankings refresh it queues, on a busy machine
    )
    assert pair.locator(".tau-ap").inner_text() == "0.000"
    page.click("#robustness-link")
    page.wait_for_load_state()
    assert page.locator('#robustness tr[data-run="X"] .interval').inner_text() == "1–2"
    assert page.locator('#robustness tr[data-run="Z"] .interval').inner_text() == "3–3"
