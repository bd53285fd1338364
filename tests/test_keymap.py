"""The key map of the judging pages (assess/keymap.py, pages declared by the tracks' keys modules): no key means
two things, and every judging page, as rendered, uses only keys it declares and lists every one of them in its `?`
dialog."""

import json
import re
from collections import defaultdict

import pytest
from django.urls import reverse

from assess import keymap
from assess.models import Assignment, Invitation
from core.tracks import TRACKS
from tests.tracks.bolt.test_adjudication import build_disagreements
from tests.tracks.bolt.test_views import setup  # noqa: F401 (a fixture: topic 1.002 assigned to bolt-a1)
from tests.tracks.qa.test_adjudication import _disagreement
from tracks.biogen import keys as biogen_keys
from tracks.bolt import judging
from tracks.bolt import keys as bolt_keys
from tracks.qa import instance_judging, nugget_judging
from tracks.qa import keys as qa_keys


def test_no_key_means_two_things():
    actions = defaultdict(set)
    for page in keymap.pages().values():
        for k, _ in page.keys:
            for name in k.keys:
                actions[name].add(k.action)
    assert {name: a for name, a in actions.items() if len(a) > 1} == {}
    # the clash the one map ends: "n" was "next item" in QA and "no" in BOLT
    assert actions["n"] == {"no"} and actions["j"] == {"next"}
    assert keymap.action_of("n") == "no" and keymap.key("next") == "j"


def test_the_map_holds_every_registered_tracks_pages():
    assert set(keymap.pages()) == {p.ident for track in TRACKS.values() for p in track.pages}
    assert set(keymap.pages()) >= {p.ident for p in qa_keys.PAGES + bolt_keys.PAGES + biogen_keys.PAGES}
    assert [p for p in keymap.pages().values() if p.auto_advance] == [qa_keys.INSTANCES]


def test_a_key_with_a_second_action_is_refused_when_the_map_is_built():
    pages = list(keymap.pages().values())
    with pytest.raises(keymap.KeyClash, match="'n' cannot be 'next', it is 'no' already"):
        keymap.build([*pages, keymap.Page("clash", "a page", ((keymap.Key(("n",), "n", "next"), "next thing"),))])
    twice = ((keymap.Key(("F13",), "F13", "one"), "one thing"), (keymap.Key(("F13",), "F13", "other"), "another"))
    with pytest.raises(keymap.KeyClash, match="'F13' cannot be 'other'"):  # within one page, too
        keymap.build([*pages, keymap.Page("clash", "a page", twice)])
    with pytest.raises(ValueError, match="has no description"):
        keymap.build([keymap.Page("mute", "a page", ((keymap.Key(("F14",), "F14", "mute"), " "),))])
    # the registered map is untouched
    assert "clash" not in keymap.pages() and keymap.action_of("F13") is None


def test_a_track_registered_later_adds_its_pages(monkeypatch):
    from dataclasses import replace

    page = keymap.Page("later", "a later track's page", ((keymap.Key(("F15",), "F15", "later-thing"), "does it"),))
    monkeypatch.setitem(TRACKS, "later", replace(next(iter(TRACKS.values())), slug="later", pages=(page,)))
    assert keymap.get_page("later") is page and keymap.action_of("F15") == "later-thing"
    monkeypatch.undo()
    assert "later" not in keymap.pages() and keymap.action_of("F15") is None


def test_every_declared_key_is_described_on_declared_pages():
    for page in keymap.pages().values():
        for k, text in page.keys:
            assert k.keys and k.shown and k.action and text.strip(), (page.ident, k)
        assert keymap.for_page(page.ident)[0] == ("?", "show this list of keys (Escape closes it)")
    with pytest.raises(KeyError):
        keymap.for_page("no-such-page")


def declared_on(page_html):
    """The key map the page hands its scripts, the keys its dialog lists, and every data-key it renders."""
    script = json.loads(
        re.search(r'<script id="keymap" type="application/json">(.*?)</script>', page_html, re.DOTALL).group(1)
    )
    dialog = re.search(r'<dialog id="key-help".*?</dialog>', page_html, re.DOTALL).group(0)
    listed = re.findall(r"<dt>(.*?)</dt>", dialog)
    used = {v for v in re.findall(r'data-key="([^"]*)"', page_html) if v}
    return script, listed, used


def assert_page_keys(client, url, page):
    response = client.get(url)
    assert response.status_code == 200, url
    html = response.content.decode()
    assert f'data-page="{page}"' in html
    script, listed, used = declared_on(html)
    assert script == keymap.for_script(page)
    assert listed == [shown for shown, _ in keymap.for_page(page)]
    assert used <= set(script), (page, used - set(script))
    if "data-class-number" in html:  # ⇧digits press the numbered class buttons
        assert script.get("Shift+1") == "class"
    return html


@pytest.fixture
def qa(sample, make_user, organizer):
    nora = make_user("nora", "assessor")
    assignment = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=nora)
    list_item = sample.items["1.2"][0]
    list_item.evaluation = sample.evaluation
    instance_judging.create_class(nora, sample.questions["1.2"], "", item=list_item, expected_version=0)
    nugget_judging.create_nugget(nora, sample.questions["1.3"], "founded by Coco Chanel")
    voter = make_user("victor", "assessor")
    Invitation.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], user=voter, kind=Invitation.VOTER, invited_by=organizer
    )
    return sample, nora, assignment, voter


def test_qa_pages_use_and_list_only_declared_keys(client, qa):
    sample, nora, assignment, voter = qa
    client.force_login(nora)
    html = assert_page_keys(client, reverse("qa:assignment", args=[assignment.pk]), qa_keys.SERIES.ident)
    assert 'data-key="u"' in html
    html = assert_page_keys(
        client, reverse("qa:question", args=[assignment.pk, sample.questions["1.2"].pk]), qa_keys.INSTANCES.ident
    )
    assert 'data-class-number="1"' in html and "<kbd>⇧1</kbd>" in html and 'id="auto-advance"' in html
    assert 'data-key="n"' not in html and 'data-key="j"' in html
    assert_page_keys(
        client, reverse("qa:question", args=[assignment.pk, sample.questions["1.3"].pk]), qa_keys.NUGGETS.ident
    )
    client.force_login(voter)
    html = assert_page_keys(client, reverse("qa:vote_series", args=[sample.series[0].pk]), qa_keys.VOTES.ident)
    assert "vital <kbd>v</kbd>" in html


def test_qa_adjudication_lists_its_keys(client, make_user, organizer):
    sample, item = _disagreement(make_user)
    client.force_login(organizer)
    html = assert_page_keys(
        client, reverse("qa:adjudication", args=[sample.evaluation.slug]), qa_keys.ADJUDICATION.ident
    )
    assert {"p", "s", "u", "j", "1"} <= set(keymap.for_script(qa_keys.ADJUDICATION.ident))
    assert 'data-primary="incorrect" data-second="globally-correct"' in html and 'data-label-number="1"' in html


def test_bolt_pages_use_and_list_only_declared_keys(client, setup):
    topic, assignment, user = setup["topic"], setup["mine"], setup["a1"]
    client.force_login(user)
    html = assert_page_keys(client, reverse("bolt:topic", args=[assignment.pk]), bolt_keys.TOPIC.ident)
    assert 'data-key="u"' in html  # the first unjudged citation
    item = judging.citation_items(topic)[1]
    html = assert_page_keys(client, reverse("bolt:item", args=[assignment.pk, item.pk]), bolt_keys.CITATIONS.ident)
    assert 'data-key="n"' in html and 'data-key="1"' in html and 'data-key="k"' in html
    ((_, view),) = judging.grouping_views(topic).items()
    assert_page_keys(client, reverse("bolt:view", args=[assignment.pk, view.pk]), bolt_keys.GROUPINGS.ident)
    assert_page_keys(client, reverse("bolt:find", args=[assignment.pk]) + f"?thread={item.docid}", bolt_keys.FIND.ident)


def test_bolt_adjudication_pages_use_and_list_only_declared_keys(client, make_user, organizer):
    setup = build_disagreements(make_user)
    client.force_login(organizer)
    assert_page_keys(client, reverse("bolt:adjudication", args=["bolt-adj"]), bolt_keys.QUEUE.ident)
    html = assert_page_keys(
        client, reverse("bolt:adjudicate", args=["bolt-adj", setup["fare"].pk]), bolt_keys.ADJUDICATION.ident
    )
    assert {"p", "s", "w", "d", "y"} <= set(re.findall(r'data-key="([^"]*)"', html))


def test_a_match_answers_with_the_new_matched_count(client, sample, primary):
    question = sample.questions["1.3"]
    nugget = nugget_judging.create_nugget(primary, question, "founded by Coco Chanel")
    client.force_login(primary)
    for n, item in enumerate(sample.items["1.3"][:2], start=1):
        response = client.post(reverse("qa:match", args=[item.pk]), {"version": 0, "nuggets": [nugget.pk]})
        assert response.status_code == 200
        assert f'<span id="matched-count" hx-swap-oob="true">{n}</span>' in response.content.decode()
