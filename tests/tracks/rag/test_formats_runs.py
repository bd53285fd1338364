"""The TREC RAG run formats (SPEC-NOTES "TREC RAG"): each shape read into the entries of the contract, then a run
breaking each rule once, every problem named by line."""

import json

import pytest

from pooling.formats.base import CheckContext
from tracks.rag.formats import runs

SEG = [f"msmarco_v2.1_doc_00_{d}#{n}_{1000 * d + n}" for d in (7, 8) for n in range(6)]
COLLECTION = set(SEG)


def context(topic_ids=("t1", "t2"), collection=COLLECTION, **settings):
    return CheckContext(
        topics={t: "QUESTION" for t in topic_ids}, settings=settings, known_docids=lambda found: found & collection
    )


def answer_2024(topic="t1", run_id="team-a1", references=(SEG[0], SEG[1], SEG[2]), answer=None, **extra):
    answer = answer or [
        {"text": "Vicarious trauma follows exposure.", "citations": [0, 2]},
        {"text": "It affects  therapists.", "citations": [1]},
        {"text": "No citation here.", "citations": []},
    ]
    return {
        "run_id": run_id,
        "topic_id": topic,
        "topic": "what is vicarious trauma",
        "references": list(references),
        "response_length": 10,
        "answer": answer,
    } | extra


def answer_2025(topic="t1", in_metadata=True, **over):
    fields = {"team_id": "team-b", "run_id": "team-b-2", "narrative_id": topic, "type": "automatic"} | over
    line = {"references": [SEG[3], SEG[4]], "answer": [{"text": "A narrative answer.", "citations": [1, 0]}]}
    return line | ({"metadata": fields} if in_metadata else fields)


def answer_shared(topic="t1", citations=None):
    return {
        "metadata": {"team_id": "team-c", "run_id": "team-c-1", "topic_id": topic},
        "responses": [
            {"text": "First claim.", "citations": citations if citations is not None else [SEG[5], SEG[6]]},
            {"text": "Second claim.", "citations": {SEG[6]: 0.9, SEG[0]: 0.4}},
        ],
        "references": [SEG[5], SEG[6], SEG[0]],
    }


def jsonl(*lines):
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def check(data, ctx=None):
    problems, parsed = runs.check_run(data, "run.jsonl", ctx or context())
    errors = [p.format("run.jsonl") for p in problems if not p.warning]
    notes = [p.format("run.jsonl") for p in problems if p.warning]
    return errors, notes, parsed


# ------------------------------------------------------------------ the shapes, read


def test_a_2024_answer_run_becomes_answer_sentence_support_and_relevance_entries_in_order():
    errors, notes, parsed = check(jsonl(answer_2024("t1"), answer_2024("t2")))
    assert errors == [] and notes == []
    assert parsed.tag == "team-a1"
    assert parsed.data == {"shape": "2024", "team_id": "", "type": "", "priority": 1}
    t1 = [e for e in parsed.entries if e.topic == "t1"]
    assert [(e.data["kind"], e.docid, e.data.get("n")) for e in t1] == [
        ("answer", "", None),
        ("sentence", "", 1),
        ("sentence", "", 2),
        ("sentence", "", 3),
        ("support", SEG[0], 1),
        ("support", SEG[2], 1),
        ("support", SEG[1], 2),
        ("relevance", SEG[0], None),
        ("relevance", SEG[2], None),
        ("relevance", SEG[1], None),
    ]
    first = t1[0]
    # white space inside a sentence is normalised; words are counted over all sentences
    assert first.text == "Vicarious trauma follows exposure. It affects therapists. No citation here."
    assert first.data == {"kind": "answer", "sentences": 3, "words": 10, "references": [SEG[0], SEG[1], SEG[2]]}
    assert t1[1].data["citations"] == [SEG[0], SEG[2]] and t1[3].data["citations"] == []
    assert t1[4].text == "Vicarious trauma follows exposure." and all(e.line == 1 for e in t1)


@pytest.mark.parametrize("in_metadata", [True, False])
def test_a_2025_answer_run_reads_its_fields_beside_the_answer_or_in_metadata(in_metadata):
    errors, _, parsed = check(jsonl(answer_2025("t1", in_metadata), answer_2025("t2", in_metadata)))
    assert errors == []
    assert parsed.tag == "team-b-2"
    assert parsed.data == {"shape": "2025", "team_id": "team-b", "type": "automatic", "priority": 1}
    sentence = next(e for e in parsed.entries if e.data["kind"] == "sentence")
    assert sentence.data["citations"] == [SEG[4], SEG[3]]  # the run's order, not the references'


def test_the_shared_shape_takes_citations_as_ids_or_as_an_id_score_map_in_the_order_written():
    errors, _, parsed = check(jsonl(answer_shared("t1"), answer_shared("t2")))
    assert errors == []
    assert parsed.data["shape"] == "shared" and parsed.data["team_id"] == "team-c"
    sentences = [e.data["citations"] for e in parsed.entries if e.data["kind"] == "sentence" and e.topic == "t1"]
    assert sentences == [[SEG[5], SEG[6]], [SEG[6], SEG[0]]]
    relevance = [e.docid for e in parsed.entries if e.data["kind"] == "relevance" and e.topic == "t1"]
    assert relevance == [SEG[5], SEG[6], SEG[0]]  # each cited segment once


def test_a_retrieval_run_is_ranked_by_score_and_pooled_to_the_pool_depth():
    lines = [f"t1 Q0 {SEG[i]} {i + 1} {10 - i}.5 bm25\n" for i in range(4)]
    lines.append(f"t2 Q0 {SEG[0]} 1 1.0 bm25\n")
    lines.insert(0, f"t1 Q0 {SEG[9]} 5 12 bm25\n")  # the highest score, whatever its given rank
    errors, _, parsed = check("".join(lines).encode(), context(pool_depth=2))
    assert errors == []
    assert parsed.tag == "bm25" and parsed.data == {
        "shape": "retrieval",
        "task": "R",
        "team_id": "",
        "type": "",
        "priority": 1,
    }
    t1 = [(e.docid, e.data["rank"], e.data["pooled"]) for e in parsed.entries if e.topic == "t1"]
    assert t1 == [(SEG[9], 1, True), (SEG[0], 2, True), (SEG[1], 3, False), (SEG[2], 4, False), (SEG[3], 5, False)]
    assert parsed.entries[0].line == 1 and parsed.entries[0].data["score"] == 12.0


# ------------------------------------------------------------------ pooling


def test_pool_keys_make_one_relevance_item_per_segment_and_one_answer_item_per_identical_answer():
    _, _, run_a = check(jsonl(answer_2024("t1")))
    _, _, run_b = check(jsonl(answer_2024("t1", run_id="team-x9")))
    ranked = f"t1 Q0 {SEG[0]} 1 2 bm25\nt1 Q0 {SEG[11]} 2 1 bm25\n".encode()
    _, _, run_r = check(ranked, context(pool_depth=1))
    keys_a = [runs.pool_key(e) for e in run_a.entries]
    keys_b = [runs.pool_key(e) for e in run_b.entries]
    assert keys_a == keys_b  # the same answer from two runs: the same items
    assert keys_a[1:4] == [None, None, None]  # sentences are no item
    assert keys_a[0].startswith("a:") and len(keys_a[0]) == 22
    assert keys_a[4] == "p:" + keys_a[4][2:22] + ":" + SEG[0]
    assert keys_a[7:] == [f"r:{SEG[0]}", f"r:{SEG[2]}", f"r:{SEG[1]}"]
    # a retrieval run's segment within the pool depth is the same relevance item as a citation of it
    assert [runs.pool_key(e) for e in run_r.entries] == [f"r:{SEG[0]}", None]
    # an answer differing only in white space is the same answer
    spaced = run_a.entries[0]
    spaced.text = "  " + spaced.text.replace(" ", "\n ")
    assert runs.pool_key(spaced) == keys_a[0]


def test_pool_items_carry_what_the_judging_pages_show():
    _, _, run = check(jsonl(answer_2024("t1")))
    answer, support, relevance = run.entries[0], run.entries[4], run.entries[7]
    assert runs.pool_item(answer) == {
        "docid": "",
        "text": answer.text,
        "data": {"kind": "answer", "sentences": 3},
    }
    assert runs.pool_item(support) == {
        "docid": SEG[0],
        "text": "Vicarious trauma follows exposure.",
        "data": {"kind": "support", "n": 1},
    }
    assert runs.pool_item(relevance) == {"docid": SEG[0], "text": "", "data": {"kind": "relevance"}}


def test_the_segments_a_run_would_pool_are_read_without_an_evaluation():
    problems, docids = runs.pooled_docids(jsonl(answer_2024("t9")), "a.jsonl")
    assert problems == [] and docids == {SEG[0], SEG[1], SEG[2]}
    ranked = "".join(f"t1 Q0 {SEG[i]} {i + 1} {20 - i} r\n" for i in range(5)).encode()
    assert runs.pooled_docids(ranked, "r.txt", pool_depth=3)[1] == {SEG[0], SEG[1], SEG[2]}
