"""Every track offered is complete: what its declaration names exists, its demo evaluation loads (topics, runs,
pools), and every page reachable from the role home pages answers without a 5xx for each role. A track that is
not registered is offered nowhere."""

from urllib.parse import urldefrag, urlsplit

import lxml.html
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings
from django.urls import reverse

from core import extension_points as ep
from core.tracks import TRACKS

PAGES_PER_ROLE = 150  # a budget: the demo's pages are reached well within it
START = {
    "organizer": ["/", "/evaluations/", "/assess/organize/"],
    "assessor": ["/", "/assess/"],
    "participant": ["/", "/my/runs/", "/check/"],
}
NEVER = ("/logout", "/admin")


def offered():
    return sorted(TRACKS)


@pytest.mark.parametrize("slug", offered())
def test_the_declaration_names_modules_and_pages_that_exist(slug):
    track = TRACKS[slug]
    assert hasattr(track.topic_format, "parse_topics")
    assert hasattr(track.run_format, "check_run")
    assert ep.scorer.get(slug) is not None or ep.report.get(slug) is not None
    assert ep.demo.get(slug) is not None
    if track.human_judging:
        assert track.kinds
        assert ep.adjudication_queue.get(slug) is not None
        reverse(track.adjudication_page, args=["any-slug"])
        reverse(track.assignment_page, args=[1])
    for link in track.organizer_links + track.participant_links:
        reverse(link.url_name, args=["any-slug"])
    assert track.measures
    for measure in track.measures:
        assert measure.name and measure.label and measure.description and measure.seed.startswith(track.seed), measure


def links_of(response):
    if "html" not in response.get("Content-Type", "") or not response.content.strip():
        return []
    page = lxml.html.fromstring(response.content)
    found = page.xpath("//a/@href | //iframe/@src | //*/@hx-get | //*/@data-frame-src")
    return [urldefrag(href)[0] for href in found]


def crawl(client, starts):
    """GET every same-site page reachable from `starts` (bounded); returns {path: status}."""
    seen, queue = {}, list(starts)
    while queue and len(seen) < PAGES_PER_ROLE:
        url = queue.pop(0)
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path.startswith("/") or url in seen:
            continue
        if parts.path.startswith(NEVER) or parts.path.startswith("/static/"):
            continue
        response = client.get(url)
        seen[url] = response.status_code
        if response.status_code == 302:
            queue.append(response["Location"])
        elif response.status_code == 200:
            queue.extend(links_of(response))
    return seen


@pytest.mark.parametrize("slug", offered())
@override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
def test_the_demo_loads_and_every_page_answers_for_every_role(slug, db):
    from django.contrib.auth import get_user_model

    from corpus.demo import load_demo_collections
    from pooling.demo import create_users
    from pooling.models import Evaluation, PoolItem, Run, Topic

    track = TRACKS[slug]
    quiet = lambda *args: None  # noqa: E731
    create_users(quiet)
    load_demo_collections(quiet)
    ep.demo.require(slug)(quiet)
    evaluations = Evaluation.objects.filter(track=slug)
    assert evaluations.exists(), f"the demo of {slug} creates no evaluation of it"
    assert Topic.objects.filter(evaluation__in=evaluations).exists()
    assert Run.objects.filter(evaluation__in=evaluations).exists()
    if track.human_judging:
        assert PoolItem.objects.filter(evaluation__in=evaluations).exists()

    from assess.models import Assignment

    # the demo's assessor of this track (tracks spread their series over the demo assessors)
    judge = Assignment.objects.filter(evaluation__in=evaluations).values_list("assessor__username", flat=True).first()
    users = {"organizer": "organizer", "assessor": judge or "assessor", "participant": "participant"}
    failures, visited = [], {}
    for role, starts in START.items():
        username = users[role]
        client = Client()
        client.force_login(get_user_model().objects.get(username=username))
        slugs = [e.slug for e in evaluations]
        extra = [f"/evaluations/{s}/" for s in slugs] + [f"/scores/{s}/" for s in slugs]
        statuses = crawl(client, starts + extra)
        visited[role] = statuses
        failures += [f"{role} {username} GET {url} -> {status}" for url, status in statuses.items() if status >= 500]
    assert failures == []
    # the crawl reached the track's own pages, not only the shared ones
    for link in track.organizer_links:
        assert any(reverse(link.url_name, args=[s]) in visited["organizer"] for s in slugs), link
    if track.human_judging:
        assert any(
            u.startswith(reverse(track.assignment_page, args=[0]).rsplit("0/", 1)[0]) for u in visited["assessor"]
        ), "the assessor never reached an assignment page"


def test_a_track_not_registered_is_offered_nowhere(client, make_user, db, monkeypatch):
    from pooling.evaluations import LoadError, create_evaluation
    from pooling.forms import EvaluationForm
    from tests.conftest import PASSWORD

    # Every seed's track is built now: one taken out of the registry stands for a track no installed app declares.
    unbuilt = "trec2007-ciqa"
    monkeypatch.delitem(TRACKS, unbuilt)
    assert unbuilt not in dict(EvaluationForm().fields["track"].choices)
    with pytest.raises(CommandError):
        call_command("create_evaluation", "x", "--track", unbuilt)
    with pytest.raises(LoadError):
        create_evaluation("x", unbuilt)
    make_user("org", "organizer")
    client.login(username="org", password=PASSWORD)
    page = client.get(reverse("pooling:evaluation_create")).content.decode()
    assert unbuilt not in page and all(s in page for s in TRACKS)
