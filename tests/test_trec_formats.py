"""scoring.formats.trec: qrels, qrels_jg, run and result files, with worked examples, read back by the real
tools (ir_measures' readers, pytrec_eval) where they read the shape."""

import io

import ir_measures
import pytest

from scoring.formats.trec import (
    Qrel,
    Ranked,
    Result,
    read_qrels,
    read_results,
    write_qrels,
    write_qrels_jg,
    write_results,
    write_run,
)


def test_qrels_lines_sorted_merged_and_unjudged_kept():
    lines = list(
        write_qrels(
            [
                Qrel("10", "p9", 0),
                Qrel("2", "p1", -1),
                Qrel("2", "p1", 1),  # a second passage of post p1 judged: the judgment outranks -1
                Qrel("2", "p3", 2),
                Qrel("2", "p3", 1),  # two passages of one post: the higher grade
                Qrel("2", "p4", -1),
            ]
        )
    )
    assert lines == ["2 0 p1 1\n", "2 0 p3 2\n", "2 0 p4 -1\n", "10 0 p9 0\n"]
    read = list(ir_measures.read_trec_qrels("".join(lines)))
    assert [(q.query_id, q.doc_id, q.relevance) for q in read] == [
        ("2", "p1", 1),
        ("2", "p3", 2),
        ("2", "p4", -1),
        ("10", "p9", 0),
    ]


def test_qrels_jg_keeps_each_group():
    lines = list(
        write_qrels_jg([Qrel("1", "d", 2, "primary"), Qrel("1", "d", 0, "secondary"), Qrel("1", "d", 1, "adjudicated")])
    )
    assert lines == ["1 adjudicated d 1\n", "1 primary d 2\n", "1 secondary d 0\n"]
    problems, back = read_qrels("".join(lines).encode(), "x.qrels")
    assert problems == [] and {(q.group, q.rel) for q in back} == {("primary", 2), ("secondary", 0), ("adjudicated", 1)}


def test_a_token_with_white_space_is_refused():
    with pytest.raises(ValueError, match="whitespace-free"):
        list(write_qrels([Qrel("1", "two words", 1)]))


def test_run_file_ranks_and_keeps_the_order_trec_eval_sorts_by():
    lines = list(
        write_run(
            [
                Ranked("1", "a", 3.0, "r1"),
                Ranked("1", "b", 3.0, "r1"),  # a tie: nudged below a so trec_eval keeps the given order
                Ranked("1", "a", 1.0, "r1"),  # again: dropped
                Ranked("1", "c", 0.5, "r1"),
                Ranked("2", "a", 0.1, "r1"),
            ]
        )
    )
    assert lines[0] == "1 Q0 a 1 3.0 r1\n" and lines[2] == "1 Q0 c 3 0.5 r1\n" and lines[3] == "2 Q0 a 1 0.1 r1\n"
    read = list(ir_measures.read_trec_run("".join(lines)))
    assert [d.doc_id for d in read] == ["a", "b", "c", "a"]
    assert read[0].score > read[1].score > read[2].score
    # pytrec_eval (ir_measures' default) reads scores in single precision: the nudged tie must survive that,
    # else it breaks the tie by docno and b's relevance is seen at rank 1.
    qrels = list(ir_measures.read_trec_qrels("1 0 a 1\n1 0 b 0\n"))
    (p1,) = [m.value for m in ir_measures.iter_calc([ir_measures.P @ 1], qrels, read) if m.query_id == "1"]
    assert p1 == 1.0


RESULTS = [
    Result("r1", "2", "char_precision", 0.5),
    Result("r1", "10", "char_precision", 0.25),
    Result("r1", "all", "char_precision", 0.375),
    Result("r2", "2", "char_precision", 1.0),
    Result("r2", "all", "char_precision", 1.0),
]


def test_result_files_worked_example():
    assert "".join(write_results(RESULTS[:3], "trec_eval")) == (
        "runid                 \tall\tr1\n"
        "char_precision        \t2\t0.5000\n"
        "char_precision        \t10\t0.2500\n"
        "char_precision        \tall\t0.3750\n"
    )
    assert list(write_results(RESULTS[:1], "ir_measures")) == ["r1\t2\tchar_precision\t0.5000\n"]
    assert list(write_results(RESULTS[:1], "4col")) == ["r1\tchar_precision\t2\t0.5000\n"]


@pytest.mark.parametrize("shape", ["trec_eval", "ir_measures", "4col"])
def test_result_files_read_back(shape):
    text = "".join(write_results(RESULTS + [Result("r2", "10", "m", float("nan"))], shape))
    assert sorted(read_results(text, shape), key=repr) == sorted(RESULTS, key=repr)


def test_a_bad_result_line_is_named():
    with pytest.raises(ValueError, match="line 2"):
        read_results("r1\t1\tm\t0.5\nr1\t1\tm\n", "ir_measures")


def test_qrels_reader_names_file_and_line_of_every_problem():
    data = b"# a comment\n1 0 d1 1\n1 0 d2\n1 0 d3 high\n1 0 d1 0\n1 0 d4 -2\n"
    problems, found = read_qrels(data, "q.txt")
    assert [p.format("q.txt") for p in problems] == [
        "q.txt:3: 3 fields; a qrels line has 4: TOPIC ITERATION DOCNO REL",
        "q.txt:4: relevance 'high' is not an integer",
        "q.txt:5: d1 of topic 1 again (first on line 2)",
        "q.txt:6: relevance -2 is below -1 (unjudged)",
    ]
    assert found == []
    problems, found = read_qrels(b"1 0 d1 1\n2 0 d1 -1\n", "q.txt")
    assert problems == [] and found == [Qrel("1", "d1", 1), Qrel("2", "d1", -1)]


def test_qrels_reader_limits():
    assert read_qrels(b"1 0 d 1\n" * 10, "q", max_bytes=50)[0][0].message.startswith("the file is 80 bytes")
    problems, _ = read_qrels(b"1 0 a 1\n1 0 b 1\n1 0 c 1\n", "q", max_lines=2)
    assert [p.format("q") for p in problems] == ["q:3: more than 2 lines; nothing after this line was read"]
    assert read_qrels(b"\xff", "q")[0][0].message.startswith("not UTF-8")
    assert "characters" in read_qrels(b"1 0 " + b"d" * 201 + b" 1\n", "q")[0][0].message


def test_written_qrels_score_with_pytrec_eval_as_computed_by_hand():
    """Topic 1: a (2) and c (1) relevant, b not, e pooled but unjudged; the run ranks a, b, d, c."""
    import pytrec_eval

    qrels_text = "".join(write_qrels([Qrel("1", "a", 2), Qrel("1", "b", 0), Qrel("1", "c", 1), Qrel("1", "e", -1)]))
    run_text = "".join(write_run(Ranked("1", d, s, "r") for d, s in [("a", 4), ("b", 3), ("d", 2), ("c", 1)]))
    qrels = {}
    for q in ir_measures.read_trec_qrels(io.StringIO(qrels_text)):
        qrels.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    run = {}
    for d in ir_measures.read_trec_run(io.StringIO(run_text)):
        run.setdefault(d.query_id, {})[d.doc_id] = d.score
    got = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.2", "recall.4"}).evaluate(run)["1"]
    # AP: relevant at ranks 1 and 4: (1/1 + 2/4) / 2 = 0.75; P@2 = 1/2; recall@4 = 2/2
    assert got == pytest.approx({"map": 0.75, "P_2": 0.5, "recall_4": 1.0})
