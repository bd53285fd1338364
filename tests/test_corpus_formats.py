"""The pure collection parsers: record splitting, charsets, Blog06 metadata, AQUAINT-2, forum offsets, PubMed."""

import io
from pathlib import Path

import pytest

from corpus.formats import aquaint2, blog06, bolt_forum, charset, pubmed
from corpus.formats.base import FormatError, open_maybe_gzip, split_records

FIX = Path(__file__).resolve().parent / "fixtures" / "corpus"


def _docs(module, path):
    with open_maybe_gzip(path) as fh:
        return [module.parse_record(r.raw) for r in module.records(fh) if not r.problem]


def test_split_records_across_chunk_boundaries_and_reports_offsets():
    data = b"<DOC>\na</DOC>\n<DOC>\n" + b"x" * 50 + b"</DOC>\n  \n<DOC>\nno end"
    recs = list(split_records(io.BytesIO(data), b"<DOC>", b"</DOC>", chunk=7))
    assert [r.raw for r in recs[:2]] == [b"<DOC>\na</DOC>", b"<DOC>\n" + b"x" * 50 + b"</DOC>"]
    assert recs[2].problem == "no </DOC> before the next record"
    assert [r.offset for r in recs] == [0, 14, data.index(b"<DOC>\nno end")]
    assert [r.number for r in recs] == [1, 2, 3]


def test_end_tag_inside_a_page_does_not_cut_the_record():
    data = b"<DOC>\n<p>see </DOC> here</p>\n</DOC>\n<DOC>\nb\n</DOC>\n"
    recs = list(split_records(io.BytesIO(data), b"<DOC>", b"</DOC>"))
    assert recs[0].raw == b"<DOC>\n<p>see </DOC> here</p>\n</DOC>" and not recs[0].problem


@pytest.mark.parametrize(
    "page, header, expected",
    [
        ("caf\u00e9 \u201cquoted\u201d".encode("cp1252"), "ISO-8859-1", ("windows-1252", "header")),
        ("caf\u00e9 \u2014 ok".encode("utf-8"), "ISO-8859-1", ("utf-8", "utf-8 bytes (header said windows-1252)")),
        ("\u643a\u5e2f\u65e5\u8a18".encode("cp932"), "Shift_JIS", ("shift_jis", "header")),
        (
            b'<meta http-equiv="Content-Type" content="text/html; charset=gb2312">' + "\u91d1\u521a".encode("gb2312"),
            None,
            ("gbk", "meta"),
        ),
        (
            "caf\u00e9".encode("utf-8") + b"\xff\xfe broken" + " \u00e9t\u00e9".encode("utf-8") * 20,
            "utf-8",
            ("utf-8", "header (2 bad bytes replaced)"),
        ),
        (b"plain ascii", None, ("windows-1252", "ascii")),
    ],
)
def test_charset_choice(page, header, expected):
    name, codec, source = charset.choose(page, header)
    assert (name, source) == expected
    charset.decode(page, codec)  # never raises
    assert charset.choose_and_decode(page, header) == (name, codec, source, charset.decode(page, codec))


def test_control_free_is_told_from_the_bytes_for_codecs_where_that_holds():
    assert charset.control_free("caf\u00e9\t\r\n".encode("utf-8"), "utf-8")
    assert not charset.control_free(b"one\x01two", "utf-8") and not charset.control_free(b"nul\x00", "cp1252")
    assert charset.control_free("\u8584\u304f".encode("cp932"), "cp932")
    assert not charset.control_free("\u8584".encode("iso2022_jp"), "iso2022_jp")  # ESC: looked for in the text
    assert charset.control_free("\u041c\u0438\u0440".encode("cp1251"), "cp1251")
    # UTF-7 spells a control character in plain letters: never vouched for
    assert "\x01" in b"+AAE-".decode("utf-7") and not charset.control_free(b"+AAE-", "utf-7")


def test_charset_detection_without_any_label():
    text = (
        "\u8fd9\u90e8\u7535\u5f71\u592a\u957f\u4e86\uff0c\u4f46\u662f\u7279\u6548\u975e\u5e38\u68d2\u3002"
        "\u6211\u5f88\u559c\u6b22\u8fd9\u90e8\u7535\u5f71\u7684\u7ed3\u5c40\u3002"
    ) * 10
    name, codec, source = charset.choose(text.encode("gb18030"))
    assert source == "detected"
    assert charset.decode(text.encode("gb18030"), codec) == text


def test_blog06_demo_metadata_charsets_and_text():
    docs = {d.docno: d for d in _docs(blog06, FIX / "blog06-demo.txt") + _docs(blog06, FIX / "blog06-demo-2.txt.gz")}
    assert len(docs) == 12
    d = docs["BLOG06-20051212-011-0000341122"]
    assert d.meta["FEEDNO"] == "BLOG06-feed-021334" and d.meta["PERMALINK"].startswith("http://couchpotato")
    assert d.meta["DOCHDR"]["headers"]["content-type"] == "text/html; charset=ISO-8859-1"
    assert d.meta["DOCHDR"]["status"] == "HTTP/1.1 200 OK"
    assert d.charset == "windows-1252" and "Whitfield\u2019s interviews" in d.text and "caf\u00e9" in d.text
    assert d.raw.startswith(b"<html>") and b"</DOC>" not in d.raw
    assert docs["BLOG06-20060105-003-0000033310"].charset == "shift_jis"
    assert "\u8584\u304f\u3066" in docs["BLOG06-20060105-003-0000033310"].text
    assert docs["BLOG06-20051222-055-0000912840"].charset == "gbk"
    assert "\u91d1\u521a\u89c2\u540e\u611f" in docs["BLOG06-20051222-055-0000912840"].text
    assert docs["BLOG06-20051220-007-0000120087"].charset == "utf-8"  # UTF-8 bytes under an ISO-8859-1 header
    hostile = docs["BLOG06-20051228-019-0000455601"]
    assert "alert" not in hostile.text and "I like her laugh" in hostile.text  # scripts are not viewable text
    assert "BLOGHPNO" in docs["BLOG06-20051215-042-0000891203"].meta


def test_blog06_bad_records_are_reported_not_fatal():
    with open(FIX / "blog06-bad.txt", "rb") as fh:
        recs = list(blog06.records(fh))
    outcomes = []
    for r in recs:
        if r.problem:
            outcomes.append(("bad", r.number, r.problem))
            continue
        try:
            outcomes.append(("ok", r.number, blog06.parse_record(r.raw).docno))
        except FormatError as e:
            outcomes.append(("bad", r.number, str(e)))
    assert [o[0] for o in outcomes] == ["ok", "bad", "bad", "bad", "ok", "bad"]
    assert "no <DOCHDR>" in outcomes[1][2]
    assert outcomes[2][2] == "text outside any <DOC> record"
    assert outcomes[3][2] == "no <DOCNO>"
    assert outcomes[5][2] == "no </DOC> before the next record"


def test_aquaint2_structure_and_bad_record():
    with open(FIX / "aquaint2-sample.xml", "rb") as fh:
        recs = list(aquaint2.records(fh))
    first = aquaint2.structure(recs[0].raw)
    assert first["headline"] == "Dam project & villagers reach agreement"
    assert first["dateline"] == "ZEPHYR VALLEY, Jan. 1 (AP)"
    assert first["paragraphs"] == [
        "Villagers and the ministry agreed on compensation for 7,500 people on Saturday.",
        "The dam is expected to produce 1,200 megawatts.",
    ]
    doc = aquaint2.parse_record(recs[1].raw)
    assert doc.meta["type"] == "multi" and doc.text == "A bulletin without paragraphs.\n\nSecond block of text."
    with pytest.raises(FormatError, match="APW_ENG_20050101.0003: no <TEXT>"):
        aquaint2.parse_record(recs[2].raw)


def test_forum_post_offsets_count_raw_characters():
    docs = _docs(bolt_forum, FIX / "forum" / "bolt-forum-demo.xml")
    thread = docs[0]
    assert thread.docno == "bolt-eng-DF-200-192451-5470531"
    assert thread.meta["headline"] == "Is the Zephyr Dam worth the cost & the flooding?"
    p1 = bolt_forum.post_raw_text(thread.raw, thread.meta, "p1")
    # offset 0 is the newline right after <post ...>; "&amp;" counts as its five raw characters
    assert p1[0] == "\n"
    assert p1.index("&amp;") == 39 and p1[39:44] == "&amp;" and p1[45:53] == "displace"
    p2 = bolt_forum.post_raw_text(thread.raw, thread.meta, "p2")
    assert p2.startswith('\n<quote orig_author="riverwatch">')
    assert [p["author"] for p in thread.meta["posts"]] == ["riverwatch", "gridguy", "hydro_nerd"]
    assert "7,500 people <not 12,000>" in thread.text  # entities decoded in the viewable text


def test_pubmed_lines():
    with open(FIX / "pubmed-sample.jsonl", "rb") as fh:
        recs = list(pubmed.records(fh))
    assert pubmed.parse_record(recs[1].raw).docno == "29000001"
    with pytest.raises(FormatError, match="not JSON"):
        pubmed.parse_record(recs[2].raw)
    with pytest.raises(FormatError, match="no pmid"):
        pubmed.parse_record(recs[3].raw)
    assert recs[2].number == 3 and recs[2].offset > 0


def test_pubmed_xml_as_nlm_distributes_it():
    """The annual baseline's shape: a DOCTYPE'd <PubmedArticleSet>, structured abstracts, cited articles' PMIDs
    inside the citation (the article's own PMID is the first)."""
    with open(FIX / "pubmed-baseline-sample.xml", "rb") as fh:
        recs = list(pubmed.records(fh))
    assert [r.problem for r in recs] == ["", ""]  # the wrapper lines are no stray text
    assert [pubmed.docno_of(r.raw) for r in recs] == ["36912345", "37000002"]
    first = pubmed.parse_record(recs[0].raw)
    assert first.docno == "36912345"
    assert first.meta["title"].startswith("Metformin use and incident dementia")
    assert "BACKGROUND: Metformin may protect against cognitive decline." in first.text
    assert "RESULTS: Users had a lower risk of dementia (HR 0.79; 95% CI 0.71\u20130.88)." in first.text
    second = pubmed.parse_record(recs[1].raw)
    assert second.meta["title"] == "Aspirin for primary prevention & bleeding risk."
    assert second.text.endswith("increased major bleeding.")
    with pytest.raises(FormatError, match="without <MedlineCitation>"):
        pubmed.parse_record(b"<PubmedArticle><PubmedData/></PubmedArticle>")


def test_pubmed_book_articles_are_read_as_documents_between_articles():
    """NLM's files hold <PubmedBookArticle> records (Bookshelf chapters with PMIDs) among the articles: each is a
    document, titled by its chapter (or its book when it has no chapter title), with its abstract."""
    with open(FIX / "pubmed-baseline-books.xml", "rb") as fh:
        recs = list(pubmed.records(fh))
    assert [r.problem for r in recs] == ["", "", "", ""]
    assert [pubmed.docno_of(r.raw) for r in recs] == ["37000002", "28613574", "20301301", "37000003"]
    docs = [pubmed.parse_record(r.raw) for r in recs]
    assert docs[1].meta["title"] == "Metformin"
    assert docs[1].text == (
        "Metformin\n\nMetformin is a first-line medication for type 2 diabetes.\n"
        "MECHANISM: It lowers hepatic glucose production."
    )
    assert (docs[2].meta["title"], docs[2].text) == ("GeneReviews", "GeneReviews")
    assert docs[3].text == "Statins and muscle pain."
    with pytest.raises(FormatError, match="without <BookDocument>"):
        pubmed.parse_record(b"<PubmedBookArticle><PubmedBookData/></PubmedBookArticle>")


def test_pubmed_text_outside_records_is_named_as_outside_both_kinds():
    data = b"<PubmedArticleSet>\n<DeleteCitation><PMID>1</PMID></DeleteCitation>\n</PubmedArticleSet>\n"
    (rec,) = pubmed.records(io.BytesIO(data))
    assert rec.problem == "text outside any <PubmedArticle> or <PubmedBookArticle> record"


def test_pubmed_json_lines_with_other_field_names():
    with open(FIX / "pubmed-other-keys.jsonl", "rb") as fh:
        docs = [pubmed.parse_record(r.raw) for r in pubmed.records(fh)]
    assert [d.docno for d in docs] == ["36912345", "37000002"]
    assert docs[0].text.startswith("Metformin use and incident dementia.")
    assert docs[1].meta["title"] == "Aspirin for primary prevention" and docs[1].text.endswith("reduce events.")


def test_control_characters_in_a_page_do_not_break_its_text():
    """Found by tests/test_parser_fuzz.py: a \\x01 in a Blog06 page made lxml refuse the text it had parsed."""
    from corpus.formats.text import html_text

    assert html_text("<p>one\x01two</p><p>three\x00</p>") == "one two\nthree"


def test_every_blank_collapses_as_str_split_does():
    """Pieces already single-spaced skip the split/join; every other blank (all that str.split() cuts at) must not."""
    from corpus.formats.text import html_text

    blanks = [chr(c) for c in range(0x110000) if chr(c).isspace() and chr(c) not in "\x0b\x0c\x1c\x1d\x1e\x1f"]
    assert len(blanks) > 20
    for b in blanks:
        page = f"<p>a{b}b  c</p><p>{b}d{b}e{b}</p><div>f g</div>{b}<p>{b}</p>"
        assert html_text(page) == "a b c\nd e\nf g", repr(b)
        assert html_text(page, controls=False) == "a b c\nd e\nf g", repr(b)
