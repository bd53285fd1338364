"""The assessor's flows in Chromium: keyboard-only judging of a series, nuggets (build, vote, match), double
judging with adjudication, and two tabs on one item."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from assess import judging
from assess.models import AnswerClass, Assignment, Invitation, Judgment, Nugget
from assess.official import nugget_votes, official_values
from tests.tracks.qa.test_adjudication import _disagreement
from tracks.qa import instance_judging, questions
from tracks.qa.sample import build_sample

pytestmark = pytest.mark.browser
User = get_user_model()


def expect_text(page, selector, text):
    try:
        page.wait_for_function(
            "([s, t]) => { const e = document.querySelector(s); return e && e.textContent.includes(t); }",
            arg=[selector, text],
        )
    except Exception:
        found = page.evaluate("(s) => (document.querySelector(s) || {}).outerHTML", selector)
        if found is None:
            found = page.evaluate("() => document.querySelector('#item-panel').outerHTML")
        raise AssertionError(f"{text!r} never appeared in {selector}: {found}") from None


def press(page, key, selector="#judge-bar .status .ok", text="saved"):
    page.keyboard.press(key)
    expect_text(page, selector, text)


@pytest.fixture
def instance_series(transactional_db, make_user):
    sample = build_sample()
    sample.questions.pop("1.3").delete()  # factoid and list only: judged item by item
    assessor = make_user("judy", "assessor")
    assignment = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=assessor)
    return sample, assessor, assignment


def test_judge_a_series_end_to_end_with_the_keyboard_only(page, login, live_server, instance_series):
    sample, assessor, assignment = instance_series
    login(page, "judy")
    page.goto(live_server.url + reverse("qa:assignment", args=[assignment.pk]))
    page.keyboard.press("u")  # the first question with items left to judge
    # a full page load: wait until "load", when the deferred key scripts run (the panel is there before)
    page.wait_for_url(live_server.url + reverse("qa:question", args=[assignment.pk, sample.questions["1.1"].pk]))
    page.wait_for_selector("#item-panel[data-question='1.1']")
    page.evaluate("window.__noReload = true")  # lost on any full page load
    assert page.locator("#key-list").is_visible()
    # factoid 1.1: "1983", "Karl Lagerfeld", "NIL", "Paris" → incorrect, globally-correct, globally-correct, non-exact
    for key in ("1", "5"):
        press(page, key)
        page.keyboard.press("j")
        page.wait_for_function("() => !document.querySelector('#judge-bar .status .ok')")
    # the NIL response offers only incorrect (1) and globally-correct (2)
    assert page.locator("#judge-bar .label-btn").count() == 2
    press(page, "2")
    page.keyboard.press("j")
    expect_text(page, ".item-meta", "Item 4 of 4")
    press(page, "3")
    page.keyboard.press("j")  # end of the question
    page.wait_for_selector("#question-done")
    page.keyboard.press("j")  # next question, still without a page load
    page.wait_for_selector("#item-panel[data-question='1.2']")
    # list 1.2: "Nicole Kidman" correct, new class (= alone judges it correct); "Keira Knightley" correct, then a
    # new class; "N. Kidman" into class 1 (⇧1, correct with it); "Brad Pitt" incorrect
    press(page, "=")
    expect_text(page, "#classes-panel", "Nicole Kidman")
    page.keyboard.press("j")
    expect_text(page, ".item-meta", "Item 2 of 4")
    press(page, "5")
    expect_text(page, "#judge-bar .classes .hint", "Put this correct answer into a class")
    page.keyboard.press("=")
    expect_text(page, "#classes-panel", "Keira Knightley")
    page.keyboard.press("j")
    expect_text(page, ".item-meta", "Item 3 of 4")
    press(page, "Shift+Digit1")
    # the first class's entry alone comes out of band, with its second member; the other class stays
    expect_text(page, "#class-list > li:first-child", "N. Kidman")
    expect_text(page, "#class-list > li:first-child", "(2 instances)")
    assert page.locator("#class-list > li").count() == 2
    page.keyboard.press("j")
    expect_text(page, ".item-meta", "Item 4 of 4")
    press(page, "1")
    page.keyboard.press("j")
    page.wait_for_selector("#question-done")
    assert page.evaluate("window.__noReload") is True
    expect_text(page, "#question-done", "last question")

    labels = {
        j.item.text: j.value
        for j in Judgment.objects.select_related("item").filter(assessor=assessor, topic=sample.questions["1.1"])
    }
    assert {t: v["label"] for t, v in labels.items()} == {
        "1983": "incorrect",
        "Karl Lagerfeld": "globally-correct",
        "NIL": "globally-correct",
        "Paris": "non-exact",
    }
    values = {
        j.item.text: j.value
        for j in Judgment.objects.select_related("item").filter(assessor=assessor, topic=sample.questions["1.2"])
    }
    kidman = AnswerClass.objects.get(topic=sample.questions["1.2"], label="Nicole Kidman")
    assert values["Nicole Kidman"]["answer_class"] == values["N. Kidman"]["answer_class"] == kidman.pk
    assert values["Keira Knightley"]["answer_class"] not in (None, kidman.pk)
    assert values["Brad Pitt"] == {"label": "incorrect", "answer_class": None}


def test_two_tabs_cannot_overwrite_each_other(browser, login, live_server, instance_series):
    sample, assessor, assignment = instance_series
    url = live_server.url + reverse("qa:question", args=[assignment.pk, sample.questions["1.1"].pk])
    first = browser.new_context()
    tab_a = first.new_page()
    login(tab_a, "judy")
    tab_b = first.new_page()
    tab_a.goto(url)
    tab_b.goto(url)
    press(tab_a, "1")
    tab_b.keyboard.press("3")
    expect_text(tab_b, "#judge-bar .status .error", "changed elsewhere")
    assert tab_b.locator("#judge-bar .label-btn.current").inner_text().endswith("incorrect")
    assert Judgment.objects.get(assessor=assessor).value["label"] == "incorrect"
    first.close()


def test_build_nuggets_vote_and_match(page, browser, login, live_server, transactional_db, make_user, organizer):
    sample = build_sample()
    primary = make_user("nora", "assessor")
    voter = make_user("victor", "assessor")
    assignment = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=primary)
    question = sample.questions["1.3"]
    login(page, "nora")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, question.pk]))
    # typed nugget
    page.fill("#nugget-create input[name=text]", "founded by Coco Chanel")
    page.keyboard.press("Enter")
    expect_text(page, "#nugget-list", "founded by Coco Chanel")
    # nugget from selected answer text
    page.evaluate("""() => {
        const el = [...document.querySelectorAll('.answer-words')].find(e => e.textContent.includes('Paris'));
        const node = [...el.childNodes].find(n => n.nodeType === 3 && n.textContent.includes('Paris'));
        const start = node.textContent.indexOf('headquartered');
        const range = document.createRange();
        range.setStart(node, start); range.setEnd(node, start + 'headquartered in Paris'.length);
        const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
        document.activeElement.blur();
    }""")
    page.keyboard.type("+")
    expect_text(page, "#nugget-list", "headquartered in Paris")
    page.fill("#nugget-create input[name=text]", "a duplicate about Paris")
    page.keyboard.press("Enter")
    expect_text(page, "#nugget-list", "a duplicate about Paris")
    assert Nugget.objects.filter(topic=question).count() == 3
    # edit, merge the duplicate into nugget 2, then delete it after confirming
    first_id, paris_id, dup_id = Nugget.objects.filter(topic=question).values_list("pk", flat=True)
    page.fill(f"li[data-nugget-id='{first_id}'] input[name=text]", "founded by Coco Chanel in 1909")
    page.click(f"li[data-nugget-id='{first_id}'] button:has-text('save text')")
    expect_text(page, "#nugget-workspace", "nugget edited")
    # match with the keyboard: current string 1 holds nugget 1; j to string 2 which holds nugget 3 (the duplicate)
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("1")
    expect_text(page, f"#match-{sample.items['1.3'][0].pk} .status", "saved")
    page.wait_for_selector(f"#match-{sample.items['1.3'][0].pk}.current")  # still the current string
    page.keyboard.press("j")
    page.keyboard.press("3")
    expect_text(page, f"#match-{sample.items['1.3'][1].pk} .status", "saved")
    page.select_option(f"li[data-nugget-id='{paris_id}'] select[name=sources]", str(dup_id))
    page.click(f"li[data-nugget-id='{paris_id}'] button:has-text('merge into this')")
    expect_text(page, "#nugget-workspace", "merged into")
    page.fill("#nugget-create input[name=text]", "to be deleted")
    page.keyboard.press("Enter")
    expect_text(page, "#nugget-list", "to be deleted")
    doomed = Nugget.objects.get(topic=question, text="to be deleted")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(f"li[data-nugget-id='{doomed.pk}'] button:has-text('delete')")
    expect_text(page, "#nugget-workspace", "nugget deleted")
    # primary votes
    page.click(f"#vote-{first_id} button[value=vital]")
    expect_text(page, f"#vote-{first_id} .status", "saved")
    page.click(f"#vote-{paris_id} button[value=okay]")
    expect_text(page, f"#vote-{paris_id} .status", "saved")
    assert official_values([question.pk], "nugget_match") == {
        sample.items["1.3"][0].pk: {"nuggets": [first_id]},
        sample.items["1.3"][1].pk: {"nuggets": [paris_id]},
    }

    # the organizer invites a voter, who sees the nuggets but not the responses
    Invitation.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], user=voter, kind=Invitation.VOTER, invited_by=organizer
    )
    context = browser.new_context()
    vpage = context.new_page()
    login(vpage, "victor")
    vpage.click("#invitations a")
    expect_text(vpage, "h1", "Vital or okay")
    body = vpage.locator("main").inner_text()
    assert "founded by Coco Chanel in 1909" in body and "Chanel No. 5 is its top-selling perfume" not in body
    vpage.click(f"#vote-{paris_id} button[value=vital]")
    expect_text(vpage, f"#vote-{paris_id} .status", "saved")
    context.close()
    votes = nugget_votes([question.pk])
    assert votes[first_id] == ["vital"] and sorted(votes[paris_id]) == ["okay", "vital"]


def test_double_judge_and_adjudicate(browser, login, live_server, transactional_db, make_user, organizer):
    sample = build_sample()
    ann, bob = make_user("ann", "assessor"), make_user("bob", "assessor")
    a1 = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=ann)
    a2 = Assignment.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], assessor=bob, role=Assignment.SECONDARY
    )
    q = sample.questions["1.1"]
    for user, assignment, keys in (("ann", a1, "15"), ("bob", a2, "55")):
        context = browser.new_context()
        tab = context.new_page()
        login(tab, user)
        tab.goto(live_server.url + reverse("qa:question", args=[assignment.pk, q.pk]))
        if user == "bob":  # the second assessor does not see the primary's labels
            assert tab.locator("#judge-bar .label-btn.current").count() == 0
            expect_text(tab, "#judge-bar .status", "not judged yet")
        for n, key in enumerate(keys):
            press(tab, key)
            tab.keyboard.press("j")
            expect_text(tab, ".item-meta", f"Item {n + 2} of 4")
        context.close()
    disputed = sample.items["1.1"][0]  # ann: incorrect, bob: globally-correct

    context = browser.new_context()
    tab = context.new_page()
    login(tab, "org")
    tab.goto(live_server.url + reverse("assess:organize", args=[sample.evaluation.slug]))
    expect_text(tab, "#agreement-pairs", "ann · bob")
    expect_text(tab, "#agreement-pairs", "0.500")
    tab.click("text=Adjudication queue")
    row = f"#adjudicate-{disputed.pk}"
    expect_text(tab, row + " .primary-label", "incorrect")
    expect_text(tab, row + " .secondary-label", "globally-correct")
    tab.wait_for_load_state()  # the rows come before htmx (deferred) wires their forms; on a busy machine, long before
    tab.click(f"{row} button[value=globally-correct]")
    expect_text(tab, row + " .status", "decided: globally-correct")
    context.close()
    assert official_values([q.pk], "instance")[disputed.pk]["label"] == "globally-correct"
    assert Judgment.objects.get(item=disputed, role="adjudicated").assessor.username == "org"


def test_history_spans_the_panel_in_words(page, login, live_server, instance_series):
    """h shows the item's history across the whole panel, under the item and its document, in words (issue 25)."""
    sample, assessor, assignment = instance_series
    login(page, "judy")
    page.goto(live_server.url + reverse("qa:question", args=[assignment.pk, sample.questions["1.1"].pk]))
    press(page, "1")
    page.keyboard.press("h")
    expect_text(page, "#history", "incorrect")
    history, panel, frame = (
        page.locator(sel).bounding_box() for sel in ("#history table", "#item-panel", "#item-panel iframe")
    )
    assert history["width"] > 0.8 * panel["width"]
    assert history["y"] >= frame["y"] + frame["height"]  # below the document, not beside it
    # brought into view: below the document frame it would otherwise open out of sight
    page.wait_for_function(
        "() => document.querySelector('#history table').getBoundingClientRect().bottom <= innerHeight + 2"
    )
    cells = page.locator("#history tbody td").all_inner_texts()
    assert "incorrect" in cells and not any("{" in c or "None" in c for c in cells)


def test_adjudicate_with_the_keys(page, login, live_server, transactional_db, make_user, organizer):
    """QA adjudication answers the keys BOLT's and BioGen's do (issue 25): p takes the primary's label, u moves to
    the next open disagreement, a digit decides the label with that number."""
    sample, first = _disagreement(make_user)
    ann, bob = (User.objects.get(username=n) for n in ("ann", "bob"))
    second = sample.items["1.1"][3]
    instance_judging.judge_instance(ann, judging.load_item(ann, second.pk), "incorrect", 0)
    instance_judging.judge_instance(bob, judging.load_item(bob, second.pk), "non-exact", 0)
    login(page, "org")
    page.goto(live_server.url + reverse("qa:adjudication", args=[sample.evaluation.slug]))
    page.wait_for_load_state()  # "load": the deferred key scripts run, htmx has wired the rows
    page.wait_for_selector(f"#adjudicate-{first.pk}.current")
    page.keyboard.press("p")
    expect_text(page, f"#adjudicate-{first.pk} .status", "decided: incorrect")
    page.keyboard.press("u")
    page.wait_for_selector(f"#adjudicate-{second.pk}.current")
    page.keyboard.press("2")
    label = questions.labels_for(second, sample.evaluation)[1]
    expect_text(page, f"#adjudicate-{second.pk} .status", f"decided: {label}")
    decided = official_values([sample.questions["1.1"].pk], "instance")
    assert decided[first.pk]["label"] == "incorrect" and decided[second.pk]["label"] == label
