"""BOLT citation submissions (seed 004 appendix DTD): every problem by file and line; near-duplicates marked."""

import io
from pathlib import Path

from corpus.formats import bolt_forum
from pooling.formats.base import CheckContext, ParsedEntry
from tracks.bolt.formats import citations

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "bolt"
T1 = "bolt-eng-DF-170-181103-8882"


def forum_post_lengths():
    """The fixture forum's posts, read through the corpus format: {thread: {post: raw length}}."""
    lengths = {}
    for record in bolt_forum.records(io.BytesIO((FIXTURES / "forum.xml").read_bytes())):
        doc = bolt_forum.parse_record(record.raw)
        lengths[doc.docno] = {p["id"]: p["length"] for p in doc.meta["posts"]}
    return lengths


def context(settings=None, with_corpus=True):
    lengths = forum_post_lengths()
    extra = {"post_lengths": lambda threads: {t: lengths[t] for t in threads if t in lengths}} if with_corpus else {}
    return CheckContext(topics={"1.001": "topic", "1.002": "topic"}, settings=settings or {}, extra=extra)


def test_fixture_runs_pass_and_carry_their_fields():
    problems, run = citations.check_run((FIXTURES / "alpha1.xml").read_bytes(), "alpha1.xml", context())
    assert problems == []
    assert run.tag == "alpha1"
    assert run.data == {
        "subtask": "citations",
        "team": "Team Alpha",
        "date": "2013-09-19",
        "eval": "BOLT-IR-P2",
        "contact": "Demo Person demo@example.org",
        "priority": 1,
    }
    first = run.entries[0]
    assert (first.topic, first.line, first.docid) == ("1.001", 4, T1)
    # Entities decoded in the passage (91 characters), raw length 95 in the pointer (&amp; is 5 characters).
    assert first.text == "The new metro line opened last week. Tickets cost 2 pounds & the trains are clean and fast."
    assert len(first.text) == 91
    assert first.data == {
        "post": "p1",
        "offset": 1,
        "length": 95,
        "score": 0.95,
        "rank": 1,
        "leader": 4,
        "near_dup": False,
    }
    # The same passage quoted in the next post, ranked second: a near-duplicate of the first.
    second = run.entries[1]
    assert second.data["near_dup"] is True and second.data["leader"] == 4
    assert [e.data["near_dup"] for e in run.entries].count(True) == 1
    for name in ("alpha2.xml", "beta1.xml"):
        problems, run = citations.check_run((FIXTURES / name).read_bytes(), name, context())
        assert problems == [], name


def test_rank_is_by_score_then_file_order():
    data = b"""<bolt-ir-submission team="t" date="d" eval="BOLT-IR-P2" subtask="citations" contact="c">
<response number="1.001">
<cite score="0.2" thread="%s" post="p1" offset="0" length="5">low one here</cite>
<cite score="0.9" thread="%s" post="p1" offset="0" length="5">high one here</cite>
<cite score="0.2" thread="%s" post="p1" offset="0" length="5">tied with the first</cite>
</response>
<response number="1.002"><cite score="1" thread="%s" post="p1" offset="0" length="1">x y</cite></response>
</bolt-ir-submission>""" % ((T1.encode(),) * 4)
    problems, run = citations.check_run(data, "r.xml", context())
    assert problems == []
    assert [e.data["rank"] for e in run.entries[:3]] == [2, 1, 3]


BAD = """<?xml version="1.0"?>
<bolt-ir-submission team="" date="2013-09-19" eval="BOLT-IR-P1" subtask="citations">
<response number="1.001">
<cite score="1.5" thread="{t}" post="p1" offset="0" length="10">too high a score</cite>
<cite score="abc" thread="{t}" post="p1" offset="x" length="0">bad numbers</cite>
<cite score="0.5" thread="no-such-thread" post="p1" offset="0" length="10">unknown thread</cite>
<cite score="0.5" thread="{t}" post="p9" offset="0" length="10">unknown post</cite>
<cite score="0.5" thread="{t}" post="p1" offset="100" length="51">past the end of the post</cite>
<cite score="0.5" thread="{t}" post="p1" offset="100" length="50">exactly to the end is fine</cite>
<cite score="0.5" post="p1" offset="0" length="1">no thread</cite>
<cite score="0.5" thread="{t}" post="p1" offset="0" length="1">{long}</cite>
<cite score="0.5" thread="{t}" post="p1" offset="0" length="1">   </cite>
<note/>
</response>
<response number="9.999"><cite score="1" thread="{t}" post="p1" offset="0" length="1">x</cite></response>
<response number="1.001"><cite score="1" thread="{t}" post="p1" offset="0" length="1">x</cite></response>
</bolt-ir-submission>
"""


def test_every_problem_by_line():
    data = BAD.format(t=T1, long="w" * 251).encode()
    problems, run = citations.check_run(data, "bad.xml", context())
    assert run is None
    assert [p.format("bad.xml") for p in problems] == [
        "bad.xml:0: no response for topic 1.002",
        "bad.xml:2: <bolt-ir-submission>: missing or empty attribute 'team'",
        "bad.xml:2: <bolt-ir-submission>: missing or empty attribute 'contact'",
        "bad.xml:2: <bolt-ir-submission>: eval must be 'BOLT-IR-P2', not 'BOLT-IR-P1'",
        "bad.xml:4: cite: score must be a number between 0 and 1, not '1.5'",
        "bad.xml:5: cite: score must be a number between 0 and 1, not 'abc'",
        "bad.xml:5: cite: offset must be a non-negative integer, not 'x'",
        "bad.xml:5: cite: length must be a positive integer, not '0'",
        "bad.xml:6: cite: thread 'no-such-thread' is not in the collection",
        "bad.xml:7: cite: post 'p9' is not in thread 'bolt-eng-DF-170-181103-8882'",
        "bad.xml:8: cite: offset 100 + length 51 lies outside post 'p1', whose raw text has 150 characters",
        "bad.xml:10: cite: missing attribute 'thread'",
        "bad.xml:11: cite: passage has 251 characters; at most 250 are allowed",
        "bad.xml:12: cite: empty passage",
        "bad.xml:13: unexpected element <note> in a response",
        "bad.xml:15: response number '9.999' is not a topic of this evaluation",
        "bad.xml:16: second response for topic 1.001 (first at line 3)",
    ]


def test_citation_limit_per_topic_is_a_setting():
    cites = "\n".join(
        f'<cite score="0.5" thread="{T1}" post="p1" offset="0" length="1">word{i} other{i}</cite>' for i in range(4)
    )
    data = (
        f'<bolt-ir-submission team="t" date="d" eval="BOLT-IR-P2" subtask="citations" contact="c">\n'
        f'<response number="1.001">\n{cites}\n</response>\n'
        f'<response number="1.002"><cite score="1" thread="{T1}" post="p1" offset="0" length="1">x</cite>'
        f"</response></bolt-ir-submission>"
    ).encode()
    problems, _ = citations.check_run(data, "r.xml", context({"max_citations": 3}))
    assert [p.format("r.xml") for p in problems] == ["r.xml:2: response 1.001 has 4 citations; at most 3 are allowed"]
    problems, run = citations.check_run(data, "r.xml", context())  # the seed's 100
    assert problems == [] and len(run.entries) == 5


def test_hundred_and_one_citations_refused_by_default():
    cites = "\n".join(
        f'<cite score="0.5" thread="{T1}" post="p1" offset="0" length="1">a{i} b{i}</cite>' for i in range(101)
    )
    data = (
        f'<bolt-ir-submission team="t" date="d" eval="BOLT-IR-P2" subtask="citations" contact="c">'
        f'<response number="1.001">{cites}</response><response number="1.002">'
        f'<cite score="1" thread="{T1}" post="p1" offset="0" length="1">x</cite></response>'
        f"</bolt-ir-submission>"
    ).encode()
    problems, _ = citations.check_run(data, "r.xml", context())
    assert [p.message for p in problems] == ["response 1.001 has 101 citations; at most 100 are allowed"]


def test_malformed_xml_reports_lines_and_wrong_subtask():
    problems, run = citations.check_run(
        b"<bolt-ir-submission>\n<response number='1'>\n<cite>\n</bolt-ir-submission>", "m.xml", context()
    )
    assert run is None and problems[0].line == 4 and problems[0].message.startswith("malformed XML")
    data = (FIXTURES / "alpha1.xml").read_bytes().replace(b'subtask="citations"', b'subtask="cites"')
    problems, _ = citations.check_run(data, "a.xml", context())
    assert [p.format("a.xml") for p in problems] == [
        "a.xml:2: <bolt-ir-submission>: subtask must be 'citations', not 'cites'"
    ]


def test_without_corpus_lookup_sources_are_not_checked():
    data = BAD.format(t=T1, long="w").encode()
    problems, _ = citations.check_run(data, "bad.xml", context(with_corpus=False))
    assert not any("collection" in p.message or "post" in p.message for p in problems)


def test_pool_key_skips_near_duplicates_and_grouping_lines():
    entry = ParsedEntry(
        topic="1.001",
        line=4,
        docid=T1,
        text="Some passage",
        data={"post": "p1", "offset": 3, "length": 12, "near_dup": False},
    )
    key = citations.pool_key(entry)
    assert citations.split_key(key) == {
        "thread": T1,
        "post": "p1",
        "offset": 3,
        "length": 12,
        "passage": "Some passage",
    }
    assert citations.pool_key(ParsedEntry("1.001", 5, T1, "x", {**entry.data, "near_dup": True})) is None
    assert citations.pool_key(ParsedEntry("1.001", 5, T1, "x", {**entry.data, "view": "0"})) is None
    assert citations.pool_item(entry) == {
        "docid": T1,
        "text": "Some passage",
        "data": {"post": "p1", "offset": 3, "length": 12},
    }


# SPEC-NOTES: "Characters are those of the citation's passage text as submitted (entities decoded; at most 250)".
WRAPPED = (
    '<bolt-ir-submission team="t" date="d" eval="BOLT-IR-P2" subtask="citations" contact="c">\n'
    '<response number="1.001">\n'
    f'<cite score="0.9" thread="{T1}" post="p1" offset="0" length="1">{{first}}\n'
    "      {second} &amp; more</cite>\n"
    "</response>\n"
    f'<response number="1.002"><cite score="1" thread="{T1}" post="p1" offset="0" length="1">x</cite></response>\n'
    "</bolt-ir-submission>"
)


def test_passage_characters_are_counted_as_submitted():
    # 120 + newline + 6 spaces + 120 + " & more" (7) = 254 characters as submitted; 248 with white space collapsed.
    data = WRAPPED.format(first="a" * 120, second="b" * 120).encode()
    problems, _ = citations.check_run(data, "w.xml", context())
    assert [p.format("w.xml") for p in problems] == [
        "w.xml:3: cite: passage has 254 characters; at most 250 are allowed"
    ]
    short = WRAPPED.format(first="a" * 20, second="b" * 20).encode()
    problems, run = citations.check_run(short, "w.xml", context())
    assert problems == [] and run.entries[0].text == "a" * 20 + "\n      " + "b" * 20 + " & more"


# Seed 004's own example lays each passage out on a line of its own between <cite> and </cite>.
OWN_LINE = (
    '<bolt-ir-submission team="t" date="d" eval="BOLT-IR-P2" subtask="citations" contact="c">\n'
    '<response number="1.001">\n'
    f'<cite score="0.9" thread="{T1}" post="p1"\noffset="0" length="1">\n{{passage}}\n</cite>\n'
    "</response>\n"
    f'<response number="1.002"><cite score="1" thread="{T1}" post="p1" offset="0" length="1">x</cite></response>\n'
    "</bolt-ir-submission>"
)
FIFTY_THREE = "This is a translated passage of some post in a thread"  # 53 characters


def test_a_passage_on_its_own_line_counts_without_the_layout_line_breaks():
    assert len(FIFTY_THREE) == 53
    problems, run = citations.check_run(OWN_LINE.format(passage=FIFTY_THREE).encode(), "o.xml", context())
    assert problems == [] and run.entries[0].text == FIFTY_THREE
    # 250 characters on their own line pass (252 with the two line breaks); 251 are refused as 251.
    problems, run = citations.check_run(OWN_LINE.format(passage="a" * 250).encode(), "o.xml", context())
    assert problems == [] and len(run.entries[0].text) == 250
    problems, _ = citations.check_run(OWN_LINE.format(passage="a" * 251).encode(), "o.xml", context())
    assert [p.format("o.xml") for p in problems] == [
        "o.xml:4: cite: passage has 251 characters; at most 250 are allowed"
    ]


def test_layout_white_space_at_both_ends_is_trimmed_and_inner_white_space_kept():
    passage = "  Tickets cost\n      2 pounds &amp;  more.  \n"
    problems, run = citations.check_run(OWN_LINE.format(passage=passage).encode(), "o.xml", context())
    assert problems == [] and run.entries[0].text == "Tickets cost\n      2 pounds &  more."


def test_a_passage_inline_and_the_same_on_its_own_line_are_one_pool_item():
    inline = OWN_LINE.replace("\n{passage}\n", "{passage}").format(passage=FIFTY_THREE).encode()
    own_line = OWN_LINE.format(passage=FIFTY_THREE).encode()
    keys = {
        citations.pool_key(citations.check_run(data, "r.xml", context())[1].entries[0]) for data in (inline, own_line)
    }
    assert keys == {citations.citation_key(T1, "p1", 0, 1, FIFTY_THREE)}


def test_collapsing_white_space_is_a_setting():
    data = WRAPPED.format(first="a" * 120, second="b" * 120).encode()
    problems, run = citations.check_run(data, "w.xml", context({"passage_white_space": "collapsed"}))
    assert problems == [] and run.entries[0].text == "a" * 120 + " " + "b" * 120 + " & more"
    problems, _ = citations.check_run(data, "w.xml", context({"passage_white_space": "squeezed"}))
    assert [p.format("w.xml") for p in problems][0] == (
        "w.xml:0: setting passage_white_space must be one of 'as submitted', 'collapsed', not 'squeezed'"
    )


def test_the_fast_cite_reader_answers_as_parse_cite():
    """read_cite skips parse_cite's loops for a valid cite (the 300,000 of a batch) and hands it any other: the
    same dict and the same problems, for each reading."""
    from lxml import etree

    from tracks.bolt.formats.submission import parse_cite

    cites = [
        '<cite score="0.5" thread="t" post="p" offset="0" length="3">abc</cite>',
        '<cite score=" 1 " thread=" t " post="p " offset=" 7" length="2 " original="o" id=" x1 ">\n  a  b\n</cite>',
        '<cite score="0" thread="t" post="p" offset="1" length="1">a <relspan>b</relspan> c</cite>',
        '<cite score="1.5" thread="t" post="p" offset="0" length="3">abc</cite>',
        '<cite score="nan" thread="t" post="p" offset="-1" length="0">abc</cite>',
        '<cite score="0.5" thread="" post="p" offset="0" length="3">abc</cite>',
        '<cite score="0.5" thread="t" post="p" offset="x" length="3"> </cite>',
        '<cite thread="t" post="p" offset="0" length="3">abc</cite>',
    ]
    for reading in ("as submitted", "collapsed"):
        for text in cites:
            el = etree.fromstring(text)
            fast, slow = [], []
            assert citations.read_cite(el, fast, reading) == parse_cite(el, slow, reading=reading), text
            assert fast == slow, text
