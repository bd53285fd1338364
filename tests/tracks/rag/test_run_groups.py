"""Significance compares TREC RAG's answer runs (score: nugget All) and retrieval runs (score: nDCG@20) apart:
the track's run groups (core.extension_points.run_groups) on the page, in the command and in the analysis."""

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from pooling.models import Evaluation
from scoring.results import UnknownGroup, significance_of
from tests.conftest import PASSWORD
from tracks.rag.demo import SLUG, load_rag_demo
from tracks.rag.run_groups import ANSWER, RETRIEVAL


@pytest.mark.django_db
def test_answer_and_retrieval_runs_are_never_compared_in_one_test(client, make_user):
    load_rag_demo(lambda _: None)
    ev = Evaluation.objects.get(slug=SLUG)
    retrieval = {r.tag for r in ev.runs.all() if (r.data or {}).get("shape") == "retrieval"}
    answers = {r.tag for r in ev.runs.all()} - retrieval
    assert retrieval and len(answers) >= 2

    default = significance_of(ev)
    assert default.group == ANSWER and default.groups == (ANSWER, RETRIEVAL)
    assert set(default.runs) == answers and "answer runs only" in default.over
    assert set(significance_of(ev, group=RETRIEVAL).runs) == retrieval
    with pytest.raises(UnknownGroup):
        significance_of(ev, group="every run")

    make_user("org", "organizer")
    client.login(username="org", password=PASSWORD)
    url = reverse("scoring:significance", args=[SLUG])
    page = client.get(url).content.decode()
    assert 'id="run-groups"' in page and f"<strong>{ANSWER}</strong>" in page
    assert all(tag not in page.split('id="run-set"')[1].split("</p>")[0] for tag in retrieval)
    assert client.get(url, {"group": "every run"}).status_code == 400
    with pytest.raises(CommandError, match="no run group"):
        call_command("significance", SLUG, "--group", "every run")
