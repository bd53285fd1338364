"""The RAG formats through the loaders every track uses (pooling.topics, pooling.runs): topics and runs of each
shape stored as the contract says, a batch refused whole for a run id two files share, and the collection asked
once per segment for a whole batch."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.models import Run, RunEntry, Topic
from pooling.runs import RunFile, check_context, load_run_files
from pooling.topics import load_topics
from tracks.rag.judging import TRACK

pytestmark = pytest.mark.django_db
SEG = [f"msmarco_v2.1_doc_00_{d}#{n}_{n}" for d in range(3) for n in range(4)]


@pytest.fixture
def evaluation(tmp_path):
    shard = tmp_path / "segments.jsonl"
    shard.write_text(
        "".join(json.dumps({"docid": s, "title": "T", "url": "u", "segment": f"Text of {s}."}) + "\n" for s in SEG)
    )
    load_collection("rag-segments", "msmarco-v2.1-segmented", [str(shard)], search_index=False)
    ev = create_evaluation("rag-load", TRACK, ["rag-segments"])
    topics = b'{"id": "t1", "title": "what is x"}\n{"id": "t2", "narrative": "I want to know about y. And z."}\n'
    assert load_topics(ev, topics, "topics.jsonl") is not None
    return ev


def answer_run(run_id, refs=(SEG[0], SEG[1])):
    return "".join(
        json.dumps(
            {
                "run_id": run_id,
                "topic_id": t,
                "topic": "q",
                "references": list(refs),
                "answer": [{"text": f"Claim about {t}.", "citations": [0, 1]}],
            }
        )
        + "\n"
        for t in ("t1", "t2")
    ).encode()


def test_topics_and_runs_of_each_kind_are_stored_as_the_contract_says(evaluation):
    assert list(Topic.objects.filter(evaluation=evaluation).values_list("ident", "text", "kind")) == [
        ("t1", "what is x", "QUESTION"),
        ("t2", "I want to know about y. And z.", "QUESTION"),
    ]
    ranked = f"t1 Q0 {SEG[5]} 1 2.5 bm25\nt2 Q0 {SEG[6]} 1 1.5 bm25\n".encode()
    results = load_run_files(
        evaluation,
        [RunFile("a.jsonl", answer_run("team-a1"), team="Team A"), RunFile("r.txt", ranked, team="Team A")],
    )
    assert [r.problems for r in results] == [[], []]
    answers = Run.objects.get(evaluation=evaluation, tag="team-a1")
    kinds = list(
        RunEntry.objects.filter(run=answers, topic__ident="t1").order_by("id").values_list("data__kind", "docid")
    )
    assert kinds == [
        ("answer", ""),
        ("sentence", ""),
        ("support", SEG[0]),
        ("support", SEG[1]),
        ("relevance", SEG[0]),
        ("relevance", SEG[1]),
    ]
    retrieval = Run.objects.get(evaluation=evaluation, tag="bm25")
    entry = RunEntry.objects.get(run=retrieval, topic__ident="t2")
    assert (entry.docid, entry.data) == (SEG[6], {"kind": "ranked", "rank": 1, "score": 1.5, "pooled": True})


def test_two_files_of_one_run_id_are_refused(evaluation):
    results = load_run_files(
        evaluation,
        [RunFile("a.jsonl", answer_run("team-a1"), team="Team A"), RunFile("b.jsonl", answer_run("team-a1"), team="B")],
    )
    assert results[1].problems == ["b.jsonl:0: run tag 'team-a1' is also the tag of a.jsonl"]
    assert not Run.objects.filter(evaluation=evaluation, tag="team-a1").exclude(team__name="Team A").exists()


def test_a_batch_asks_the_collection_once_per_segment(evaluation):
    context = check_context(evaluation)
    with CaptureQueriesContext(connection) as first:
        assert context.known_docids({SEG[0], SEG[1], "msmarco_v2.1_doc_09_9#0_0"}) == {SEG[0], SEG[1]}
    with CaptureQueriesContext(connection) as again:
        assert context.known_docids({SEG[1], "msmarco_v2.1_doc_09_9#0_0"}) == {SEG[1]}
        assert context.known_docids({SEG[1], SEG[2]}) == {SEG[1], SEG[2]}
    assert len(first.captured_queries) == 1
    assert len(again.captured_queries) == 1  # only SEG[2] was new


def test_a_pool_holds_one_item_per_segment_answer_and_pair_across_runs(evaluation):
    from pooling.models import PoolItem
    from pooling.pools import build_pools

    ranked = "".join(f"t1 Q0 {SEG[i]} {i + 1} {9 - i} bm25\n" for i in range(3)).encode()
    spaced = answer_run("team-b1").replace(b"Claim about", b"Claim\\u00a0 about")
    files = [RunFile("a.jsonl", answer_run("team-a1"), team="A"), RunFile("b.jsonl", spaced, team="B")]
    evaluation.settings = evaluation.settings | {"pool_depth": 2}  # read when a run is checked
    evaluation.save()
    results = load_run_files(evaluation, [*files, RunFile("r.txt", ranked, team="A")])
    assert [r.problems for r in results] == [[], [], []]
    build_pools(evaluation)
    items = PoolItem.objects.filter(evaluation=evaluation, topic__ident="t1")
    # the two runs' answers differ only in white space: one answer item, one support item per cited segment;
    # SEG[0] and SEG[1] cited (and ranked within the depth), SEG[2] ranked below it: not pooled
    assert sorted((i.key[:2], i.docid, i.data["kind"]) for i in items) == [
        ("a:", "", "answer"),
        ("p:", SEG[0], "support"),
        ("p:", SEG[1], "support"),
        ("r:", SEG[0], "relevance"),
        ("r:", SEG[1], "relevance"),
    ]
    answer = items.get(data__kind="answer")
    assert answer.text == "Claim about t1." and answer.data == {"kind": "answer", "sentences": 1}
    assert answer.sources.count() == 2  # both runs' lines


def test_what_the_database_cannot_hold_is_a_problem_by_line_not_an_error(evaluation):
    nul = answer_run("team-a1").replace(b"Claim about t2", b"Claim \\u0000 about t2")
    long_tag = answer_run("t" * 300)
    results = load_run_files(
        evaluation, [RunFile("nul.jsonl", nul, team="A"), RunFile("tag.jsonl", long_tag, team="A")]
    )
    assert results[0].problems == [
        "nul.jsonl:2: the line holds a NUL character (\\u0000), which no text can be stored with"
    ]
    assert len(results[1].problems) == 1 and results[1].problems[0].startswith("tag.jsonl:")
    assert not Run.objects.filter(evaluation=evaluation).exists()
