"""qrels out (issue 28) on BOLT's test evaluation (tests/tracks/bolt): the official and per-assessor qrels through
the command, the board's export, the API and a team's download, and a run scored against them with the real
tools (pytrec_eval, ir_measures), the numbers checked by hand."""

import contextlib
import io

import ir_measures
import pytest
import pytrec_eval
from django.core.management import call_command
from django.urls import reverse
from ir_measures import AP, P, R

from accounts.models import Team
from assess.models import Assignment
from scoring.formats.trec import read_results
from scoring.models import Score
from scoring.release import release
from scoring.rescore import rescore_evaluation
from scoring.team_downloads import downloads, official_export
from tests.tracks.bolt.test_pipeline import _assign, evaluation, load, loaded  # noqa: F401 (fixtures)
from tracks.bolt import judging

T1 = "bolt-eng-DF-170-181103-8882"
T2 = "bolt-eng-DF-170-181104-9911"


def judged(loaded, make_user):
    """Topic 1.001 judged: fare yes, taxi maybe, cheaper-metro no, the rest unjudged; a second assessor says
    no to the fare."""
    a1, a2 = make_user("q-a1", "assessor"), make_user("q-a2", "assessor")
    topic = loaded.topics.get(ident="1.001")
    _assign(topic, a1)
    _assign(topic, a2, Assignment.SECONDARY)
    grades = {"The fare": "yes", "Taxi drivers": "maybe", "The metro is": "no"}
    for item in judging.citation_items(topic):
        for start, rel in grades.items():
            if item.text.startswith(start):
                judging.judge_citation(a1, item, {"rel": rel}, 0)
                if start == "The fare":
                    judging.judge_citation(a2, item, {"rel": "no"}, 0)
    return topic


def export(slug, fmt):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):  # the command writes to sys.stdout (or --output)
        call_command("export_judgments", slug, "--format", fmt)
    return out.getvalue()


QRELS = f"""\
1.001 0 {T1}:p1 -1
1.001 0 {T1}:p2 2
1.001 0 {T1}:p3 -1
1.001 0 {T2}:p1 1
1.001 0 {T2}:p2 1
1.002 0 bolt-eng-DF-183-190210-0042:p1 -1
1.002 0 bolt-eng-DF-183-190210-0042:p2 -1
1.002 0 bolt-eng-DF-183-190210-0042:p3 -1
"""


def test_qrels_and_per_assessor_qrels(loaded, make_user):
    judged(loaded, make_user)
    # p2 of T1 holds the fare (yes: 2; its quoted near-duplicate is not pooled); p2 of T2 holds both the cheaper
    # metro (no) and, from beta1, the taxi drivers (maybe): the higher grade; the rest pooled but unjudged: -1.
    assert export(loaded.slug, "qrels") == QRELS
    assert export(loaded.slug, "qrels-jg") == (
        f"1.001 primary {T1}:p2 2\n1.001 primary {T2}:p1 1\n1.001 primary {T2}:p2 1\n1.001 secondary {T1}:p2 0\n"
    )
    read = list(ir_measures.read_trec_qrels(QRELS))
    assert len(read) == 8 and read[1].relevance == 2


def test_qrels_on_the_board_the_api_and_a_released_teams_downloads(loaded, make_user, client):
    judged(loaded, make_user)
    client.force_login(make_user("q-org", "organizer"))
    board = client.get(reverse("scoring:scoreboard", args=[loaded.slug])).content.decode()
    assert reverse("scoring:export", args=[loaded.slug, "qrels-jg"]) in board
    page = client.get(reverse("scoring:export", args=[loaded.slug, "qrels"]))
    assert page.content.decode() == QRELS
    api = client.get(f"/api/evaluations/{loaded.slug}/judgments/export/qrels/")
    assert api.status_code == 200 and b"".join(api.streaming_content).decode() == QRELS
    team = Team.objects.get(name="Team Alpha")
    assert not any("qrels" in d.url for d in downloads(loaded, team))  # not released yet
    # Released to this team alone, while the others are still judged: its own runs' files, but not the qrels,
    # which show what every team's runs retrieved.
    release(loaded, team)
    offered = {d.label: d.url for d in downloads(loaded, team)}
    assert offered and not any("qrels" in url for url in offered.values())
    assert official_export(loaded, team, "qrels") is None
    member = make_user("q-alpha", "participant", "Team Alpha")
    client.force_login(member)
    wanted = reverse("scoring:team_judgments", args=[loaded.slug, "qrels"]) + "?team=Team+Alpha"
    assert client.get(wanted).status_code == 404
    release(loaded)  # to everyone
    offered = {d.label: d.url for d in downloads(loaded, team)}
    assert offered["qrels (trec_eval) (every judged document)"].startswith(
        reverse("scoring:team_judgments", args=[loaded.slug, "qrels"])
    )
    assert "".join(official_export(loaded, team, "qrels")) == QRELS  # qrels name no run: everyone's, as TREC's
    assert client.get(wanted).content.decode() == QRELS


def run_file(loaded, tag):
    """The run's cited posts as a TREC run file, by `export_run_file`."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        call_command("export_run_file", loaded.slug, tag)
    return out.getvalue()


def test_a_run_scored_against_the_qrels_by_pytrec_eval_and_ir_measures(loaded, make_user):
    judged(loaded, make_user)
    run = run_file(loaded, "alpha1")
    # alpha1 on 1.001 ranks T1:p1 (-1), T1:p2 (2; its second citation there dropped), T2:p1 (1), T2:p2 (1),
    # T1:p3 (-1): relevant (rel >= 1) at ranks 2, 3, 4 of R = 3.
    assert run.splitlines()[:3] == [
        f"1.001 Q0 {T1}:p1 1 0.95 alpha1",
        f"1.001 Q0 {T1}:p2 2 0.9 alpha1",
        f"1.001 Q0 {T2}:p1 3 0.7 alpha1",
    ]
    measures = [P @ 3, P @ 5, R @ 3, AP]
    expected = {"P@3": 2 / 3, "P@5": 3 / 5, "R@3": 2 / 3, "AP": (1 / 2 + 2 / 3 + 3 / 4) / 3}
    qrels = list(ir_measures.read_trec_qrels(export(loaded.slug, "qrels")))
    docs = list(ir_measures.read_trec_run(run))
    got = {str(m.measure): m.value for m in ir_measures.iter_calc(measures, qrels, docs) if m.query_id == "1.001"}
    assert got == pytest.approx(expected)

    qrels_dict, run_dict = {}, {}
    for q in qrels:
        qrels_dict.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    for d in docs:
        run_dict.setdefault(d.query_id, {})[d.doc_id] = d.score
    te = pytrec_eval.RelevanceEvaluator(qrels_dict, {"P.3,5", "recall.3", "map"}).evaluate(run_dict)["1.001"]
    assert te == pytest.approx({"P_3": 2 / 3, "P_5": 3 / 5, "recall_3": 2 / 3, "map": expected["AP"]})


def test_the_tracks_gradings():
    from tracks.biogen.qrels import GRADES as BIOGEN
    from tracks.bolt.qrels import GRADES as BOLT
    from tracks.bolt.qrels import docno
    from tracks.qa.qrels import grade

    assert BOLT == {"yes": 2, "maybe": 1, "no": 0}
    assert (
        docno(f"{T1}\tp4\t3\t5\tsome text", T1, {}) == f"{T1}:p4" and docno("view\tx\t1", "", {"bolt": "view"}) is None
    )
    assert BIOGEN == {"supports": 2, "contradicts": 1, "neutral": 1, "partially_supports": 1, "not_relevant": 0}
    assert [grade("instance", {"label": x}) for x in ("correct", "locally-correct", "non-exact", "unsupported")] == [
        1,
        1,
        1,
        0,
    ]
    assert grade("nugget_match", {"nuggets": [3]}) == 1 and grade("nugget_match", {"nuggets": []}) == 0


@pytest.mark.parametrize("shape", ["trec_eval", "ir_measures", "4col"])
def test_score_writes_the_stored_scores_as_result_files(loaded, make_user, client, shape):
    judged(loaded, make_user)
    rescore_evaluation(loaded.pk)
    out = io.StringIO()
    call_command("score", loaded.slug, "--format", shape, stdout=out)
    rows = read_results(out.getvalue(), shape)
    stored = {
        (s.run.tag, s.topic.ident if s.topic_id else "all", s.measure): s.value
        for s in Score.objects.filter(run__evaluation=loaded, value__isnull=False).select_related("run", "topic")
    }
    assert {(r.run, r.topic, r.measure): r.value for r in rows} == pytest.approx(stored, abs=5e-5)
    assert len(rows) == len(stored)
    # alpha1's run-level char_map is an `all` row, its topics' char_ap per-topic rows
    assert any(r.run == "alpha1" and r.topic == "all" and r.measure == "char_map" for r in rows)
    assert any(r.run == "alpha1" and r.topic == "1.001" and r.measure == "char_ap" for r in rows)
    client.force_login(make_user("q-org", "organizer"))
    assert client.get(reverse("scoring:results_file", args=[loaded.slug, shape])).content.decode() == out.getvalue()
    assert client.get(reverse("scoring:results_file", args=[loaded.slug, "csv"])).status_code == 404
    if shape == "trec_eval":
        assert out.getvalue().startswith("runid                 \tall\talpha1\n")


def test_run_files_only_where_the_track_ranks(loaded, make_user):
    from django.core.management.base import CommandError

    assert run_file(loaded, "beta1").splitlines()[0].endswith(" beta1")
    with pytest.raises(CommandError, match="no run 'nope'"):
        run_file(loaded, "nope")
