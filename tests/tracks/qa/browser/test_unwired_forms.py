"""A judging form used before htmx wired it (htmx wires swapped-in content only after its settle delay) still
saves through htmx, with the button pressed, and never as a native submission that reloads the page."""

import pytest
from django.urls import reverse

from assess.models import Judgment
from tests.tracks.qa.browser.test_judging import instance_series  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser


def test_a_save_form_clicked_before_htmx_wired_it(page, login, live_server, instance_series):
    sample, assessor, assignment = instance_series
    login(page, "judy")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, sample.questions["1.1"].pk]))
    page.wait_for_selector("#judge-bar")
    page.evaluate("window.__noReload = true")
    # markup htmx has not processed: a fresh copy of the bar in place of the wired one, clicked with the mouse
    page.evaluate("""() => { const bar = document.getElementById('judge-bar');
        const copy = document.createRange().createContextualFragment(bar.outerHTML).firstElementChild;
        bar.replaceWith(copy); }""")
    page.click("#judge-bar button[value=non-exact]")
    page.wait_for_function("() => document.querySelector('#judge-bar .status .ok')")
    judgment = Judgment.objects.get(assessor=assessor)
    assert (judgment.value["label"], judgment.version) == ("non-exact", 1)
    assert page.evaluate("window.__noReload") is True
