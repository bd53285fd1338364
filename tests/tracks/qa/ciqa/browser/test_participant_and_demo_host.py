"""In the browser: a ciQA team submits its initial run and URL file, then its final run naming the initial run,
each with a receipt (issue 25); and the demo's URL files open the stand-in system in the assessor's logged-in
session, because they name the host scripts/demo serves and prints (the clock no longer runs on a login page)."""

import re
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.urls import reverse
from playwright.sync_api import expect

from assess.assignments import assign
from config.patience import scaled
from pooling.evaluations import create_evaluation
from pooling.models import Run, Submission
from pooling.topics import load_topics
from tests.conftest import PASSWORD
from tests.tracks.qa.ciqa.test_pipeline import TOPICS, run_bytes, url_bytes
from tracks.qa.ciqa import demo, sessions, submissions
from tracks.qa.ciqa.models import InteractionSession, UrlFile

pytestmark = pytest.mark.browser


def test_a_team_submits_both_stages_in_the_browser(page, login, live_server, transactional_db, make_user, monkeypatch):
    monkeypatch.setattr("pooling.runs.known_docids_for", lambda evaluation: lambda docids: set(docids))
    evaluation = create_evaluation("ciqa-teams", "trec2007-ciqa")
    load_topics(evaluation, TOPICS, "topics.txt")
    make_user("umd", "participant", team="UMD")
    login(page, "umd")
    mine = live_server.url + reverse("pooling:participate", args=[evaluation.slug])

    def submit(name, data, kind, initial=""):
        page.goto(mine)
        page.set_input_files("#id_file", files=[{"name": name, "mimeType": "text/plain", "buffer": data}])
        page.select_option("#id_kind", kind)
        page.fill("#id_initial_tag", initial)
        with page.expect_navigation():
            page.click("#submit-button")
        expect(page.locator("body")).to_contain_text("received")  # the receipt page

    # stage 1: the initial run and the URL file, before the interactions
    submit("UMDi1.txt", run_bytes("UMDi1", ("56", "D1", "drugs cross"), ("57", "D2", "grants")), "initial")
    submit("u.txt", url_bytes("UMDurl1"), "urls")
    # a final run naming no submitted initial run is refused, by name, and nothing is stored
    final = run_bytes("UMDf1", ("56", "D1", "drugs cross"), ("57", "D3", "stock"))
    page.goto(mine)
    page.set_input_files("#id_file", files=[{"name": "UMDf1.txt", "mimeType": "text/plain", "buffer": final}])
    page.select_option("#id_kind", "final")
    page.fill("#id_initial_tag", "UMDi9")
    with page.expect_navigation():
        page.click("#submit-button")
    expect(page.locator("#problems")).to_contain_text("UMDf1.txt:0: initial run 'UMDi9' has not been submitted")
    # stage 2: the final run, after the interactions, naming its initial run
    submit("UMDf1.txt", final, "final", "UMDi1")
    page.goto(mine)
    rows = page.locator("#receipts tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("#receipts")).to_contain_text("UMDf1 (final, after UMDi1)")
    expect(page.locator("#receipts")).to_contain_text("UMDurl1 (URL file)")
    assert Run.objects.get(tag="UMDf1").data["initial_tag"] == "UMDi1"
    assert UrlFile.objects.get(tag="UMDurl1").team.name == "UMD"
    assert Submission.objects.filter(user__username="umd").count() == 3


def test_the_demos_system_opens_in_the_assessors_session(page, live_server, transactional_db, make_user, monkeypatch):
    printed = re.search(r"starting at http://([^:/]+):", (settings.BASE_DIR / "scripts" / "demo").read_text())[1]
    port = urlsplit(live_server.url).port
    monkeypatch.setenv("PORT", str(port))  # as scripts/demo exports it before load_demo
    assert urlsplit(demo.demo_site()).hostname == printed  # the URL files name the host the demo prints
    evaluation = create_evaluation("ciqa-demo-host", "trec2007-ciqa", settings={"allow_private_urls": True})
    load_topics(evaluation, demo.TOPICS.read_bytes(), demo.TOPICS.name)
    make_user("judge", "assessor")
    topics = submissions.test_topics(evaluation)
    submissions.load_url_file(evaluation, demo.url_file_bytes("AlphaURL1", "Team Alpha", topics), "u.txt", "A")
    assign(evaluation, "901", "judge")
    sessions.plan_sessions(evaluation)
    first = InteractionSession.objects.filter(assessor__username="judge").order_by("position").first()

    site = f"http://{printed}:{port}"  # where the demo says it is, and where the assessor logs in
    page.goto(f"{site}/login/")
    page.fill("input[name=username]", "judge")
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("button[type=submit]")
    page.goto(site + reverse("qa:ciqa_session", args=[first.pk]))
    with page.context.expect_page() as opened:
        page.click("#open-system")
    system = opened.value
    expect(system.locator("#demo-topic")).to_contain_text(f"Topic {first.topic.ident}", timeout=scaled(30_000))
    expect(system.locator("input[name=password]")).to_have_count(0)  # not the login page
    expect(page.locator("#status-text")).to_have_text("running", timeout=scaled(30_000))  # and the clock runs
