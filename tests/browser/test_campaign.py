"""The campaign in Chromium (issue 17): a participant downloads the test questions, checks and submits a run and
keeps the receipt, then fetches only its own runs' judgments once released; an invited user sets a password by
the one-time link; a forgotten password is reset by e-mail; failed logins lock an account with a clear message."""

import re
from pathlib import Path

import pytest
from django.core import mail

from accounts.models import Team
from assess.models import Judgment
from corpus.models import Collection, Document
from pooling.evaluations import create_evaluation
from pooling.models import Run, Submission
from pooling.topics import load_topics
from scoring.release import release
from tests.test_pooling_loading import DOCNOS, FIXTURES
from tracks.qa.sample import build_sample

pytestmark = pytest.mark.browser
NEW_PASSWORD = "a-fresh-Passphrase-42"


@pytest.fixture
def tac(transactional_db):
    collection = Collection.objects.create(name="test-blog06", format="blog06")
    Document.objects.bulk_create([Document(collection=collection, docno=d, raw=b"<DOC></DOC>") for d in DOCNOS])
    evaluation = create_evaluation("tac-camp", "tac2008-qa", ["test-blog06"], title="TAC campaign")
    load_topics(evaluation, (FIXTURES / "tac2008_questions.xml").read_bytes(), "tac2008_questions.xml")
    return evaluation


def _download(page, selector):
    with page.expect_download() as info:
        page.click(selector)
    return Path(info.value.path()).read_bytes(), info.value.suggested_filename


def test_participant_downloads_checks_submits_and_keeps_the_receipt(page, login, make_user, tac):
    make_user("alice", "participant", team="Team Alpha")
    login(page, "alice")
    page.click(".participate-link")
    page.wait_for_selector("#submit-form")
    questions, name = _download(page, "a.team-file[data-kind=topics]")
    assert name == "tac2008_questions.xml" and questions == (FIXTURES / "tac2008_questions.xml").read_bytes()

    # a manual first run: refused with the rules named, nothing stored
    page.set_input_files("#submit-form input[name=file]", str(FIXTURES / "tac_valid_run.txt"))
    page.check("#submit-form input[name=manual]")
    page.click("#submit-button")
    page.wait_for_selector("#problems")
    assert "rule 'first-priority run automatic'" in page.locator("#problems").inner_text()
    # the outcome comes first on the page, not below the form
    assert page.locator("#check-result").bounding_box()["y"] < page.locator("#window").bounding_box()["y"]
    assert not Run.objects.exists()

    page.set_input_files("#submit-form input[name=file]", str(FIXTURES / "tac_valid_run.txt"))
    page.uncheck("#submit-form input[name=manual]")
    page.click("#check-button")
    page.wait_for_selector("#ok")
    assert not Run.objects.exists()  # checked only
    page.set_input_files("#submit-form input[name=file]", str(FIXTURES / "tac_valid_run.txt"))
    page.click("#submit-button")
    page.wait_for_selector("#receipt")
    receipt = Submission.objects.get()
    assert f"sha256: {receipt.sha256}" in page.locator("#receipt").inner_text()
    text, name = _download(page, "#receipt-download")
    assert name == "receipt-AlphaQA1.txt" and b"run tag: AlphaQA1" in text


def test_released_judgments_are_the_teams_own(page, login, make_user, transactional_db):
    sample = build_sample(slug="camp", track="tac2008-qa")
    alice = make_user("alice", "participant", team="Team Alpha")
    alpha, beta = Team.objects.get(name="Team Alpha"), Team.objects.create(name="Team Beta")
    Run.objects.filter(tag="camprun1").update(team=alpha)
    Run.objects.filter(tag="camprun2").update(team=beta)
    for items in sample.items.values():
        for item in items:
            Judgment.objects.create(
                evaluation=sample.evaluation,
                topic=item.topic,
                kind="instance",
                item=item,
                assessor=alice,
                value={"label": "correct", "answer_class": None},
            )
    login(page, "alice")
    page.click(".participate-link")
    page.wait_for_selector("#files")
    assert "Judgments of your runs" not in page.locator("#files").inner_text()
    release(sample.evaluation, alpha)
    page.reload()
    body, _ = _download(page, "text=Judgments of your runs (tab-separated)")
    assert b"camprun1\t" in body and b"camprun2" not in body


def _link_in(text):
    return re.search(r"https?://[^\s]+/account/reset/\S+/", text).group(0)


def _set_password(page, link):
    page.goto(link)
    page.wait_for_selector("#password-set-form")
    page.fill("input[name=new_password1]", NEW_PASSWORD)
    page.fill("input[name=new_password2]", NEW_PASSWORD)
    page.click("#password-set-form button[type=submit]")
    page.wait_for_selector("#complete")


def test_invited_user_sets_a_password_once_and_logs_in(page, browser, login, make_user, live_server):
    make_user("boss", "organizer")
    login(page, "boss")
    page.click("text=Users")
    page.fill("#invite-form input[name=username]", "newbie")
    page.fill("#invite-form input[name=email]", "newbie@example.org")
    page.check("#invite-form input[value=assessor]")
    page.click("#invite-form button[type=submit]")
    link = page.locator("#invitation-link").inner_text().strip()
    assert link == _link_in(mail.outbox[-1].body)

    invited = browser.new_context().new_page()
    _set_password(invited, link)
    login(invited, "newbie", NEW_PASSWORD)
    assert invited.locator(".who").inner_text().startswith("newbie")
    invited.goto(link)
    invited.wait_for_selector("#invalid-link")  # one time only
    invited.context.close()


def test_forgotten_password_is_reset_by_email(page, login, make_user, live_server):
    user = make_user("par", "participant", team="Team Alpha")
    user.email = "par@example.org"
    user.save()
    page.goto(f"{live_server.url}/login/")
    page.click("#forgot-password")
    page.fill("input[name=email]", "par@example.org")
    page.click("#password-reset-form button[type=submit]")
    page.wait_for_selector("#sent")
    _set_password(page, _link_in(mail.outbox[-1].body))
    login(page, "par", NEW_PASSWORD)
    assert page.locator(".who").inner_text().startswith("par")


def test_failed_logins_lock_with_a_clear_message(page, login, make_user, settings):
    make_user("par", "participant", team="Team Alpha")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(page, "par", "not-the-password")
    assert "locked after" in page.locator("#locked-out").inner_text()
    login(page, "par")  # the right password is refused too while locked
    page.wait_for_selector("#locked-out")
