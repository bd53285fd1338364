"""The BioGen topic and run formats against seed 002's rules: a valid run, then a run breaking each rule once."""

import json
from pathlib import Path

import pytest

from pooling.formats.base import CheckContext
from tracks.biogen.formats import runs, topics
from tracks.biogen.formats.sentences import split_answer, word_count

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "biogen"
ALLOWED = {json.loads(line)["pmid"] for line in (FIXTURES / "pubmed.jsonl").read_text().splitlines()}


def context(shape="2024", topic_ids=("1", "2", "3"), **limits):
    settings = {"run_shape": shape} | ({"limits": {shape: limits}} if limits else {})
    return CheckContext(
        topics={t: "QUESTION" for t in topic_ids}, settings=settings, known_docids=lambda found: found & ALLOWED
    )


def run_2024(*results, **root):
    doc = {"team_id": "t", "run_name": "t-1", "contact_email": "t@example.org", "results": list(results)} | root
    return json.dumps(doc, indent=2).encode()


def result(topic="1", answer="Metformin lowers events [31000101].", references=("31000101",)):
    return {"topic_id": topic, "answer": answer, "references": list(references)}


def check(data, ctx=None):
    problems, parsed = runs.check_run(data, "run.json", ctx or context(topic_ids=("1",)))
    errors = [p.format("run.json") for p in problems if not p.warning]
    notes = [p.format("run.json") for p in problems if p.warning]
    return errors, notes, parsed


# ------------------------------------------------------------------ topics


@pytest.mark.parametrize("name", ["topics.jsonl", "topics.json"])
def test_topics_load_in_both_published_shapes(name):
    problems, parsed = topics.parse_topics((FIXTURES / name).read_bytes(), name)
    assert problems == []
    assert [t.ident for t in parsed] == ["1", "2", "3"]
    assert parsed[1].text == "Do vitamin D supplements prevent fractures in older adults?"
    assert parsed[1].data["topic"] == "Vitamin D and fractures"
    assert parsed[1].data["narrative"].startswith("An older adult")


def test_topic_problems_are_all_reported_by_line():
    data = b'{"id": "1", "question": "Q?"}\nnot json\n{"question": "no id"}\n{"id": "1", "question": "again"}\n'
    problems, _ = topics.parse_topics(data, "t.jsonl")
    assert [p.format("t.jsonl") for p in problems] == [
        "t.jsonl:2: malformed JSON: Expecting value: line 1 column 1 (char 0)",
        "t.jsonl:3: line 3: no id (or topic_id)",
        "t.jsonl:4: topic 1: also the id of line 1",
    ]


def test_a_malformed_topics_object_is_refused_with_its_line():
    problems, parsed = topics.parse_topics(b'{\n  "topics": [\n    {"id": 1,}\n  ]\n}\n', "t.json")
    assert parsed == [] and problems[0].line == 3 and "malformed JSON" in problems[0].message


# ------------------------------------------------------------------ sentences and citations (seed 002)


def test_a_citation_list_goes_to_the_sentence_it_closes_even_mid_sentence():
    split = split_answer("Metformin [1, 2] lowers events. It is safe [3].")
    assert [(s.text, s.pmids) for s in split.sentences] == [
        ("Metformin lowers events.", ["1", "2"]),
        ("It is safe.", ["3"]),
    ]
    assert split.warnings == [] and split.errors == []


def test_only_the_first_three_pmids_of_a_list_count_the_rest_dropped_with_a_warning():
    split = split_answer("Vitamin D helps [1, 2, 3, 4, 5].")
    assert split.sentences[0].pmids == ["1", "2", "3"]
    assert split.warnings == [
        "sentence 1: citation list [1, 2, 3, 4, 5] has 5 entries; only the first 3 count, 4, 5 dropped"
    ]


def test_a_list_after_sentence_final_punctuation_is_discarded_with_a_warning():
    split = split_answer("Statins cause pain. [7] Most pain is nocebo [8].")
    assert [s.pmids for s in split.sentences] == [[], ["8"]]
    assert split.warnings == ["citation list [7] comes after sentence 1, past its final punctuation: discarded"]


def test_a_list_after_an_abbreviations_period_inside_a_sentence_stays_in_that_sentence():
    # The period of "U.S." and "e.g." ends no sentence (the split says so): the lists are inside their sentences.
    split = split_answer(
        "Rates rose in the U.S. [35100001] and in Europe [35100002]. Some drugs, e.g. [35100006] a statin, help."
    )
    assert [(s.text, s.pmids) for s in split.sentences] == [
        ("Rates rose in the U.S. and in Europe.", ["35100001", "35100002"]),
        ("Some drugs, e.g. a statin, help.", ["35100006"]),
    ]
    assert split.warnings == [] and split.errors == []


def test_a_list_after_an_abbreviation_that_ends_the_answer_is_after_sentence_final_punctuation():
    split = split_answer("Rates rose in the U.S. [35100001]")
    assert [(s.text, s.pmids) for s in split.sentences] == [("Rates rose in the U.S.", [])]
    assert split.warnings == ["citation list [35100001] comes after sentence 1, past its final punctuation: discarded"]


def test_a_valid_run_citing_after_abbreviations_is_accepted_with_every_citation():
    answer = (
        "Metformin lowers events in the U.S. [31000101] and in Europe [31000102]. Some drugs, e.g. [31000103] it, help."
    )
    errors, notes, parsed = check(run_2024(result(answer=answer, references=["31000101", "31000102", "31000103"])))
    assert errors == [] and notes == ["run.json:0: note: sentences split by " + runs.splitter_name()]
    sentences = [e for e in parsed.entries if e.data["kind"] == "sentence"]
    assert [e.data["pmids"] for e in sentences] == [["31000101", "31000102"], ["31000103"]]


def test_a_list_before_the_first_sentence_is_discarded_with_a_warning():
    split = split_answer("[5] Statins cause pain [6].")
    assert [s.pmids for s in split.sentences] == [["6"]]
    assert split.warnings == ["citation list [5] comes before the first sentence: discarded"]


def test_a_list_entry_that_is_no_pmid_is_an_error_and_duplicates_count_once():
    split = split_answer("Statins cause pain [see above, 6, 6].")
    assert split.errors == ["sentence 1: citation 'see above' in [see above, 6, 6] is not a PMID"]
    assert split.sentences[0].pmids == ["6"]


def test_words_are_counted_without_citations_and_punctuation():
    # Metformin, lowers, (p<0.05), events: the lone "," and "." and the citation list are no words
    assert word_count("Metformin , lowers (p<0.05) events [31000101, 2] .") == 4


# ------------------------------------------------------------------ 2024 runs


def test_the_valid_run_passes_with_its_answers_sentences_and_citations():
    errors, notes, parsed = check((FIXTURES / "alpha-run1.json").read_bytes(), context())
    assert errors == []
    assert notes == ["run.json:0: note: sentences split by " + runs.splitter_name()]
    assert parsed.tag == "alpha-run1" and parsed.data["team_id"] == "alpha"
    topic1 = [e for e in parsed.entries if e.topic == "1"]
    assert [e.data["kind"] for e in topic1] == [
        "answer", "sentence", "citation", "sentence", "citation", "citation", "sentence", "citation",
    ]  # fmt: skip
    second = topic1[3]
    assert second.data["pmids"] == ["31000103", "31000102"] and second.data["n"] == 2
    assert [(e.docid, e.text) for e in topic1[4:6]] == [(p, second.text) for p in ("31000103", "31000102")]


def test_malformed_json_is_refused_whole_with_its_line():
    errors, _, parsed = check(b'{\n  "team_id": "t",\n  "results": [}\n')
    assert parsed is None and errors == [
        "run.json:3: malformed JSON: Expecting value (column 15); the run is refused whole"
    ]


def test_the_root_and_its_fields():
    errors, notes, parsed = check(json.dumps({"team_id": "", "run_name": "r", "results": {}, "x": 1}).encode())
    assert parsed is None
    assert errors == [
        "run.json:1: 'team_id' must be non-empty text",
        "run.json:1: the root has no 'contact_email'",
        "run.json:1: 'results' must be a list",
    ]
    assert "run.json:1: note: unknown field 'x' in the root" in notes


def test_a_result_needs_its_fields():
    errors, _, parsed = check(run_2024({"topic_id": "1", "answer": 5}))
    assert parsed is None
    assert errors == ["run.json:7: results[0]: 'answer' has the wrong type", "run.json:7: results[0]: no 'references'"]


def test_a_topic_unknown_or_answered_twice():
    errors, _, _ = check(run_2024(result(), result(), result(topic="9")))
    assert "run.json:14: topic 1 is answered twice (also at results[0])" in errors
    assert "run.json:21: topic 9 is not a topic of this evaluation" in errors


def test_a_cited_pmid_outside_the_allowed_set():
    errors, _, _ = check(run_2024(result(answer="A claim [31000101, 99999999].", references=["31000101", "99999999"])))
    assert errors == [
        "run.json:7: topic 1, sentence 1: PMID 99999999 is not in the allowed PubMed collection",
        "run.json:7: topic 1: reference 99999999 is not in the allowed PubMed collection",
    ]


def test_a_cited_pmid_missing_from_references():
    errors, _, _ = check(run_2024(result(answer="A claim [31000101, 31000102].")))
    assert errors == ["run.json:7: topic 1, sentence 1: PMID 31000102 is cited but not in references"]


def test_a_reference_that_is_no_pmid():
    errors, _, _ = check(run_2024(result(references=["31000101", "PMC123"])))
    assert errors == ["run.json:7: topic 1: references[1] 'PMC123' is not a PMID"]


def test_a_reference_listed_twice():
    errors, _, _ = check(run_2024(result(references=["31000101", "31000101"])))
    assert errors == ["run.json:7: topic 1: PMID 31000101 is listed more than once in references"]


def test_a_reference_never_cited_including_one_past_the_third_of_a_list():
    refs = ["31000101", "31000102", "31000103", "31000104"]
    errors, notes, _ = check(
        run_2024(result(answer="A claim [31000101, 31000102, 31000103, 31000104].", references=refs))
    )
    assert errors == [
        "run.json:7: topic 1: reference 31000104 is never cited in the answer (citations past the third of a list "
        "do not count)"
    ]
    assert any("31000104 dropped" in n for n in notes)


def test_discarded_brackets_are_warnings_only_and_the_run_loads():
    errors, notes, parsed = check(run_2024(result(answer="[31000102] A claim [31000101]. [31000103]")))
    assert parsed is not None and errors == []
    assert [n.split(": note: ")[1] for n in notes[1:]] == [
        "topic 1: citation list [31000102] comes before the first sentence: discarded",
        "topic 1: citation list [31000103] comes after sentence 1, past its final punctuation: discarded",
    ]


def test_the_word_cap_counts_no_citations_nor_punctuation():
    words = " ".join(["word"] * 149)
    ok = check(run_2024(result(answer=f"{words}, end [31000101].")))
    assert ok[0] == []
    errors, _, _ = check(run_2024(result(answer=f"{words} one more [31000101].")))
    assert errors == ["run.json:7: topic 1: 151 words (citations and punctuation not counted), over the cap of 150"]
    assert (
        check(run_2024(result(answer=f"{words} one more [31000101].")), context(topic_ids=("1",), max_words=200))[0]
        == []
    )


def test_the_sentence_cap():
    answer = " ".join(f"Sentence {i}." for i in range(10)) + " Last one [31000101]."
    errors, _, _ = check(run_2024(result(answer=answer)))
    assert errors == ["run.json:7: topic 1: 11 sentences, over the cap of 10"]


def test_an_unknown_run_shape_is_named():
    errors, _, _ = check(run_2024(result()), {"run_shape": "2023"} and CheckContext({"1": "Q"}, {"run_shape": "2023"}))
    assert errors == ["run.json:0: the evaluation's run_shape '2023' is not one of 2024, 2025-A, 2025-B"]


# ------------------------------------------------------------------ 2025 runs (JSON Lines)


def test_the_2025_task_b_run_passes_one_sentence_per_response():
    errors, notes, parsed = check((FIXTURES / "delta-taskB.jsonl").read_bytes(), context("2025-B"))
    assert errors == [] and parsed.tag == "delta-B1"
    sentences = [e for e in parsed.entries if e.data["kind"] == "sentence"]
    assert [(e.topic, e.line, e.data["pmids"]) for e in sentences] == [
        ("2", 1, ["31000201"]), ("2", 1, ["31000202"]), ("3", 2, ["31000301", "31000303"]),
    ]  # fmt: skip
    assert notes == ["run.json:0: note: no answer for 1 topic(s): 1; each scores as an answer judged not accurate"]


def test_task_b_caps_citations_per_response_and_words_and_names_lines():
    line1 = {"metadata": {"team_id": "d", "run_id": "d1", "topic_id": "2"},
             "responses": [{"text": "w " * 251, "citations": ["31000201", "31000202", "31000203", "31000204"]}]}  # fmt: skip
    line2 = {"metadata": {"team_id": "d", "run_id": "d2", "topic_id": "3"}, "responses": []}
    data = (json.dumps(line1) + "\n" + json.dumps(line2) + "\nnope\n").encode()
    errors, _, parsed = check(data, context("2025-B"))
    assert parsed is None
    assert errors == [
        "run.json:1: topic 2, sentence 1: 4 citations in 'citations', over the cap of 3",
        "run.json:1: topic 2: 251 words, over the cap of 250",
        "run.json:2: topic 3: 'responses' must be a non-empty list",
        "run.json:3: malformed JSON: Expecting value: line 1 column 1 (char 0)",
        "run.json:2: every line must have the same run_id; found d1, d2",
    ]


def test_the_2025_task_a_run_keeps_each_citations_claim():
    errors, _, parsed = check((FIXTURES / "gamma-taskA.jsonl").read_bytes(), context("2025-A"))
    assert errors == []
    first = next(e for e in parsed.entries if e.data["kind"] == "sentence")
    assert first.data["claims"] == {"31000101": "existing", "31000103": "supported", "31000102": "contradicted"}


def test_task_a_caps_supported_citations():
    line = {"metadata": {"team_id": "g", "run_id": "g1", "qa_id": "1", "question": "q"},
            "answer": [{"text": "A claim.", "supported_citations": ["31000101", "31000102", "31000103", "31000104"]}]}  # fmt: skip
    errors, _, _ = check(json.dumps(line).encode(), context("2025-A"))
    assert errors == ["run.json:1: topic 1, sentence 1: 4 citations in 'supported_citations', over the cap of 3"]


# ------------------------------------------------------------------ pooling


def test_identical_sentences_with_the_same_citations_are_one_pool_item():
    _, _, a = check((FIXTURES / "alpha-run1.json").read_bytes(), context())
    ctx = context()
    b_data = run_2024(result(topic="1", answer=(
        "Metformin as first-line therapy is associated with fewer  major cardiovascular events than sulfonylureas "
        "[31000101]. Something else [31000104]."), references=["31000101", "31000104"]))  # fmt: skip
    _, _, b = check(b_data, ctx)
    keys = lambda run, kind: {runs.pool_key(e) for e in run.entries if e.topic == "1" and e.data["kind"] == kind}  # noqa: E731
    assert len(keys(a, "sentence") & keys(b, "sentence")) == 1  # white space does not matter
    assert len(keys(a, "citation") & keys(b, "citation")) == 1  # (sentence, 31000101)
    assert keys(a, "answer") != keys(b, "answer")
