"""BOLT IR topic files (seed 004, "Topic format"): what teams and assessors get, and every problem by line."""

from tracks.bolt.formats import topics as topic_format

GOOD = b"""<?xml version="1.0" encoding="UTF-8"?>
<bolt-ir-topics eval="BOLT-IR-P2" contact="Ian Soboroff ian.soboroff@nist.gov">
<topic number="1.001">
<query> What do posters think of
   the new metro line? </query>
<language-target lang="arz"/>
<description>The user wants opinions &amp; complaints.</description>
<properties>
<asks-about target="abstract-entity"/>
<asks-for response="statements/opinions"/>
<languages eng="T" arz="T" cmn="F"/>
</properties>
<rules>Opinions about fares count.</rules>
<cite id="L1" thread="t-1" post="p-2" offset="5" length="20" rel="yes">The fare is <relspan>too high</relspan> now.</cite>
</topic>
<topic number="1.002">
<query>Who organised the march?</query>
<language-target lang="none"/>
<rule number="1">Names of groups count.</rule>
<rule number="2">Rumours do not.</rule>
</topic>
</bolt-ir-topics>
"""


def test_parses_query_target_and_assessor_fields():
    problems, topics = topic_format.parse_topics(GOOD, "topics.xml")
    assert problems == []
    assert [t.ident for t in topics] == ["1.001", "1.002"]
    first = topics[0]
    assert first.text == "What do posters think of the new metro line?"
    assert first.kind == "topic" and first.line == 3
    assert first.data["language_target"] == "arz"
    assessor = first.data["assessor"]
    assert assessor["description"] == "The user wants opinions & complaints."
    assert assessor["properties"] == {
        "asks_about": "abstract-entity",
        "asks_for": "statements/opinions",
        "languages": {"eng": True, "arz": True, "cmn": False},
    }
    assert assessor["rules"] == ["Opinions about fares count."]
    # The LDC-found citation: the relspan's position in the passage "The fare is too high now."
    cite = assessor["citations"][0]
    assert cite["passage"] == "The fare is too high now."
    assert cite["relspans"] == [[12, 8]]
    assert cite["passage"][12:20] == "too high"
    assert (cite["thread"], cite["post"], cite["offset"], cite["length"], cite["rel"]) == ("t-1", "p-2", 5, 20, "yes")
    # The appendix DTD's spelling: several <rule> elements.
    assert topics[1].data["assessor"]["rules"] == ["Names of groups count.", "Rumours do not."]


def test_team_view_hides_assessor_fields():
    _, topics = topic_format.parse_topics(GOOD, "topics.xml")
    view = topic_format.team_view(topics[0].data)
    assert view == {"language_target": "arz"}
    assert "assessor" not in view


def test_nonrelspan_marks_the_complement():
    data = GOOD.replace(
        b"The fare is <relspan>too high</relspan> now.", b"<nonrelspan>Well,</nonrelspan> the fare is high"
    )
    problems, topics = topic_format.parse_topics(data, "t.xml")
    assert problems == []
    cite = topics[0].data["assessor"]["citations"][0]
    assert cite["passage"] == "Well, the fare is high"
    assert cite["relspans"] == [[5, 17]]  # " the fare is high"


def test_every_problem_with_its_line():
    bad = b"""<bolt-ir-topics eval="BOLT-IR-P2">
<topic number="1.001">
<query>   </query>
<language-target lang="fra"/>
<properties><asks-about target="x"/><asks-for response="y"/><languages eng="yes"/></properties>
<colour/>
</topic>
<topic number="1.001">
<query>Again</query>
</topic>
<topic>
<query>No number</query>
<language-target lang="eng"/>
<cite id="" thread="t" post="p" offset="-1" length="0">x</cite>
</topic>
<junk/>
</bolt-ir-topics>
"""
    problems, _ = topic_format.parse_topics(bad, "t.xml")
    got = [p.format("t.xml") for p in problems]
    assert got == [
        "t.xml:1: <bolt-ir-topics>: missing attribute 'contact'",
        "t.xml:2: topic 1.001: missing or empty <query>",
        "t.xml:4: topic 1.001: language-target lang must be one of arz, cmn, eng, none, not 'fra'",
        "t.xml:5: topic 1.001: languages eng must be T or F, not 'yes'",
        "t.xml:6: topic 1.001: unexpected element <colour>",
        "t.xml:8: topic 1.001: missing <language-target>",
        "t.xml:8: duplicate topic number 1.001 (first at line 2)",
        "t.xml:11: topic without a number attribute",
        "t.xml:14: cite: missing attribute 'id'",
        "t.xml:14: cite: offset must be a non-negative integer, not '-1'",
        "t.xml:14: cite: length must be a positive integer, not '0'",
        "t.xml:16: unexpected element <junk> (expected <topic>)",
    ]


def test_malformed_xml_and_wrong_root():
    problems, topics = topic_format.parse_topics(
        b"<bolt-ir-topics eval='x' contact='y'>\n<topic number='1'>\n</bolt-ir-topics>", "t.xml"
    )
    assert topics == []
    assert problems and all(p.message.startswith("malformed XML") for p in problems)
    assert problems[0].line == 3
    problems, _ = topic_format.parse_topics(b"<topics/>", "t.xml")
    assert [p.format("t.xml") for p in problems] == ["t.xml:1: root element must be <bolt-ir-topics>, not <topics>"]


def test_fixture_topics_file_parses():
    from pathlib import Path

    data = (Path(__file__).resolve().parents[2] / "fixtures" / "bolt" / "topics.xml").read_bytes()
    problems, topics = topic_format.parse_topics(data, "topics.xml")
    assert problems == []
    assert len(topics) == 2


def test_relspans_are_positions_in_the_passage_as_submitted():
    from lxml import etree

    from tracks.bolt.formats.xml_common import COLLAPSED, collapse_with_spans, passage_with_spans

    el = etree.fromstring("<cite>The fare\n   is <relspan>too  high</relspan> for <relspan>students</relspan>.</cite>")
    text, spans = passage_with_spans(el)
    assert text == "The fare\n   is too  high for students."
    assert [text[s : s + n] for s, n in spans] == ["too  high", "students"]
    collapsed = passage_with_spans(el, reading=COLLAPSED)
    assert collapsed == ("The fare is too high for students.", [[12, 8], [25, 8]])
    assert collapse_with_spans(text, spans) == collapsed


def test_a_passage_on_its_own_line_has_its_relspans_counted_from_its_first_character():
    from lxml import etree

    from tracks.bolt.formats.xml_common import passage_with_spans

    el = etree.fromstring("<cite>\n  <relspan>The fare</relspan> is  too high.\n</cite>")
    assert passage_with_spans(el) == ("The fare is  too high.", [[0, 8]])
    el = etree.fromstring("<cite>\nThe fare is <relspan>too high.\n</relspan></cite>")
    assert passage_with_spans(el) == ("The fare is too high.", [[12, 9]])
    el = etree.fromstring("<cite>The fare<relspan>\n</relspan></cite>")
    assert passage_with_spans(el) == ("The fare", [])
