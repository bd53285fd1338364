"""Each role logs in through the real form in Chromium and lands on its own home page."""

import pytest

pytestmark = pytest.mark.browser

HEADINGS = {"organizer": "Evaluations", "assessor": "My assignments", "participant": "My team's runs"}


@pytest.mark.parametrize("role", sorted(HEADINGS))
def test_role_logs_in_and_sees_home(page, login, make_user, role, live_server):
    make_user(f"{role}1", role, team="Team Alpha" if role == "participant" else None)
    login(page, f"{role}1")
    assert page.locator("h1").inner_text() == HEADINGS[role]
    assert page.locator(".who").inner_text().endswith(role)
    # htmx is served from our own static files and loaded (no CDN)
    assert page.evaluate("typeof window.htmx") == "object"
    page.click(".logout button")
    page.wait_for_url(f"{live_server.url}/login/")


def test_wrong_password_is_refused(page, login, make_user):
    make_user("someone", "assessor")
    login(page, "someone", password="wrong")
    assert "didn't match" in page.locator("form").inner_text()
