"""The pools page in Chromium: the per-question counts follow the build, with no reload."""

import pytest
from playwright.sync_api import expect

from config.patience import scaled
from pooling.evaluations import create_evaluation
from pooling.models import PoolBuild, PoolItem, Topic
from pooling.pools import build_pools
from pooling.runs import load_run_files
from pooling.topics import load_topics
from tests.browser.test_pooling_upload import blog  # noqa: F401 (a fixture)
from tests.test_pooling_loading import FIXTURES, run_file

pytestmark = pytest.mark.browser


def test_pool_sizes_refresh_when_the_build_ends(page, login, make_user, live_server, blog):  # noqa: F811
    evaluation = create_evaluation("tac-sizes", "tac2008-qa", ["test-blog06"])
    load_topics(evaluation, (FIXTURES / "tac2008_questions.xml").read_bytes(), "q.xml")
    assert not load_run_files(evaluation, [run_file("tac_valid_run.txt")])[0].problems
    # A build a worker has started: the page polls its progress.
    build = PoolBuild.objects.create(evaluation=evaluation, status=PoolBuild.RUNNING)
    make_user("boss", "organizer")
    login(page, "boss")
    page.goto(f"{live_server.url}/evaluations/tac-sizes/pools/")
    row = page.locator('#pool-sizes tr[data-topic="1001.2"] td.items')
    expect(row).to_have_text("0")
    expect(page.locator("#pools-out-of-date")).to_be_visible()

    build_pools(evaluation, build)  # the worker finishes
    n = PoolItem.objects.filter(topic=Topic.objects.get(evaluation=evaluation, ident="1001.2")).count()
    assert n > 0
    expect(page.locator("#pool-progress")).to_have_attribute("data-status", "done", timeout=scaled(30_000))
    expect(row).to_have_text(str(n), timeout=scaled(30_000))
    expect(page.locator("#pools-out-of-date")).to_have_count(0)
