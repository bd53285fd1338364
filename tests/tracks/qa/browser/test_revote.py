"""The primary assessor's later vote set in Chromium: the organizer asks for it on the judging page, the primary
opens it from their home page, sees which set they are voting (and neither their first votes nor any response),
and votes with the keyboard and the mouse."""

import pytest
from django.urls import reverse

from assess.models import Assignment, Judgment
from assess.official import REVOTE, VOTE, nugget_vote_sets
from config.patience import scaled
from tracks.qa import nugget_judging
from tracks.qa.sample import build_sample

pytestmark = pytest.mark.browser


def expect_text(page, selector, text):
    page.wait_for_function(
        "([s, t]) => { const e = document.querySelector(s); return e && e.textContent.includes(t); }",
        arg=[selector, text],
    )


def test_primary_votes_a_later_set(page, browser, login, live_server, transactional_db, make_user, organizer):
    sample = build_sample()
    nora = make_user("nora", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=nora)
    question = sample.questions["1.3"]
    first, second = (
        nugget_judging.create_nugget(nora, question, text)
        for text in ("founded by Coco Chanel in 1909", "a fashion house in Paris")
    )
    nugget_judging.vote(nora, first, "vital", 0)
    nugget_judging.vote(nora, second, "okay", 0)

    # the organizer asks the primary of series 1 to vote again
    login(page, "org")
    page.goto(live_server.url + reverse("assess:organize", args=[sample.evaluation.slug]))
    page.select_option("#revote-form select[name=series]", str(sample.series[0].pk))
    page.click("#revote-form button[type=submit]")
    expect_text(page, "#invitation-list", "Later vote set of the primary: nora on series 1")

    context = browser.new_context()
    tab = context.new_page()
    tab.set_default_timeout(scaled(10_000))
    login(tab, "nora")
    tab.click("#invitations a:has-text('Vote again')")
    expect_text(tab, "#vote-set", "Your later vote set")
    body = tab.locator("main").inner_text()
    assert "founded by Coco Chanel in 1909" in body
    assert "Chanel No. 5 is its top-selling perfume" not in body and "headquartered in Paris" not in body
    assert tab.locator(".vote-btn.current").count() == 0  # the first votes are not shown

    # keyboard: the nugget cursor starts on the first nugget; o votes it okay and moves on
    tab.wait_for_selector(f"li[data-nugget-id='{first.pk}'].current")
    tab.keyboard.press("o")
    expect_text(tab, f"#vote-{first.pk} .status", "saved")
    tab.wait_for_selector(f"#vote-{first.pk} button[value=okay].current")
    tab.wait_for_selector(f"li[data-nugget-id='{second.pk}'].current")
    # mouse: the second nugget vital, then changed to okay (the swapped form carries the new version)
    tab.click(f"#vote-{second.pk} button[value=vital]")
    expect_text(tab, f"#vote-{second.pk} .status", "saved")
    tab.click(f"#vote-{second.pk} button[value=okay]")
    tab.wait_for_selector(f"#vote-{second.pk} button[value=okay].current")
    expect_text(tab, f"#vote-{second.pk} .status", "saved")
    tab.reload()
    expect_text(tab, "#vote-set", "Your later vote set")
    assert tab.locator(f"#vote-{first.pk} button[value=okay].current").count() == 1
    context.close()

    later = {j.nugget_id: (j.value["vote"], j.version) for j in Judgment.objects.filter(kind=REVOTE, assessor=nora)}
    assert later == {first.pk: ("okay", 1), second.pk: ("okay", 2)}
    official, votes = nugget_vote_sets([question.pk])
    assert official == {first.pk: "vital", second.pk: "okay"}  # the first votes still count as vital/okay
    assert sorted(votes[first.pk]) == ["okay", "vital"] and votes[second.pk] == ["okay", "okay"]
    assert Judgment.objects.filter(kind=VOTE, assessor=nora).count() == 2
