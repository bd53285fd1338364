"""The save protocol of static/js/saves.js on QA's htmx forms: one save per judgment in flight (a change made
meanwhile goes after it, a refusal drops it), and forms used before htmx wired them."""

import time

import pytest
from django.urls import reverse

from assess.models import Assignment, Judgment
from tests.tracks.qa.browser.test_judging import expect_text, instance_series  # noqa: F401
from tracks.qa import instance_judging, nugget_judging

pytestmark = pytest.mark.browser


def slow(monkeypatch, module, name, seconds=0.6):
    real = getattr(module, name)

    def slowed(*args, **kwargs):
        time.sleep(seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, slowed)


def test_a_label_pressed_while_a_save_is_out_goes_after_it(page, login, live_server, instance_series, monkeypatch):
    sample, assessor, assignment = instance_series
    slow(monkeypatch, instance_judging, "judge_instance")
    login(page, "judy")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, sample.questions["1.1"].pk]))
    page.wait_for_selector("#judge-bar")
    assert page.evaluate("window.assaySaves.wired(document.getElementById('judge-bar'))") is True
    page.evaluate("window.__noReload = true")
    page.keyboard.press("1")
    page.wait_for_timeout(100)
    assert page.evaluate("window.assaySaves.busy(document.getElementById('judge-bar'))") is True
    page.keyboard.press("3")
    page.wait_for_function("() => document.querySelector('#judge-bar .status').textContent.includes('version 2')")
    j = Judgment.objects.get(assessor=assessor)
    assert (j.value["label"], j.version) == ("non-exact", 2)
    assert page.evaluate("window.__noReload") is True


def test_a_toggle_while_the_row_saves_goes_after_it(
    page, login, live_server, sample, primary, transactional_db, monkeypatch
):
    question = sample.questions["1.3"]
    items = sample.items["1.3"]
    assignment = Assignment.objects.get(assessor=primary)
    nuggets = [nugget_judging.create_nugget(primary, question, f"nugget number {i}") for i in range(1, 4)]
    slow(monkeypatch, nugget_judging, "match")
    login(page, "prim")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, question.pk]))
    page.wait_for_selector(f"#match-{items[0].pk}.current")
    page.evaluate("window.__noReload = true")
    page.keyboard.press("1")
    page.wait_for_timeout(100)
    page.keyboard.press("3")
    page.wait_for_selector(f"#match-{items[0].pk} input[name=version][value='2']", state="attached")
    j = Judgment.objects.get(assessor=primary, item=items[0], kind="nugget_match")
    assert sorted(j.value["nuggets"]) == sorted([nuggets[0].pk, nuggets[2].pk]) and j.version == 2
    assert page.evaluate("window.__noReload") is True


def test_a_refusal_drops_what_waited(page, login, live_server, instance_series, monkeypatch):
    sample, assessor, assignment = instance_series
    login(page, "judy")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, sample.questions["1.1"].pk]))
    page.wait_for_selector("#judge-bar")
    item = sample.items["1.1"][0]
    item.evaluation = sample.evaluation
    instance_judging.judge_instance(assessor, item, "incorrect", 0)  # another tab
    slow(monkeypatch, instance_judging, "judge_instance")
    page.keyboard.press("5")
    page.wait_for_timeout(100)
    page.keyboard.press("3")
    expect_text(page, "#judge-bar .status .error", "changed elsewhere")
    page.wait_for_timeout(1500)
    j = Judgment.objects.get(assessor=assessor)
    assert (j.value["label"], j.version) == ("incorrect", 1)


def test_a_save_form_submitted_before_htmx_wired_it(page, login, live_server, instance_series):
    sample, assessor, assignment = instance_series
    login(page, "judy")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, sample.questions["1.1"].pk]))
    page.wait_for_selector("#judge-bar")
    page.evaluate("window.__noReload = true")
    # fresh markup htmx has not processed: a copy of the bar, clicked with the mouse
    page.evaluate("""() => { const bar = document.getElementById('judge-bar');
        const copy = bar.cloneNode(true); copy.id = 'judge-bar-copy'; copy.removeAttribute('hx-target');
        copy.setAttribute('hx-target', 'this');
        bar.parentNode.insertBefore(copy, bar); bar.remove(); }""")
    assert page.evaluate("window.assaySaves.wired(document.getElementById('judge-bar-copy'))") is False
    page.click("#judge-bar-copy button[value=non-exact]")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.status')].some(s => s.textContent.includes('version 1'))"
    )
    assert Judgment.objects.get(assessor=assessor).value["label"] == "non-exact"
    assert page.evaluate("window.__noReload") is True


def test_a_row_changed_before_htmx_wired_it(page, login, live_server, sample, primary, transactional_db):
    question = sample.questions["1.3"]
    items = sample.items["1.3"]
    assignment = Assignment.objects.get(assessor=primary)
    nuggets = [nugget_judging.create_nugget(primary, question, f"nugget number {i}") for i in range(1, 3)]
    login(page, "prim")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, question.pk]))
    page.wait_for_selector(f"#match-{items[0].pk}.current")
    page.evaluate("window.__noReload = true")
    page.evaluate(
        """(id) => { const row = document.getElementById(id);
        const copy = row.cloneNode(true); row.parentNode.insertBefore(copy, row); row.remove(); }""",
        f"match-{items[0].pk}",
    )
    assert page.evaluate(f"window.assaySaves.wired(document.getElementById('match-{items[0].pk}'))") is False
    page.click(f"#match-{items[0].pk} input[data-nugget-index='2']")
    page.wait_for_selector(f"#match-{items[0].pk} input[name=version][value='1']", state="attached")
    j = Judgment.objects.get(assessor=primary, item=items[0], kind="nugget_match")
    assert j.value["nuggets"] == [nuggets[1].pk]
    assert page.evaluate("window.__noReload") is True
