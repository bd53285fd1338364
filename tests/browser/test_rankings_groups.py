"""TREC RAG's board and robustness page show the rankings under other judgments group by group: answer runs and
retrieval runs each in their own rows (tests/tracks/rag/test_rankings_groups.py counts the numbers)."""

import pytest

from pooling.models import Evaluation
from scoring import rankings
from scoring.rescore import rescore_evaluation
from tracks.rag.demo import SLUG, load_rag_demo
from tracks.rag.run_groups import ANSWER, RETRIEVAL

pytestmark = pytest.mark.browser


def test_the_rag_board_and_robustness_page_rank_each_group_apart(page, login, make_user, live_server):
    for name, role in (("organizer", "organizer"), ("assessor", "assessor"), ("assessor2", "assessor")):
        make_user(name, role)
    load_rag_demo(lambda _: None)
    ev = Evaluation.objects.get(slug=SLUG)
    rescore_evaluation(ev.pk)
    rankings.refresh(ev.pk)
    login(page, "organizer")
    page.goto(f"{live_server.url}/scores/{SLUG}/")
    for group in (ANSWER, RETRIEVAL):
        row = page.locator(f'#rank-correlation tr[data-pair="official|second"][data-group="{group}"]')
        assert row.locator(".group").inner_text() == group
    page.click("#robustness-link")
    page.wait_for_load_state()
    retrieval = page.locator(f'#robustness tr[data-run="alpha-r"][data-group="{RETRIEVAL}"]')
    assert retrieval.locator(".rank").inner_text() == "1"  # first among the retrieval runs, whatever answers score
    assert page.locator(f'#robustness tr[data-group="{ANSWER}"]').count() == 3
