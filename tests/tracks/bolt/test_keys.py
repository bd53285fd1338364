"""What is particular to the BOLT judging pages' keys (the shared checks of every page: tests/test_keymap.py)."""

import re

from django.urls import reverse

from tests.test_keymap import assert_page_keys
from tests.tracks.bolt.test_adjudication import build_disagreements
from tests.tracks.bolt.test_views import setup  # noqa: F401 (a fixture: topic 1.002 assigned to bolt-a1)
from tracks.bolt import judging
from tracks.bolt import keys as bolt_keys


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
