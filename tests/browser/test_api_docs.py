"""The API's browsable documentation in Chromium: Swagger UI is served from our own static files and runs under the
pages' Content-Security-Policy, listing the endpoints of /api/schema/."""

import pytest

pytestmark = pytest.mark.browser


def test_the_api_docs_render_under_the_content_security_policy(page, login, live_server, organizer):
    refused = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    login(page, organizer.username)
    page.goto(live_server.url + "/api/docs/")
    page.wait_for_selector(".opblock-summary-path >> text=/api/evaluations/{slug}/runs/")
    assert page.locator(".opblock").count() >= 20
    assert refused == []
