"""In the browser: an assessor's timed ciQA sessions (the system opens in a new window, the count-down runs out and
ends the session; stopping early; skipping an unreachable system with a reason), then the exit questionnaire with
the system's screenshot, saved per assessor, team and question."""

import base64

import pytest
from django.urls import reverse

from assess.assignments import assign
from config.patience import scaled
from pooling.evaluations import create_evaluation
from pooling.topics import load_topics
from tracks.qa.ciqa import baseline, sessions, submissions
from tracks.qa.ciqa.models import InteractionSession, QuestionnaireAnswer
from tracks.qa.ciqa.sessions import set_interaction_seconds

pytestmark = pytest.mark.browser

TOPICS = b"""Topic Number: ciQA2007throwaway
Template: What is the position of [Hank Aaron] with respect to [Barry Bonds' use of steroids]?
Narrative: A training topic.

Topic Number: 56
Template: What evidence is there for transport of [drugs] from [Mexico] to [the U.S.]?
Narrative: Efforts to curtail the transport.

Topic Number: 57
Template: What [financial relationships] exist between [drug companies] and [universities]?
Narrative: Money.
"""
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@pytest.fixture
def planned(transactional_db, make_user, live_server):
    # the systems are the live server's own pages, on localhost: allowed for this evaluation, as in the demo
    evaluation = create_evaluation("ciqa-browser", "trec2007-ciqa", settings={"allow_private_urls": True})
    load_topics(evaluation, TOPICS, "topics.txt")
    make_user("judge", "assessor")
    base = f"{live_server.url}/assess/ciqa/demo-system"
    urls = f"tag UMDurl1\nciQA2007throwaway {base}/ciQA2007throwaway/\n56 {base}/56/\n57 {base}/57/\n"
    url_file, _ = submissions.load_url_file(evaluation, urls.encode(), "u.txt", "UMD")
    submissions.add_screenshot(url_file, PNG, "shot.png")
    assign(evaluation, "56", "judge")
    assign(evaluation, "57", "judge")
    set_interaction_seconds(evaluation, 10)
    sessions.plan_sessions(evaluation)
    return evaluation, url_file


def test_timed_sessions_then_the_questionnaire(page, login, live_server, planned):
    evaluation, url_file = planned
    login(page, "judge")
    page.goto(live_server.url + reverse("qa:ciqa_sessions", args=[evaluation.slug]))
    assert page.locator("#sessions-progress").inner_text().startswith("0 of 3")
    page.click("#next-session")
    page.wait_for_load_state()
    assert "(training)" in page.locator("h1").inner_text()  # the training topic comes first
    assert page.locator("#timer").inner_text() == "0:10"

    # 1. the system opens in a new window and the clock starts; when it runs out the session ends by itself
    with page.context.expect_page() as opened:
        page.click("#open-system")
    system = opened.value
    system.wait_for_load_state()
    assert "Topic ciQA2007throwaway" in system.locator("#demo-topic").inner_text()
    page.wait_for_function("() => document.getElementById('status-text').textContent === 'running'")
    first = InteractionSession.objects.get(assessor__username="judge", topic__ident="ciQA2007throwaway")
    assert first.started_at is not None and first.seconds == 10
    page.wait_for_selector("#ended", timeout=scaled(30_000))  # the count-down reached 0:00 and the page reloaded
    first.refresh_from_db()
    assert first.ended_at is not None and not first.stopped_early
    assert (first.ended_at - first.started_at).total_seconds() == pytest.approx(10, abs=1.5)
    system.close()

    # 2. stopped early
    page.click("#next-session")
    page.wait_for_load_state()
    assert page.locator("#stop-early").is_disabled()
    with page.context.expect_page() as opened:
        page.click("#open-system")
    opened.value.close()
    page.wait_for_function("() => !document.getElementById('stop-early').disabled")
    with page.expect_navigation():
        page.click("#stop-early")
    assert "stopped early" in page.locator("#ended").inner_text()

    # 3. the system cannot be reached: skipped with the reason
    page.click("#next-session")
    page.wait_for_load_state()
    page.fill("#skip-reason", "the page never loads")
    with page.expect_navigation():
        page.click("#skip")
    assert "skipped: the page never loads" in page.locator("#ended").inner_text()
    statuses = dict(
        InteractionSession.objects.filter(assessor__username="judge").values_list("topic__ident", "skip_reason")
    )
    assert statuses == {"ciQA2007throwaway": "", "56": "", "57": "the page never loads"}

    # the questionnaire, with the system's screenshot
    page.click("#all-sessions")
    page.wait_for_load_state()
    page.click("#questionnaire-link a")
    page.wait_for_load_state()
    block = page.locator("fieldset.interaction[data-interaction='UMDurl1']")
    assert block.locator("img").evaluate("img => img.complete && img.naturalWidth") == 1
    scale = block.locator("[data-question='understand']").inner_text().split()
    assert scale[-7:] == ["easy", "1", "2", "3", "4", "5", "difficult"]  # 5 points between the labelled ends
    block.locator(f"input[name='{url_file.pk}-understand'][value='2']").check()
    block.locator(f"input[name='{url_file.pk}-quality'][value='5']").check()
    block.locator(f"textarea[name='{url_file.pk}-comments']").fill("clear, but slow")
    page.fill("textarea[name='all-favourite']", "UMD's, the only one")
    with page.expect_navigation():
        page.click("#save-questionnaire")
    answers = {
        (a.url_file_id, a.question): a.value
        for a in QuestionnaireAnswer.objects.filter(assessor__username="judge").exclude(value="")
    }
    assert answers == {
        (url_file.pk, "understand"): "2",
        (url_file.pk, "quality"): "5",
        (url_file.pk, "comments"): "clear, but slow",
        (None, "favourite"): "UMD's, the only one",
    }
    # the saved answers are shown again
    assert block.locator(f"input[name='{url_file.pk}-understand'][value='2']").is_checked()


def test_the_baseline_interaction_judges_sentences_in_the_window_it_opens(
    page, login, live_server, planned, monkeypatch
):
    from tracks.qa.ciqa.models import SentenceJudgment

    # the evaluation has no collection: every docid is taken as known
    monkeypatch.setattr("pooling.runs.known_docids_for", lambda evaluation: lambda docids: set(docids))
    evaluation, _ = planned
    run, _ = submissions.load_run(
        evaluation,
        b"56 BASEi D1 Drugs cross the border at Laredo.\n56 BASEi D2 The weather was fine.\n57 BASEi D3 Grants.\n",
        "base.txt",
        "NIST",
        "initial",
        override_reason="the NIST baseline, prepared after the assignments",  # judging has started (assignments): runs are frozen
    )
    interaction = baseline.baseline_interaction(evaluation, run)
    sessions.plan_sessions(evaluation)
    session = InteractionSession.objects.get(assessor__username="judge", url_file=interaction, topic__ident="56")
    login(page, "judge")
    page.goto(live_server.url + reverse("qa:ciqa_session", args=[session.pk]))
    with page.context.expect_page() as opened:
        page.click("#open-system")
    window = opened.value
    window.wait_for_load_state()
    page.wait_for_function("() => document.getElementById('status-text').textContent === 'running'")
    sentences = window.locator("#sentences li")
    assert sentences.count() == 2  # topic 56's sentences only, in run order
    assert "Drugs cross the border" in sentences.nth(0).inner_text()
    sentences.nth(0).locator("input[value='relevant']").check()
    sentences.nth(1).locator("input[value='not-relevant']").check()
    with window.expect_navigation():
        window.click("#save-sentences")
    labels = dict(SentenceJudgment.objects.filter(session=session).values_list("entry__text", "label"))
    assert labels == {"Drugs cross the border at Laredo.": "relevant", "The weather was fine.": "not-relevant"}
    assert window.locator("#sentences li").nth(1).locator("input[value='not-relevant']").is_checked()
