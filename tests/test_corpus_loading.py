"""load_collection: batched, idempotent, bad records listed with file/record/offset, --docnos limit, demo step."""

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from corpus.loading import load_collection
from corpus.models import Collection, Document

FIX = Path(__file__).resolve().parent / "fixtures" / "corpus"
DEMO = [FIX / "blog06-demo.txt", FIX / "blog06-demo-2.txt.gz"]

pytestmark = pytest.mark.django_db


def _snapshot(name):
    return sorted(Document.objects.filter(collection__name=name).values_list("docno", "charset", "text", "id"))


def test_load_is_idempotent_and_batched():
    first = load_collection("blog", "blog06", DEMO, batch=5)
    assert (first.seen, first.inserted, first.bad) == (12, 12, [])
    before = _snapshot("blog")
    again = load_collection("blog", "blog06", DEMO, batch=5)
    assert (again.inserted, again.already_present) == (0, 12)
    assert _snapshot("blog") == before
    doc = Document.objects.get(docno="BLOG06-20060105-003-0000033310")
    assert bytes(doc.raw).decode("cp932").startswith("<html>")
    assert doc.charset == "shift_jis" and doc.meta["DOCHDR"]["headers"]["content-type"].endswith("Shift_JIS")


def test_load_with_worker_processes_gives_the_same_documents(transactional_db):
    load_collection("one", "blog06", DEMO, workers=1)
    load_collection("two", "blog06", DEMO, workers=2, batch=3)
    strip = lambda rows: [r[:3] for r in rows]  # noqa: E731
    assert strip(_snapshot("one")) == strip(_snapshot("two"))


def test_bad_records_listed_with_file_record_and_offset(capsys):
    call_command("load_collection", "bad", str(FIX / "blog06-bad.txt"), "--format", "blog06", "--workers", "1")
    out = capsys.readouterr().out
    assert "6 records read" in out and "2 new" in out and "4 bad" in out
    data = (FIX / "blog06-bad.txt").read_bytes()
    offset = data.index(b"<DOC>\n<DOCNO>BLOG06-20060101-000-0000000001")
    assert f"blog06-bad.txt: record 2 (byte {offset}): BLOG06-20060101-000-0000000001: no <DOCHDR>" in out
    assert "record 3 (byte" in out and "text outside any <DOC> record" in out
    assert "record 6 (byte" in out and "no </DOC> before the next record" in out
    assert Document.objects.filter(collection__name="bad").count() == 2


def test_truncated_gzip_keeps_what_it_held(tmp_path):
    import gzip

    whole = gzip.compress((FIX / "blog06-demo.txt").read_bytes())
    cut = tmp_path / "cut.gz"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    r = load_collection("cut", "blog06", [cut, DEMO[1]], workers=1)
    assert r.inserted >= 3 + 3  # the records before the cut, and the next file all the same
    assert r.inserted < 12
    assert len(r.bad) == 1 and "file unreadable from here on" in r.bad[0].reason and r.bad[0].file == str(cut)


def test_collection_name_must_be_a_slug():
    with pytest.raises(CommandError, match="must be a slug"):
        call_command("load_collection", "bad name!", str(DEMO[0]), "--format", "blog06")


def test_docnos_limit(tmp_path, capsys):
    wanted = tmp_path / "docnos.txt"
    wanted.write_text(
        "# cited by the runs\nBLOG06-20051222-055-0000912840\nBLOG06-20060103-012-0000250099 extra\n"
        "BLOG06-29990101-000-0000000000\n"
    )
    call_command(
        "load_collection", "some", *map(str, DEMO), "--format", "blog06", "--docnos", str(wanted), "--workers", "1"
    )
    out = capsys.readouterr().out
    assert sorted(Document.objects.filter(collection__name="some").values_list("docno", flat=True)) == [
        "BLOG06-20051222-055-0000912840",
        "BLOG06-20060103-012-0000250099",
    ]
    assert "10 not in the docno list" in out and "1 listed docno(s) not found: BLOG06-29990101-000-0000000000" in out


def test_other_formats_load(capsys):
    r = load_collection("news", "aquaint2", [FIX / "aquaint2-sample.xml"])
    assert r.inserted == 2 and [b.reason for b in r.bad] == ["APW_ENG_20050101.0003: no <TEXT>"]
    assert Document.objects.get(docno="APW_ENG_20050101.0001").meta["headline"].startswith("Dam project & ")
    r = load_collection("forum", "bolt-forum", [FIX / "forum" / "bolt-forum-demo.xml"])
    assert r.inserted == 2
    thread = Document.objects.get(docno="bolt-eng-DF-170-181103-8882762")
    assert [p["id"] for p in thread.meta["posts"]] == ["p1", "p2"]
    r = load_collection("abstracts", "pubmed", [FIX / "pubmed-sample.jsonl"])
    assert r.inserted == 2 and [(b.number, b.reason.split(":")[0]) for b in r.bad] == [(3, "not JSON"), (4, "no pmid")]
    # NLM's XML in the same collection: one document per <PubmedArticle>, the baseline's wrapper no problem
    r = load_collection("abstracts", "pubmed", [FIX / "pubmed-baseline-sample.xml"])
    assert r.inserted == 2 and r.bad == []
    assert "RESULTS: Users had" in Document.objects.get(docno="36912345").text


def test_wrong_format_for_existing_collection_and_missing_file():
    load_collection("news", "aquaint2", [FIX / "aquaint2-sample.xml"])
    with pytest.raises(CommandError, match="holds aquaint2 documents, not blog06"):
        call_command("load_collection", "news", str(DEMO[0]), "--format", "blog06")
    with pytest.raises(CommandError, match="no such file"):
        call_command("load_collection", "x", "/nonexistent/file", "--format", "blog06")
    assert Collection.objects.filter(name="x").count() == 0


def test_demo_step_is_idempotent():
    from corpus.demo import load_demo_collections

    lines = []
    load_demo_collections(lines.append)
    load_demo_collections(lines.append)
    assert Document.objects.filter(collection__name="demo-blog06").count() == 12
    assert Document.objects.filter(collection__name="demo-bolt-forum").count() == 2
    assert "demo-blog06: 0 new, 12 already present, 0 bad" in lines[-2]


def test_concurrent_insert_of_the_same_docno_falls_back_to_on_conflict(monkeypatch):
    """Another load storing one of the batch's docnos between the check and the COPY costs nothing but speed."""
    from django.db import connection

    from corpus import loading
    from corpus.formats.base import ParsedDocument

    if connection.vendor != "postgresql":
        pytest.skip("the COPY path is PostgreSQL's")
    collection = loading.get_collection("race", "pubmed")
    Document.objects.create(collection=collection, docno="2", raw=b"theirs", charset="utf-8")
    # the other load stored docno "2" after this batch looked for it
    monkeypatch.setattr(loading, "_present", lambda cur, collection_id, docnos: set())
    docs = [ParsedDocument(docno=str(i), raw=b"ours", charset="utf-8", meta={}, text="t") for i in (1, 2, 3)]
    assert loading.insert_documents(collection, docs) == 2
    stored = dict(Document.objects.filter(collection=collection).values_list("docno", "raw"))
    assert {k: bytes(v) for k, v in stored.items()} == {"1": b"ours", "2": b"theirs", "3": b"ours"}
