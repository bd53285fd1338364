"""BioGen's cited PMIDs as qrels (issue 28), and the track's document precision and recall against ir_measures'
SetP and SetR of the runs' cited PMIDs scored on those qrels: the same measures, the same numbers."""

import contextlib
import io

import ir_measures
import pytest
from django.core.management import call_command
from django.urls import reverse
from ir_measures import SetP, SetR

from accounts.models import Team
from pooling.models import RunEntry
from scoring.formats.trec import Ranked, write_run
from scoring.release import release
from scoring.rescore import rescore_evaluation
from scoring.team_downloads import downloads, official_export
from tests.tracks.biogen.test_pipeline import evaluation, judged, pooled, score_of  # noqa: F401 (fixtures)


def qrels_of(ev):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        call_command("export_judgments", ev.slug, "--format", "qrels")
    return out.getvalue()


def test_cited_pmids_graded_and_scored_as_the_track_scores_them(judged):
    ev = judged[0]
    text = qrels_of(ev)
    topic1 = [line for line in text.splitlines() if line.startswith("1 ")]
    # supports 2, contradicts and neutral 1, not relevant 0 (answers and sentences are no documents)
    assert topic1 == [
        "1 0 31000101 2",
        "1 0 31000102 1",
        "1 0 31000103 2",
        "1 0 31000104 1",
        "1 0 31000105 0",
        "1 0 31000106 2",
    ]
    assert all(line.endswith(" -1") for line in text.splitlines() if not line.startswith("1 "))  # unjudged topics
    rescore_evaluation(ev.id)
    qrels = list(ir_measures.read_trec_qrels(text))
    for tag in ("alpha-run1", "beta-run2"):
        cited = RunEntry.objects.filter(run__tag=tag, topic__ident="1", data__kind="citation").order_by("line_no")
        run = "".join(write_run(Ranked("1", e.docid, 100.0 - n, tag) for n, e in enumerate(cited)))
        got = {
            m.measure: m.value
            for m in ir_measures.iter_calc([SetP(rel=1), SetR(rel=1)], qrels, list(ir_measures.read_trec_run(run)))
            if m.query_id == "1"
        }
        assert got[SetP(rel=1)] == pytest.approx(score_of(ev, tag, "document_precision", "1")), tag
        assert got[SetR(rel=1)] == pytest.approx(score_of(ev, tag, "document_recall", "1")), tag


def run_file_of(ev, tag):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        call_command("export_run_file", ev.slug, tag)
    return out.getvalue()


def test_a_runs_references_are_its_trec_run_file_scored_against_the_qrels(judged):
    """The 2024 references list in its order is the ranking (then PMIDs cited but not listed: none here, as 2024
    requires every cited PMID to be listed, so alpha's citation order 101, 103, 102 does not count); the score
    falls by one along the run's 22 listed-then-cited PMIDs (11 + 11), a PMID met again keeping its place."""
    ev = judged[0]
    assert run_file_of(ev, "alpha-run1").splitlines() == [
        "1 Q0 31000101 1 22.0 alpha-run1",
        "1 Q0 31000102 2 21.0 alpha-run1",
        "1 Q0 31000103 3 20.0 alpha-run1",
        "1 Q0 31000104 4 19.0 alpha-run1",
        "2 Q0 31000201 1 14.0 alpha-run1",
        "2 Q0 31000202 2 13.0 alpha-run1",
        "2 Q0 31000203 3 12.0 alpha-run1",
        "3 Q0 31000301 1 8.0 alpha-run1",
        "3 Q0 31000302 2 7.0 alpha-run1",
        "3 Q0 31000303 3 6.0 alpha-run1",
        "3 Q0 31000304 4 5.0 alpha-run1",
    ]
    qrels = list(ir_measures.read_trec_qrels(qrels_of(ev)))
    measures = [ir_measures.P(rel=2) @ 2, ir_measures.P(rel=2) @ 3, ir_measures.AP(rel=2)]
    got = {}
    for tag in ("alpha-run1", "beta-run2"):
        run = list(ir_measures.read_trec_run(run_file_of(ev, tag)))
        got[tag] = {m.measure: m.value for m in ir_measures.iter_calc(measures, qrels, run) if m.query_id == "1"}
    # topic 1's grades (above): 101 2, 102 1, 103 2, 104 1, 105 0, 106 2; relevant at rel 2: 101, 103, 106
    assert got["alpha-run1"][measures[0]] == pytest.approx(1 / 2)  # 101, 102
    assert got["beta-run2"][measures[1]] == pytest.approx(2 / 3)  # 101, 105, 106
    assert got["alpha-run1"][measures[2]] == pytest.approx((1 / 1 + 2 / 3) / 3)  # 101 at 1, 103 at 3, 106 unranked


def test_every_runs_file_on_the_board_and_each_team_its_own_once_released(judged, make_user, client):
    ev = judged[0]
    alpha, beta = run_file_of(ev, "alpha-run1"), run_file_of(ev, "beta-run2")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        call_command("export_judgments", ev.slug, "--format", "runs")
    assert out.getvalue() == alpha + beta  # by tag
    client.force_login(make_user("runs-org", "organizer"))
    assert (
        reverse("scoring:export", args=[ev.slug, "runs"])
        in client.get(reverse("scoring:scoreboard", args=[ev.slug])).content.decode()
    )
    api = client.get(f"/api/evaluations/{ev.slug}/judgments/export/runs/")
    assert api.status_code == 200 and b"".join(api.streaming_content).decode() == alpha + beta
    team = Team.objects.get(name="Team Alpha")
    offered = reverse("scoring:team_judgments", args=[ev.slug, "runs"])
    assert not any(d.url.startswith(offered) for d in downloads(ev, team))  # nothing released yet
    release(ev, team)
    assert any(d.url.startswith(offered) for d in downloads(ev, team))
    assert "".join(official_export(ev, team, "runs")) == alpha  # its own run only
