"""NIST's top-documents lists as a TREC run file (issue 28), so trec_eval or ir_measures can score the baseline
retrieval the teams were given against the qrels export. A list belongs to a target (series: pooling.topics stores
it in the series' data as [rank, docid, rsv]); QA's qrels are per question (tracks.qa.qrels), so every question of
the series gets its target's list, in NIST's rank order, with NIST's retrieval status values as scores."""

from pooling.models import Topic
from scoring.formats.trec import Ranked, write_run
from scoring.registry import Export

TAG = "top-docs"


def top_docs_run(evaluation):
    questions = Topic.objects.filter(evaluation=evaluation, parent__isnull=False).order_by(
        "parent__position", "position"
    )
    ranked = []
    for ident, lists in questions.values_list("ident", "parent__data"):
        ranking = sorted((lists or {}).get("top_docs") or (), key=lambda entry: int(entry[0]))
        ranked += [Ranked(ident, str(docid), float(rsv), TAG) for _, docid, rsv in ranking]
    return write_run(ranked)


EXPORTS = (
    # The lists were test data every team received: no team's line, each team's download holds them all.
    Export("top-docs-run", "top-documents lists as a run file (trec_eval)", top_docs_run, run_of=lambda line: None),
)
