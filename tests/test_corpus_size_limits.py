"""Size limits on collection files: gzip bombs and endless records are refused by name, memory stays bounded,
and a refused load leaves nothing behind (issue 20, item 6a)."""

import bz2
import gzip
import io
import json
import tracemalloc
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from corpus.formats.base import GzipStream, SizeLimitExceeded
from corpus.loading import LoadRefused, load_collection
from corpus.models import Collection, Document

FIX = Path(__file__).resolve().parent / "fixtures" / "corpus"

pytestmark = pytest.mark.django_db


def _abstracts(path, n, start=0):
    """A gzip file of n valid PubMed lines (each a loadable document), about 100 bytes each before compression."""
    lines = (json.dumps({"pmid": str(start + i), "title": f"Title {i}", "abstract": "x" * 60}) for i in range(n))
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return path


def test_gzip_stream_inflates_at_most_what_is_asked_and_stops_at_the_limit():
    bomb = gzip.compress(b"\0" * (8 << 20))  # 8 MiB of zeros: about 8 KB compressed
    stream = GzipStream(io.BytesIO(bomb), limit=3 << 20)
    sizes = [len(stream.read(1 << 20)) for _ in range(3)]
    assert sizes == [1 << 20] * 3
    with pytest.raises(SizeLimitExceeded, match="decompresses to more than 3 MiB") as caught:
        stream.read(1 << 20)
    assert caught.value.kind == "file"


def test_file_over_the_limit_refuses_the_load_and_removes_what_it_stored(settings, tmp_path, monkeypatch):
    """Batches stored before the limit was reached are deleted again, and so is the collection this load made."""
    from corpus.formats import pubmed

    settings.CORPUS_MAX_FILE_BYTES = 64 << 10
    monkeypatch.setattr(pubmed, "CHUNK", 16 << 10)  # small reads, so the big file stores batches before the limit
    good = _abstracts(tmp_path / "good.jsonl.gz", 100)  # about 10 KB: under the limit
    big = _abstracts(tmp_path / "big.jsonl.gz", 2000, start=1000)  # about 200 KB once decompressed
    with pytest.raises(LoadRefused) as caught:
        load_collection("capped", "pubmed", [good, big], batch=50)
    message = str(caught.value)
    assert (
        f"{big}: decompresses to more than 64 KiB, over the limit per file (setting CORPUS_MAX_FILE_BYTES)" in message
    )
    assert "document(s) it had stored were removed again" in message and caught.value.removed > 100
    assert not Document.objects.exists()
    assert not Collection.objects.filter(name="capped").exists()


def test_refused_load_keeps_documents_that_were_there_before(settings, tmp_path):
    load_collection("kept", "pubmed", [FIX / "pubmed-sample.jsonl"])
    before = sorted(Document.objects.values_list("docno", flat=True))
    settings.CORPUS_MAX_FILE_BYTES = 64 << 10
    with pytest.raises(LoadRefused):
        load_collection("kept", "pubmed", [_abstracts(tmp_path / "big.jsonl.gz", 2000)], batch=50)
    assert sorted(Document.objects.values_list("docno", flat=True)) == before
    assert Collection.objects.filter(name="kept").exists()


def test_gzip_bomb_is_refused_by_the_command_with_bounded_memory(settings, tmp_path):
    """A few KB that inflate to 64 MiB of zeros: refused at the record limit without holding the whole thing."""
    settings.CORPUS_MAX_RECORD_BYTES = 1 << 20
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(gzip.compress(b"\0" * (64 << 20), 9))
    assert bomb.stat().st_size < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(CommandError) as caught:  # from the command line: the message on stderr, exit status 1
            call_command("load_collection", "bombed", str(bomb), "--format", "blog06", "--workers", "1")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value).startswith(
        f"{bomb}: record 1 (byte 0): text outside any <DOC> record longer than 1 MiB, over the limit per record "
        "(setting CORPUS_MAX_RECORD_BYTES)"
    )
    assert peak < 24 << 20  # a 4 MiB read and the buffer holding it, not the 64 MiB the file inflates to
    assert not Collection.objects.filter(name="bombed").exists()


def test_one_endless_record_refuses_its_file(settings, tmp_path):
    settings.CORPUS_MAX_RECORD_BYTES = 100 << 10
    data = (FIX / "blog06-demo.txt").read_bytes()
    huge = b"<DOC>\n<DOCNO>BLOG06-HUGE</DOCNO>\n" + b"<p>and on</p>\n" * 20_000 + b"</DOC>\n"
    path = tmp_path / "huge.txt"
    path.write_bytes(data + huge + data.replace(b"<DOCNO>BLOG06-", b"<DOCNO>LATER-"))
    with pytest.raises(
        LoadRefused,
        match=rf"huge.txt: record \d+ \(byte {len(data)}\): a record longer than "
        r"100 KiB, over the limit per record",
    ):
        load_collection("huge", "blog06", [path], batch=2)
    assert not Document.objects.exists()


def test_an_endless_pubmed_line_refuses_its_file(settings, tmp_path):
    settings.CORPUS_MAX_RECORD_BYTES = 10 << 10
    path = tmp_path / "line.jsonl"
    path.write_bytes(b'{"pmid": "1", "title": "ok"}\n{"pmid": "2", "title": "' + b"y" * 50_000 + b'"}\n')
    with pytest.raises(LoadRefused, match=r"line.jsonl: record 2 \(byte 29\): a line longer than 10 KiB"):
        load_collection("lines", "pubmed", [path])
    assert not Document.objects.exists()


def test_plain_file_over_the_limit_and_other_compressions_are_refused_before_reading(settings, tmp_path):
    settings.CORPUS_MAX_FILE_BYTES = 1000
    packed = tmp_path / "demo.txt.bz2"
    packed.write_bytes(bz2.compress((FIX / "blog06-demo.txt").read_bytes()))
    with pytest.raises(CommandError) as caught:
        call_command("load_collection", "refused", str(FIX / "blog06-demo.txt"), str(packed), "--format", "blog06")
    size = (FIX / "blog06-demo.txt").stat().st_size
    assert f"blog06-demo.txt: {size:,} bytes, more than 1,000 bytes, over the limit per file" in str(caught.value)
    assert f"{packed}: bzip2-compressed; only gzip and uncompressed files are read" in str(caught.value)
    assert "nothing was stored" in str(caught.value)
    assert not Collection.objects.filter(name="refused").exists()


def test_parallel_load_refused_by_one_file_keeps_nothing(settings, tmp_path, transactional_db):
    """Worker processes: the refused file stops the others at their next batch, and all their rows are removed."""
    settings.CORPUS_MAX_FILE_BYTES = 64 << 10
    files = [_abstracts(tmp_path / f"ok{i}.jsonl.gz", 300, start=i * 1000) for i in range(3)]
    files.insert(1, _abstracts(tmp_path / "big.jsonl.gz", 2000, start=10_000))
    with pytest.raises(LoadRefused, match="big.jsonl.gz: decompresses to more than 64 KiB"):
        load_collection("parallel", "pubmed", files, workers=2, batch=50)
    assert not Document.objects.exists()
    assert not Collection.objects.filter(name="parallel").exists()


def test_default_limits_load_the_demo_files():
    r = load_collection("demo", "blog06", [FIX / "blog06-demo.txt", FIX / "blog06-demo-2.txt.gz"])
    assert (r.inserted, r.bad, r.refused) == (12, [], [])
