"""NIST's top-documents lists as a TREC run file (issue 28): every question of a target gets its target's list,
in rank order, and ir_measures reads it and scores it against qrels by hand."""

import ir_measures
import pytest
from django.core.management import call_command
from ir_measures import P

from pooling.models import Evaluation, Topic
from pooling.topics import load_top_docs

TOP_DOCS = (
    b"216 2 NYT20000101.0002 7.5\n216 1 APW20000101.0001 9.25\n216 3 XIE20000101.0003 7.5\n217 1 APW20000202.0004 3\n"
)


@pytest.mark.django_db
def test_the_top_documents_lists_are_a_run_file_trec_eval_scores(tmp_path):
    ev = Evaluation.objects.create(slug="topdocs", title="Top docs", track="trec2007-qa")
    s216 = Topic.objects.create(evaluation=ev, ident="216", kind="series", text="Paul Krugman", position=1)
    s217 = Topic.objects.create(evaluation=ev, ident="217", kind="series", text="Jay-Z", position=2)
    Topic.objects.create(evaluation=ev, parent=s216, ident="216.1", kind="FACTOID", position=1, text="Born where?")
    Topic.objects.create(evaluation=ev, parent=s216, ident="216.2", kind="LIST", position=2, text="Books?")
    Topic.objects.create(evaluation=ev, parent=s217, ident="217.1", kind="FACTOID", position=1, text="Real name?")
    load_top_docs(ev, TOP_DOCS, "top_docs.txt")

    out = tmp_path / "top-docs.run"
    call_command("export_judgments", "topdocs", "--format", "top-docs-run", "--output", str(out))
    lines = out.read_text().splitlines()
    # Rank order from the file's rank column (not its line order); the tie at 7.5 made strictly decreasing.
    assert [line.split()[:4] for line in lines] == [
        ["216.1", "Q0", "APW20000101.0001", "1"],
        ["216.1", "Q0", "NYT20000101.0002", "2"],
        ["216.1", "Q0", "XIE20000101.0003", "3"],
        ["216.2", "Q0", "APW20000101.0001", "1"],
        ["216.2", "Q0", "NYT20000101.0002", "2"],
        ["216.2", "Q0", "XIE20000101.0003", "3"],
        ["217.1", "Q0", "APW20000202.0004", "1"],
    ]
    assert {line.split()[5] for line in lines} == {"top-docs"}
    scores = [float(line.split()[4]) for line in lines[:3]]
    assert scores[0] == 9.25 and scores[1] == 7.5 and scores[1] > scores[2]

    # P@2 by hand: 216.1 has NYT relevant (1/2), 216.2 none (0), 217.1 APW relevant (1/2).
    qrels = "216.1 0 NYT20000101.0002 1\n216.1 0 APW20000101.0001 0\n216.2 0 XIE20000101.0003 1\n217.1 0 APW20000202.0004 1\n"
    run = list(ir_measures.read_trec_run("\n".join(lines)))
    per_topic = {
        m.query_id: m.value for m in ir_measures.iter_calc([P @ 2], list(ir_measures.read_trec_qrels(qrels)), run)
    }
    assert per_topic == {"216.1": 0.5, "216.2": 0.0, "217.1": 0.5}
