"""The pure QA formats: question XML, top-documents lists and NIST-style run checking, on small worked files."""

from pathlib import Path

from pooling.formats.base import CheckContext, ParsedEntry
from pooling.formats.top_docs import parse_top_docs
from tracks.qa.formats.runs import check_run, collapse, pool_key
from tracks.qa.formats.topics import parse_topics

FIXTURES = Path(__file__).parents[2] / "fixtures" / "qa"
TAC = {
    "1001.1": "RIGIDLIST",
    "1001.2": "SQUISHYLIST",
    "1002.1": "RIGIDLIST",
    "1002.2": "SQUISHYLIST",
    "1002.3": "SQUISHYLIST",
}
TAC_SETTINGS = {"allow_nil": False, "max_answer_chars": 7000, "permalink_only": True}
DOCS = {f"BLOG06-20051206-000-000000000{i}" for i in (1, 2, 3)}


def context(topics=None, settings=None, docs=DOCS):
    calls = []

    def known(docids):
        calls.append(set(docids))
        return set(docids) & docs

    ctx = CheckContext(topics=topics or TAC, settings=settings or TAC_SETTINGS, known_docids=known)
    ctx.calls = calls
    return ctx


def messages(problems, filename="run.txt"):
    return [p.format(filename) for p in problems]


# ---------------------------------------------------------------- questions


def test_tac_series_and_questions_in_file_order():
    problems, topics = parse_topics((FIXTURES / "tac2008_questions.xml").read_bytes(), "q.xml")
    assert problems == []
    assert [(t.ident, t.kind, t.parent) for t in topics] == [
        ("1001", "series", None),
        ("1001.1", "RIGIDLIST", "1001"),
        ("1001.2", "SQUISHYLIST", "1001"),
        ("1002", "series", None),
        ("1002.1", "RIGIDLIST", "1002"),
        ("1002.2", "SQUISHYLIST", "1002"),
        ("1002.3", "SQUISHYLIST", "1002"),
    ]
    assert topics[0].text == "Trader Joe's"
    assert topics[1].text == "Who likes Trader Joe's?"  # white space around the question collapsed
    assert topics[1].line == 5


def test_trec2007_other_question_may_be_empty():
    problems, topics = parse_topics((FIXTURES / "trec2007_questions.xml").read_bytes(), "q.xml")
    assert problems == []
    kinds = {t.ident: t.kind for t in topics}
    assert kinds["219.5"] == "LIST" and kinds["219.7"] == "OTHER" and kinds["254"] == "series"
    assert [t.text for t in topics if t.ident == "219.7"] == [""]


def test_trec2007_questions_in_nist_layout_read_as_the_compact_file():
    """NIST's files: an XML declaration in Latin-1, a DOCTYPE naming a DTD that is not fetched, spaces around
    attributes' "=", each question on lines of its own."""
    _, compact = parse_topics((FIXTURES / "trec2007_questions.xml").read_bytes(), "q.xml")
    problems, nist = parse_topics((FIXTURES / "trec2007_questions_nist_layout.xml").read_bytes(), "q.xml")
    assert problems == []
    strip = [(t.ident, t.kind, t.parent, t.text) for t in compact]
    assert [(t.ident, t.kind, t.parent, t.text) for t in nist] == strip


def test_malformed_xml_names_the_line():
    problems, topics = parse_topics(
        b'<trecqa>\n<target id="1" text="x">\n<q id="1.1" type="LIST">a</target>\n', "bad.xml"
    )
    assert topics == []
    assert len(problems) == 1 and problems[0].line == 3
    assert problems[0].format("bad.xml").startswith("bad.xml:3: malformed XML")


def test_duplicate_id_and_unknown_type_are_all_reported():
    data = (
        b'<trecqa>\n<target id="5" text="T">\n<q id="5.1" type="LIST">a?</q>\n<q id="5.1" type="LIST">b?</q>\n'
        b'<q id="5.2" type="OPINION">c?</q>\n<q id="6.1" type="LIST">d?</q>\n</target>\n</trecqa>'
    )
    problems, _ = parse_topics(data, "q.xml")
    text = messages(problems, "q.xml")
    assert "q.xml:4: duplicate id '5.1' (question); first used on line 3" in text
    assert any(m.startswith("q.xml:5: question 5.2 has unknown type 'OPINION'") for m in text)
    assert "q.xml:6: question id '6.1' is not of the form 5.Y for target 5" in text


# ---------------------------------------------------------------- top documents


def test_top_docs_sorted_by_rank_with_errors_per_line():
    problems, lists = parse_top_docs((FIXTURES / "tac2008_topdocs.txt").read_bytes(), "top.txt")
    assert problems == []
    assert lists["1001"] == [[1, "BLOG06-20051206-000-0000000001", 12.5], [2, "BLOG06-20051206-000-0000000002", 10.25]]
    problems, _ = parse_top_docs(b"1 1 D1 3.0\n1 x D2 2.0\n1 2 D3\n", "top.txt")
    assert messages(problems, "top.txt") == [
        "top.txt:2: rank 'x' is not a positive whole number",
        "top.txt:3: expected 4 columns 'qnum rank docid rsv' (or 'qnum Q0 docid rank rsv tag'), found 3",
    ]


def test_top_docs_in_trec_run_format_read_the_same():
    """`qnum Q0 docid rank rsv tag`, the form rankings are exchanged in beside the guidelines' four columns."""
    six = (FIXTURES / "tac2008_topdocs_trec_format.txt").read_bytes()
    four = (FIXTURES / "tac2008_topdocs.txt").read_bytes()
    assert parse_top_docs(six, "top.txt") == parse_top_docs(four, "top.txt")
    problems, _ = parse_top_docs(b"1001 Q0 D1 one 3.0 PRISE\n", "top.txt")
    assert messages(problems, "top.txt") == ["top.txt:1: rank 'one' is not a positive whole number"]


# ---------------------------------------------------------------- runs


def test_valid_tac_run_parses_with_one_docid_lookup():
    ctx = context()
    problems, run = check_run((FIXTURES / "tac_valid_run.txt").read_bytes(), "alpha.txt", ctx)
    assert problems == []
    assert run.tag == "AlphaQA1" and len(run.entries) == 6
    assert run.entries[2].text == "cheap   wine and friendly staff"  # kept as submitted; pooling collapses
    assert len(ctx.calls) == 1 and ctx.calls[0] == DOCS


def test_bad_tac_run_reports_every_problem_nist_style():
    problems, run = check_run((FIXTURES / "tac_bad_run.txt").read_bytes(), "bad.txt", context())
    assert run is None
    assert messages(problems, "bad.txt") == [
        "bad.txt:2: missing columns: expected 'qid run-tag docid answer-string', found 2 columns",
        "bad.txt:3: unknown question id '1001.9'",
        "bad.txt:4: run tag 'OtherTag1' differs from 'BadQA1' of line 1",
        "bad.txt:5: docid 'BLOG06-feed-000042' is not a permalink document of the collection",
        "bad.txt:6: NIL is not allowed in this evaluation (question 1002.2)",
        "bad.txt:7: bad encoding: not valid UTF-8 (byte 0xe9 at column 49)",
        "bad.txt:0: question 1002.3 has no line: every question needs at least one",
    ]


def test_answer_length_limit_counts_non_white_space_per_question():
    topics = {"1.1": "SQUISHYLIST"}
    # 3 lines of 40 non-white-space characters each (plus spaces that do not count): limit 100 crossed on line 3
    line = "1.1 T1 BLOG06-20051206-000-0000000001 " + " ".join(["abcd"] * 10) + "\n"
    problems, _ = check_run(line.encode() * 3, "r", context(topics, {"max_answer_chars": 100}))
    assert messages(problems, "r") == [
        "r:3: answer strings of question 1.1 exceed 100 non-white-space characters (120 in all)"
    ]
    problems, _ = check_run(line.encode() * 2, "r", context(topics, {"max_answer_chars": 80}))
    assert problems == []  # exactly 80 is allowed


def test_nil_rules_where_nil_is_allowed():
    topics = {"219.1": "FACTOID", "219.2": "FACTOID", "219.3": "FACTOID", "219.5": "LIST", "219.7": "OTHER"}
    data = (
        b"219.1 R1 NIL\n219.2 R1 D1 a chemical engineer\n219.2 R1 D2 engineer\n219.3 R1 D1 Curveball\n"
        b"219.3 R1 NIL\n219.5 R1 NIL\n219.7 R1 NIL\n"
    )
    problems, _ = check_run(data, "r", context(topics, {"allow_nil": True}, docs={"D1", "D2"}))
    assert messages(problems, "r") == [
        "r:3: factoid question 219.2 has 2 lines; exactly one answer (or NIL) is allowed",
        "r:5: NIL beside other answers for question 219.3",
        "r:5: factoid question 219.3 has 2 lines; exactly one answer (or NIL) is allowed",
        # seed 001, 2.1: NIL is a factoid's response only
        "r:6: NIL answers factoid questions only; question 219.5 is of type LIST",
        "r:7: NIL answers factoid questions only; question 219.7 is of type OTHER",
    ]


TREC2007_TOPICS = {"219.1": "FACTOID", "219.5": "LIST", "219.7": "OTHER"}


def trec2007_settings():
    from core.tracks import get_track

    return dict(get_track("trec2007-qa").default_settings)


def test_trec2007_takes_a_nil_line_as_a_list_or_other_questions_explicit_empty_response():
    data = b"219.1 R1 D1 Curveball\n219.5 R1 NIL\n219.7 R1 NIL\n"
    problems, run = check_run(data, "r", context(TREC2007_TOPICS, trec2007_settings(), docs={"D1"}))
    assert problems == []
    assert [(e.topic, e.docid, e.text) for e in run.entries] == [
        ("219.1", "D1", "Curveball"),
        ("219.5", "NIL", ""),
        ("219.7", "NIL", ""),
    ]
    assert [pool_key(e) for e in run.entries[1:]] == [None, None]  # not pooled


def test_an_empty_response_stands_alone_and_a_question_without_a_line_is_still_refused():
    data = b"219.1 R1 D1 Curveball\n219.5 R1 NIL\n219.5 R1 D1 Jones\n"
    problems, run = check_run(data, "r", context(TREC2007_TOPICS, trec2007_settings(), docs={"D1"}))
    assert run is None
    assert messages(problems, "r") == [
        "r:2: NIL (an empty response) beside other answers for question 219.5",
        "r:0: question 219.7 has no line: every question needs at least one (an empty response is the line "
        "'219.7 TAG NIL')",
    ]


def test_tac2008_takes_no_empty_response():
    # seed 000: "an unordered, non-empty set of [answer-string, docid] pairs"
    from core.tracks import get_track

    settings = dict(get_track("tac2008-qa").default_settings)
    problems, _ = check_run(b"1.1 R1 NIL\n", "r", context({"1.1": "RIGIDLIST"}, settings))
    assert messages(problems, "r") == ["r:1: NIL is not allowed in this evaluation (question 1.1)"]


def test_control_characters_and_empty_file():
    problems, _ = check_run(b"1.1 T D a\x01b\n", "r", context({"1.1": "LIST"}, {}, docs={"D"}))
    assert messages(problems, "r") == [
        "r:1: bad encoding: control character U+0001",
        "r:0: question 1.1 has no line: every question needs at least one",
    ]
    problems, _ = check_run(b"", "r", context({"1.1": "LIST"}, {}))
    assert messages(problems, "r") == ["r:0: the file is empty"]


def test_pool_key_collapses_white_space_and_skips_nil():
    a = ParsedEntry(topic="1.1", line=1, docid="D1", text="cheap   wine\tand  staff")
    b = ParsedEntry(topic="1.1", line=9, docid="D1", text="cheap wine and staff")
    c = ParsedEntry(topic="1.1", line=2, docid="D2", text="cheap wine and staff")
    assert pool_key(a) == pool_key(b) != pool_key(c)
    assert pool_key(ParsedEntry(topic="1.1", line=3, docid="NIL")) is None
    assert collapse("  a \n b ") == "a b"


def test_tracks_name_these_modules():
    from core.tracks import get_track

    for slug in ("tac2008-qa", "trec2007-qa"):
        spec = get_track(slug)
        assert spec.topic_format.parse_topics is parse_topics
        assert spec.run_format.check_run is check_run


def test_qa_formats_and_measures_import_no_django():
    import os
    import subprocess
    import sys

    code = (
        "import sys; import tracks.qa.formats.topics, tracks.qa.formats.runs, tracks.qa.measures; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[3],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"
