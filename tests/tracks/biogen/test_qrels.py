"""BioGen's cited PMIDs as qrels (issue 28), and the track's document precision and recall against ir_measures'
SetP and SetR of the runs' cited PMIDs scored on those qrels: the same measures, the same numbers."""

import contextlib
import io

import ir_measures
import pytest
from django.core.management import call_command
from ir_measures import SetP, SetR

from pooling.models import RunEntry
from scoring.formats.trec import Ranked, write_run
from scoring.rescore import rescore_evaluation
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
