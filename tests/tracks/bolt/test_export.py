"""Export of assessed citations in the seed's DTD form, validated with lxml against that DTD."""

from lxml import etree

from tracks.bolt.formats import export
from tracks.bolt.formats.xml_common import CITE_DTD, GROUP_DTD, TOPIC_DTD, validate

HEADER = {"team": "Team Alpha", "date": "2013-09-19", "eval": "BOLT-IR-P2", "contact": "A <a@example.org>"}


def cite(**kw):
    base = {
        "id": "1.001-1",
        "score": 0.9,
        "thread": "t1",
        "post": "p1",
        "offset": 3,
        "length": 20,
        "passage": "The fare is too high & the trains are clean.",
        "original": "The fare &amp; more",
        "judgment": None,
    }
    return base | kw


def test_export_carries_judgments_relspans_and_ids_and_validates():
    responses = [
        (
            "1.001",
            [
                cite(judgment={"rel": "yes", "trans": "accept", "chksrc": True, "relspans": [[12, 8], [23, 21]]}),
                cite(
                    id="1.001-2",
                    score=0.5,
                    judgment={"rel": "maybe", "trans": "problematic", "chksrc": False, "relspans": []},
                ),
                cite(id="1.001-3", score=0.25, judgment={"rel": "no", "trans": "accept", "chksrc": True}),
                cite(id="-1", score=0.1, original=None),  # not judged (yet)
            ],
        ),
        ("1.002", []),  # nothing returned: no response element (the DTD wants a cite in each)
    ]
    xml = export.export_citations(HEADER, responses)
    assert export.validate_export(xml) == []
    root = etree.fromstring(xml)
    assert root.get("subtask") == "citations" and root.get("team") == "Team Alpha"
    assert [r.get("number") for r in root] == ["1.001"]
    c1, c2, c3, c4 = root[0]
    assert (c1.get("id"), c1.get("rel"), c1.get("trans"), c1.get("chksrc")) == ("1.001-1", "yes", "accept", "yes")
    assert [r.text for r in c1.findall("relspan")] == ["too high", "the trains are clean."]
    assert "".join(c1.itertext()) == "The fare is too high & the trains are clean."
    assert c1.get("original") == "The fare &amp; more"
    assert (c2.get("rel"), c2.get("trans"), c2.get("chksrc")) == ("maybe", "problematic", "no")
    assert c2.findall("relspan") == []
    assert (c3.get("rel"), c3.get("trans")) == ("no", "na")  # translation is not judged for "no"
    assert c4.get("rel") is None and c4.get("original") == "n/a" and c4.get("id") == "-1"
    assert c4.get("score") == "0.1"


def test_overlapping_relspans_are_merged():
    xml = export.export_citations(HEADER, [("1", [cite(judgment={"rel": "yes", "relspans": [[0, 5], [3, 6]]})])])
    spans = etree.fromstring(xml).findall(".//relspan")
    assert [s.text for s in spans] == ["The fare "]


def test_validation_is_real():
    xml = export.export_citations(HEADER, [("1", [cite(judgment={"rel": "yes"})])])
    broken = xml.replace(b'rel="yes"', b'rel="perhaps"')
    problems = export.validate_export(broken)
    assert problems and "perhaps" in problems[0].message
    missing = xml.replace(b' thread="t1"', b"")
    assert export.validate_export(missing)


def test_fixture_files_validate_against_the_seed_dtds():
    from pathlib import Path

    here = Path(__file__).resolve().parents[2] / "fixtures" / "bolt"
    assert validate((here / "topics.xml").read_bytes(), TOPIC_DTD) == []
    # Submissions leave out `original`, which the appendix DTD marks required though the guidelines' own
    # example omits it; with it added they validate.
    for name, dtd in (("alpha1.xml", CITE_DTD), ("alpha1-groups.xml", GROUP_DTD)):
        data = (here / name).read_bytes().replace(b"<cite ", b'<cite original="n/a" ')
        assert validate(data, dtd) == [], name


def test_team_topic_file_holds_only_query_and_language_target():
    from pathlib import Path

    from tracks.bolt.formats import topics as topic_format

    data = (Path(__file__).resolve().parents[2] / "fixtures" / "bolt" / "topics.xml").read_bytes()
    _, topics = topic_format.parse_topics(data, "topics.xml")
    xml = export.team_topics("BOLT-IR-P2", "NIST", [(t.ident, t.text, t.data["language_target"]) for t in topics])
    assert b"description" not in xml and b"rules" not in xml and b"<cite" not in xml
    problems, again = topic_format.parse_topics(xml, "team.xml")
    assert problems == []
    assert [(t.ident, t.text, t.data["language_target"]) for t in again] == [
        ("1.001", "What do people in Cairo think of the new metro line?", "none"),
        ("1.002", "What do forum users say about the Hope Foundation and who funds it?", "eng"),
    ]
    assert all(t.data["assessor"] == {"description": "", "properties": {}, "rules": [], "citations": []} for t in again)
