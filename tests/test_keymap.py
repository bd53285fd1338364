"""The key map of the judging pages (assess/keymap.py, pages the tracks hold as Track.pages): no key means two
things, and every registered judging page, as rendered, uses only keys it declares and lists every one of them in
its `?` dialog. The pages are found through the registered tracks and opened with the requests their samples give
(tests/samples.py), so a new track's pages are checked without an edit here; what is particular to a track's
pages is tested beside its other tests (tests/tracks/<name>/test_keys.py)."""

import json
import re
from collections import defaultdict

import pytest
from django.test import Client

from assess import keymap
from core.tracks import TRACKS
from tests.samples import demo_world  # noqa: F401 (a fixture)
from tracks.biogen import keys as biogen_keys
from tracks.bolt import keys as bolt_keys
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


def test_every_registered_page_uses_and_lists_only_its_declared_keys(demo_world):
    pages = demo_world["key_pages"]
    missing = set(keymap.pages()) - set(pages)
    assert not missing, f"no sample request for the pages {sorted(missing)}: add them to the track's key_pages()"
    for ident, (user, url) in pages.items():
        client = Client()
        client.force_login(demo_world[user])
        assert_page_keys(client, url, ident)
