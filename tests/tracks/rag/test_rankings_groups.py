"""TREC RAG's rankings under other judgments (issue 29) are compared within its run groups: answer runs (score:
nugget All) and retrieval runs (score: nDCG@20) are never ranked in one list, for τ, τ_AP, top-k and the rank
intervals alike, on the page, in the API and in the command."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from assess.official import OFFICIAL, PRIMARY_ONLY, SECOND
from pooling.models import Evaluation, Run
from scoring import rankings
from scoring.measures import ranking
from scoring.models import JudgmentSet
from scoring.rescore import rescore_evaluation
from tests.conftest import PASSWORD
from tracks.rag.demo import NUGGETIZER, SLUG, UMBRELA, load_rag_demo
from tracks.rag.run_groups import ANSWER, RETRIEVAL


@pytest.fixture
def demo(make_user):
    for name, role in (("organizer", "organizer"), ("assessor", "assessor"), ("assessor2", "assessor")):
        make_user(name, role)  # (the demo judges as them and loads its machine judgment sets as the organizer)
    load_rag_demo(lambda _: None)
    ev = Evaluation.objects.get(slug=SLUG)
    alpha_r = Run.objects.get(evaluation=ev, tag="alpha-r")
    # a second retrieval run, so that both groups rank more than one run
    Run.objects.create(evaluation=ev, team=alpha_r.team, tag="beta-r", data={"shape": "retrieval"})
    return ev


def test_tau_tau_ap_top_k_and_intervals_are_counted_within_each_group(demo, monkeypatch):
    ids = {r.tag: r.pk for r in Run.objects.filter(evaluation=demo)}
    assert set(ids) == {"alpha-2024", "beta-2025", "beta-shared", "alpha-r", "beta-r"}
    groups = rankings.groups_of(demo)
    assert groups == [
        (ANSWER, {ids["alpha-2024"], ids["beta-2025"], ids["beta-shared"]}),
        (RETRIEVAL, {ids["alpha-r"], ids["beta-r"]}),
    ]
    # official: alpha-2024 .9 > beta-2025 .5 > beta-shared .1; alpha-r .95 > beta-r .2
    # primary-only: beta-2025 and alpha-2024 swap, and so do the two retrieval runs; second-only = official
    official = {"alpha-2024": 0.9, "beta-2025": 0.5, "beta-shared": 0.1, "alpha-r": 0.95, "beta-r": 0.2}
    primary = {"alpha-2024": 0.5, "beta-2025": 0.9, "beta-shared": 0.1, "alpha-r": 0.2, "beta-r": 0.95}

    def scored(values):
        return {ids[tag]: {"score": v} for tag, v in values.items()}

    scores = {"official": scored(official), "primary": scored(primary), "second": scored(official)}
    pairs = rankings.compare(demo, ["official", "primary", "second"], scores, ["score"], groups)
    by = {(p["a"], p["b"], p["group"]): p for p in pairs}
    assert {p["group"] for p in pairs} == {ANSWER, RETRIEVAL}
    assert all(p["runs"] == (3 if p["group"] == ANSWER else 2) for p in pairs)  # no ranking mixes the groups
    answers, retrieval = by[("official", "primary", ANSWER)], by[("official", "primary", RETRIEVAL)]
    # answer runs, by hand: pairs (a24, b25) swapped, (a24, shared) and (b25, shared) kept: τ = (2 - 1)/3
    assert answers["tau"] == pytest.approx(1 / 3)
    # τ_AP, primary's order b25, a24, shared: a24 has 0 of 1 above it right, shared 2 of 2: 2/2 · (0 + 1) - 1 = 0
    assert answers["tau_ap"] == pytest.approx(0.0)
    assert answers["k"] == 1 and answers["top_k"] == 0.0  # top 1: a24 against b25
    # retrieval runs: their one pair swapped
    assert retrieval["tau"] == pytest.approx(-1.0) and retrieval["tau_ap"] == pytest.approx(-1.0)
    assert by[("official", "second", ANSWER)]["tau"] == by[("official", "second", RETRIEVAL)]["tau"] == 1.0
    # one list of all five would have been another τ: what the groups keep apart
    mixed = ranking.kendall_tau(
        {r: s["score"] for r, s in scores["official"].items()}, {r: s["score"] for r, s in scores["primary"].items()}
    )
    assert mixed != pytest.approx(1 / 3) and mixed != pytest.approx(-1.0)

    # rank intervals over official, primary-only and second-only, within each group
    monkeypatch.setattr(
        rankings,
        "readings_for_robustness",
        lambda ev, names: [("official", "Official", OFFICIAL), ("primary", "P", PRIMARY_ONLY), ("second", "S", SECOND)],
    )
    rows = rankings.robustness(demo, scores, groups)["runs"]
    tags = {pk: tag for tag, pk in ids.items()}
    shown = [(row["group"], tags[int(row["run"])], row["rank"], row["interval"]) for row in rows]
    assert shown == [
        (ANSWER, "alpha-2024", 1, [1, 2]),
        (ANSWER, "beta-2025", 2, [1, 2]),
        (ANSWER, "beta-shared", 3, [3, 3]),
        (RETRIEVAL, "alpha-r", 1, [1, 2]),  # first of its group, though .95 would top the answer runs too
        (RETRIEVAL, "beta-r", 2, [1, 2]),
    ]


def test_the_page_the_api_and_the_command_show_each_groups_ranking(demo, client, make_user):
    rescore_evaluation(demo.pk)
    data = rankings.refresh(demo.pk).data
    assert data["groups"] == [ANSWER, RETRIEVAL]
    ids = {r.tag: str(r.pk) for r in Run.objects.filter(evaluation=demo)}
    answer_runs = {ids[t] for t in ("alpha-2024", "beta-2025", "beta-shared")}
    members = {ANSWER: answer_runs, RETRIEVAL: {ids["alpha-r"], ids["beta-r"]}}
    assert {p["group"] for p in data["pairs"]} <= {ANSWER, RETRIEVAL}
    for p in data["pairs"]:
        assert p["runs"] <= len(members[p["group"]])
        # the stored τ is the group's own: its runs' scores under the two readings, and no other run's
        x = {r: v.get(p["measure"]) for r, v in data["scores"][p["a"]].items() if r in members[p["group"]]}
        y = {r: v.get(p["measure"]) for r, v in data["scores"][p["b"]].items() if r in members[p["group"]]}
        assert p["tau"] == ranking.kendall_tau(x, y)
    # a measure of one group's runs only is not compared in the other
    assert not [p for p in data["pairs"] if p["group"] == RETRIEVAL and p["measure"].startswith("nugget")]
    assert not [p for p in data["pairs"] if p["group"] == ANSWER and p["measure"].startswith("ndcg")]
    # a judge run's report takes the group its set scores: UMBRELA's grades the retrieval runs, nuggetizer's the answers
    sets = {s.name: s.pk for s in JudgmentSet.objects.filter(evaluation=demo)}
    assert rankings.set_correlation(demo, sets[UMBRELA])["group"] == RETRIEVAL
    assert rankings.set_correlation(demo, sets[NUGGETIZER])["group"] == ANSWER
    robust = {r["run"]: r for r in data["robustness"]["runs"]}
    assert {r["group"] for r in robust.values()} == {ANSWER, RETRIEVAL}
    assert all(robust[r]["group"] == ANSWER for r in answer_runs)
    assert robust[ids["alpha-r"]]["rank"] == 1  # ranked among the retrieval runs only (beta-r is not scored)

    client.login(username="organizer", password=PASSWORD)
    page = client.get(reverse("scoring:robustness", args=[SLUG])).content.decode()
    assert f'<tr data-run="alpha-r" data-group="{RETRIEVAL}"><td class="group">{RETRIEVAL}</td>' in page
    assert f'data-group="{ANSWER}"><td class="group">{ANSWER}</td><td>score</td>' in page
    board = client.get(reverse("scoring:board", args=[SLUG])).content.decode()
    assert f'data-pair="official|second" data-group="{ANSWER}"' in board
    shown = client.get(reverse("api:rankings", args=[SLUG])).json()
    assert shown["groups"] == [ANSWER, RETRIEVAL]
    assert {p["group"] for p in shown["headline"]} == {ANSWER, RETRIEVAL}
    out = StringIO()
    call_command("rankings", SLUG, stdout=out)
    text = out.getvalue()
    assert f"{ANSWER} | Second assessors (else primary) | Official | 3 |" in text
    assert f"{RETRIEVAL} | 1 | alpha-r |" in text
