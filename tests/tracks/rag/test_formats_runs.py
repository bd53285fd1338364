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


def answer_2024(topic_id="t1", run_id="team-a1", references=(SEG[0], SEG[1], SEG[2]), answer=None, **extra):
    default = [
        {"text": "Vicarious trauma follows exposure.", "citations": [0, 2]},
        {"text": "It affects  therapists.", "citations": [1]},
        {"text": "No citation here.", "citations": []},
    ]
    return {
        "run_id": run_id,
        "topic_id": topic_id,
        "topic": "what is vicarious trauma",
        "references": list(references),
        "response_length": 10,
        "answer": default if answer is None else answer,
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
    line = answer_2024("t9", references=[SEG[0], SEG[1], SEG[2], SEG[3]])
    assert runs.pooled_docids(jsonl(line), "a.jsonl") == ([], {SEG[0], SEG[1], SEG[2]}, {SEG[3]})
    ranked = "".join(f"t1 Q0 {SEG[i]} {i + 1} {20 - i} r\n" for i in range(5)).encode()
    assert runs.pooled_docids(ranked, "r.txt", pool_depth=3) == ([], {SEG[0], SEG[1], SEG[2]}, {SEG[3], SEG[4]})


# ------------------------------------------------------------------ one rule each, every problem by line


def test_an_answer_over_400_words_is_refused():
    long = [{"text": "word " * 200, "citations": [0]}, {"text": "word " * 201, "citations": []}]
    errors, _, parsed = check(jsonl(answer_2024("t1"), answer_2024("t2", answer=long)))
    assert errors == ["run.jsonl:2: topic t2: 401 words, over the cap of 400"] and parsed is None
    assert check(jsonl(answer_2024("t1", answer=long[:1])))[0] == []  # 200 words: fine
    assert check(jsonl(answer_2024("t1", answer=long)), context(max_words=500))[0] == []  # the setting's cap


def test_more_than_100_references_are_refused():
    refs = [f"msmarco_v2.1_doc_01_{i}#0_0" for i in range(101)]
    ctx = context(collection=COLLECTION | set(refs))
    errors, _, _ = check(jsonl(answer_2024("t1", references=refs)), ctx)
    assert errors == ["run.jsonl:1: topic t1: 101 references, over the cap of 100"]
    assert check(jsonl(answer_2024("t1", references=refs[:100])), ctx)[0] == []


def test_citation_indices_must_be_in_range_and_whole_numbers():
    bad = [{"text": "One.", "citations": [3, -1, "0", True, 1]}]
    errors, _, _ = check(jsonl(answer_2024("t1", answer=bad)))
    assert errors == [
        "run.jsonl:1: topic t1, sentence 1: citation 3 is out of range (references has 3)",
        "run.jsonl:1: topic t1, sentence 1: citation -1 is out of range (references has 3)",
        "run.jsonl:1: topic t1, sentence 1: citation '0' is not an index into references",
        "run.jsonl:1: topic t1, sentence 1: citation True is not an index into references",
    ]
    errors, _, _ = check(jsonl(answer_2024("t1", answer=[{"text": "One.", "citations": "0"}])))
    assert errors == ["run.jsonl:1: topic t1, sentence 1: 'citations' must be a list of indices into references"]


def test_segment_ids_must_be_well_formed():
    errors, _, _ = check(jsonl(answer_2024("t1", references=[SEG[0], "msmarco_v2_doc_00_1", 7])))
    assert errors == [
        "run.jsonl:1: topic t1: references[1] 'msmarco_v2_doc_00_1' is not a segment id",
        "run.jsonl:1: topic t1: references[2] 7 is not a segment id",
    ]
    errors, _, _ = check(jsonl(answer_shared("t1", citations=["doc#1"])))
    assert errors == ["run.jsonl:1: topic t1, sentence 1: citation 'doc#1' is not a segment id"]
    # another collection's ids, by the evaluation's setting
    ctx = context(docid_pattern=r"[0-9a-f-]{36}", collection={"0b1c2d3e-0000-0000-0000-000000000000"})
    uuid = {"0b1c2d3e-0000-0000-0000-000000000000": 1.0}
    line = answer_shared("t1", citations=list(uuid))
    line["responses"][1]["citations"], line["references"] = uuid, list(uuid)
    assert check(jsonl(line), ctx)[0] == []


def test_segments_must_be_in_the_collection_each_named_once():
    missing = "msmarco_v2.1_doc_99_1#0_0"
    errors, _, _ = check(jsonl(answer_2024("t1", references=[SEG[0], missing, SEG[2]])))
    assert errors == [f"run.jsonl:1: topic t1: segment {missing} is not in the collection"]
    asked = []
    ctx = context()
    ctx.known_docids = lambda found: asked.append(set(found)) or found & COLLECTION
    check(jsonl(answer_2024("t1"), answer_2024("t2")), ctx)
    assert asked == [{SEG[0], SEG[1], SEG[2]}]  # one question for the whole file


def test_each_topic_is_answered_once():
    errors, _, parsed = check(jsonl(answer_2024("t1"), answer_2024("t2"), answer_2024("t1")))
    assert errors == ["run.jsonl:3: topic t1 is answered twice (also line 1)"] and parsed is None


def test_topic_ids_must_be_the_evaluations_and_missing_ones_are_a_note():
    errors, notes, parsed = check(jsonl(answer_2024("t1"), answer_2024("t7")))
    assert errors == ["run.jsonl:2: topic t7 is not a topic of this evaluation"]
    errors, notes, parsed = check(jsonl(answer_2024("t1")))
    assert errors == [] and notes == ["run.jsonl:0: note: no answer for 1 topic(s): t2"] and parsed is not None


def test_one_run_id_team_id_and_shape_a_file():
    errors, _, _ = check(jsonl(answer_2024("t1"), answer_2024("t2", run_id="team-a2")))
    assert errors == ["run.jsonl:2: run_id 'team-a2' differs from 'team-a1' of line 1: one run a file, one run_id"]
    errors, _, _ = check(jsonl(answer_2025("t1"), answer_2025("t2", team_id="other")))
    assert errors == ["run.jsonl:2: team_id 'other' differs from 'team-b' of line 1: one run a file, one team_id"]
    two = answer_shared("t2")
    two["metadata"]["run_id"] = "team-a1"
    errors, _, _ = check(jsonl(answer_2024("t1"), two))
    # (a 2024 line has no team_id: the shared line's is the only one, no difference)
    assert errors == [
        "run.jsonl:2: answer shape 'shared' differs from '2024' of line 1: one run a file, one answer shape"
    ]


def test_malformed_json_is_named_by_line_and_column_with_the_other_lines_still_checked():
    data = jsonl(answer_2024("t1")) + b'{"run_id": "team-a1", "topic_id": "t2",}\n[1, 2]\n{"topic_id": "t2"}\n'
    errors, _, parsed = check(data)
    assert errors == [
        "run.jsonl:2: malformed JSON: Illegal trailing comma before end of object (column 39)",
        "run.jsonl:3: each line must hold one JSON object (one topic's answer)",
        "run.jsonl:4: not an answer of a known shape: 2024 (run_id, topic_id, answer), 2025 (narrative_id, answer) "
        "or the shared shape (metadata, responses)",
    ]
    assert parsed is None


def test_fields_each_shape_needs():
    no_ids = answer_2024("t1")
    del no_ids["run_id"]
    no_ids["references"] = "x"
    errors, _, _ = check(jsonl(no_ids, answer_2024("t2", answer=[{"text": " ", "citations": []}])))
    assert errors == [
        "run.jsonl:1: no 'run_id'",
        "run.jsonl:1: topic t1: 'references' must be a list of segment ids",
        "run.jsonl:2: topic t2, sentence 1: needs a non-empty 'text'",
    ]
    errors, _, _ = check(jsonl(answer_2025("t1", type="semi"), answer_2025("t2", team_id="")))
    assert errors == [
        "run.jsonl:1: topic t1: 'type' must be one of automatic, manual, not 'semi'",
        "run.jsonl:2: no 'team_id'",
    ]
    errors, _, _ = check(jsonl(answer_2024("t1", answer=[])))
    assert errors == ["run.jsonl:1: topic t1: 'answer' must be a non-empty list of sentences"]


def test_size_and_depth_are_bounded_before_anything_is_decoded(monkeypatch):
    deep = answer_2024("t1")
    deep["answer"][0]["citations"] = [[[[[[0]]]]]]
    errors, _, _ = check(jsonl(deep))
    assert errors == ["run.jsonl:1: malformed JSON: nested deeper than 6 levels (column 287)"]
    monkeypatch.setattr(runs, "MAX_LINE_CHARS", 500)
    errors, _, _ = check(jsonl(answer_2024("t1"), answer_2024("t2", topic="x" * 600)))
    assert errors == ["run.jsonl:2: the line has more than 500 characters; not read"]
    monkeypatch.setattr(runs, "MAX_FILE_BYTES", 100)
    data = jsonl(answer_2024("t1"))
    errors, _, parsed = check(data)
    assert errors == [f"run.jsonl:0: the file has {len(data)} bytes, more than 100; not read"] and parsed is None


def test_far_more_answers_than_topics_stop_the_reading():
    lines = [answer_2024(f"x{i}") for i in range(103)]
    errors, _, parsed = check(jsonl(*lines), context(topic_ids=("t1",)))
    assert errors[-1] == (
        "run.jsonl:102: more than 100 answers beyond the 1 topics of this evaluation (each topic is answered once); "
        "the run is refused whole here, the rest is not read"
    )
    assert parsed is None


def test_a_file_that_is_not_utf8_or_is_empty_or_a_json_array_is_named_as_such():
    assert check(jsonl(answer_2024("t1")) + b'{"x": "\xff"}\n')[0] == ["run.jsonl:2: not UTF-8 (invalid start byte)"]
    assert check(b"\n  \n")[0] == ["run.jsonl:0: the file is empty"]
    assert check(json.dumps([answer_2024("t1")]).encode())[0] == [
        "run.jsonl:1: an answer run is JSON Lines (one JSON object a line), not a JSON array"
    ]


def test_retrieval_run_lines_are_checked_each_by_line():
    lines = [
        f"t1 Q0 {SEG[0]} 1 2.0 bm25",
        f"t1 Q0 {SEG[1]} 2 1.0",
        f"t1 Q0 {SEG[1]} zero 1.0 bm25",
        f"t1 Q0 {SEG[1]} 3 nan bm25",
        "t1 Q0 msmarco_v2.1_doc_00_1 4 0.5 bm25",
        f"t1 Q0 {SEG[0]} 5 0.4 bm25",
        f"t3 Q0 {SEG[2]} 1 0.3 bm25",
        "t1 Q0 msmarco_v2.1_doc_99_1#0_0 6 0.2 bm25",
        f"t2 Q0 {SEG[2]} 1 1 other",
    ]
    errors, _, parsed = check("\n".join(lines).encode())
    assert errors == [
        "run.jsonl:2: 5 columns; a TREC run line has 6: topic Q0 docid rank score tag",
        "run.jsonl:3: rank 'zero' is not a whole number of 1 or more",
        "run.jsonl:4: score 'nan' is not a finite number",
        "run.jsonl:5: 'msmarco_v2.1_doc_00_1' is not a segment id",
        "run.jsonl:9: run tag 'other' differs from 'bm25' of line 1: one run a file",
        f"run.jsonl:6: topic t1: {SEG[0]} is ranked twice (also line 1)",
        "run.jsonl:7: topic t3 is not a topic of this evaluation",
        "run.jsonl:8: topic t1: segment msmarco_v2.1_doc_99_1#0_0 is not in the collection",
    ]
    assert parsed is None


def test_a_retrieval_run_ranks_at_most_100_segments_a_topic():
    docs = [f"msmarco_v2.1_doc_02_{i}#0_0" for i in range(101)]
    ctx = context(collection=set(docs))
    data = "".join(f"t1 Q0 {d} {i + 1} {200 - i} r\n" for i, d in enumerate(docs)).encode()
    assert check(data, ctx)[0] == ["run.jsonl:101: topic t1: more than 100 segments ranked"]
    assert check(data, context(collection=set(docs), max_ranked=101))[0] == []


# ------------------------------------------------------------------ checking in a worker process


def test_a_worker_checks_with_the_segments_looked_up_beforehand_and_answers_as_at_home():
    from pooling.formats import parallel

    missing = "msmarco_v2.1_doc_99_1#0_0"
    data = jsonl(answer_2024("t1", references=[SEG[0], missing, SEG[2]]), answer_2024("t2"))
    asked = []
    ctx = context()
    ctx.known_docids = lambda found: asked.append(set(found)) or found & COLLECTION
    extra = runs.process_extra(ctx, data)
    assert asked == [{SEG[0], SEG[1], SEG[2], missing}]  # every id the file holds, in one lookup
    worker = CheckContext(topics=ctx.topics, settings={}, known_docids=parallel.unavailable, extra=extra)
    at_home, in_worker = runs.check_run(data, "r", context()), runs.check_run(data, "r", worker)
    assert in_worker == at_home and in_worker[0][0].message == f"topic t1: segment {missing} is not in the collection"
    with pytest.raises(parallel.NeedsParent):  # an id the file did not show: back to the parent
        extra["known_segments"]({SEG[11]})
    assert runs.process_extra(context(docid_pattern="[a-z]+"), data) is None  # other ids: checked at home


def test_a_nul_in_any_text_kept_is_named_once_a_line():
    errors, _, _ = check(jsonl(answer_2024("t1", answer=[{"text": "A\u0000b.", "citations": [0]}]), answer_2024("t2")))
    assert errors == ["run.jsonl:1: the line holds a NUL character (\\u0000), which no text can be stored with"]
    ctx = context(docid_pattern=".+", collection={"a\u0000"})
    assert check(jsonl(answer_shared("t1", citations=["a\u0000"])), ctx)[0][0].startswith("run.jsonl:1: the line holds")
    assert check(f"t1 Q0 {SEG[0]} 1 1 r\u0000\n".encode())[0] == ["run.jsonl:1: the line holds a NUL character"]
