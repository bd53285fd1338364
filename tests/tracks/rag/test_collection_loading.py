"""`load_collection --format msmarco-v2.1-segmented`: a whole small collection, and `--only-cited RUN_FILE…`, which
streams the shards and stores only the segments the runs would have judged plus their neighbours. The format comes
to corpus through core.extension_points.collection_formats (corpus imports no track)."""

import gzip
import json

import pytest
from django.core.management import CommandError, call_command

from core import extension_points as ep
from corpus.formats import format_choices, format_module, format_names
from corpus.models import Collection
from tracks.rag.formats import segments

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def registered():
    """The track's registration (tracks/rag/plugin.py), put back after a test that takes it away."""
    yield
    ep.collection_formats.register("trec-rag", segments.collection_formats)


def segid(doc, n):
    return f"msmarco_v2.1_doc_00_{doc}#{n}_{1000 * doc + 37 * n}"


def line(doc, n):
    return json.dumps(
        {
            "docid": segid(doc, n),
            "url": f"https://example.org/{doc}",
            "title": f"Document {doc}",
            "headings": f"Document {doc}",
            "segment": f"Segment {n} of document {doc}.",
            "start_char": 37 * n,
            "end_char": 37 * n + 30,
        }
    )


@pytest.fixture
def shards(tmp_path):
    """Two shards, one gzipped and one plain: documents 0-3 in the first, 4-5 in the second, 5 segments each."""
    first = tmp_path / "msmarco_v2.1_doc_segmented_00.json.gz"
    first.write_bytes(gzip.compress("".join(line(d, n) + "\n" for d in range(4) for n in range(5)).encode()))
    second = tmp_path / "msmarco_v2.1_doc_segmented_01.json"
    second.write_text("".join(line(d, n) + "\n" for d in (4, 5) for n in range(5)))
    return [str(first), str(second)]


def stored(name="marco"):
    return sorted(Collection.objects.get(name=name).documents.values_list("docno", flat=True))


def answer_run(tmp_path, cited):
    path = tmp_path / "answers.jsonl"
    refs = list(cited)
    path.write_text(
        json.dumps(
            {
                "run_id": "a1",
                "topic_id": "t1",
                "topic": "q",
                "references": refs,
                "response_length": 3,
                "answer": [{"text": "One claim.", "citations": list(range(len(refs)))}],
            }
        )
        + "\n"
    )
    return str(path)


def test_the_track_brings_its_format_to_corpus_through_the_extension_point(monkeypatch):
    assert "msmarco-v2.1-segmented" in format_names()
    assert format_module("msmarco-v2.1-segmented") is segments
    assert ("msmarco-v2.1-segmented", "MS MARCO V2.1 segments") in format_choices()
    monkeypatch.delitem(ep.collection_formats._by_track, "trec-rag")  # put back after the test (the plugin's)
    with pytest.raises(ValueError, match="unknown collection format 'msmarco-v2.1-segmented'; known: aquaint2"):
        format_module("msmarco-v2.1-segmented")


def test_a_whole_small_collection_still_loads(shards, capsys):
    call_command("load_collection", "marco", *shards, "--format", "msmarco-v2.1-segmented", "--search", "none")
    assert len(stored()) == 30
    doc = Collection.objects.get(name="marco").documents.get(docno=segid(4, 2))
    assert doc.text == "Segment 2 of document 4."
    assert doc.meta == {
        "title": "Document 4",
        "url": "https://example.org/4",
        "headings": "Document 4",
        "start_char": 74,
        "end_char": 104,
    }
    assert Collection.objects.get(name="marco").get_format_display() == "MS MARCO V2.1 segments"


def test_only_cited_stores_the_cited_segments_and_their_neighbours(shards, tmp_path, capsys):
    answers = answer_run(tmp_path, [segid(1, 2), segid(5, 0)])
    ranked = tmp_path / "r.txt"
    ranked.write_text(f"t1 Q0 {segid(3, 4)} 1 9.5 bm25\nt1 Q0 {segid(2, 2)} 2 9.0 bm25\n")
    call_command(
        "load_collection",
        "marco",
        *shards,
        "--format",
        "msmarco-v2.1-segmented",
        "--only-cited",
        answers,
        str(ranked),
        "--pool-depth",
        "1",
        "--search",
        "none",
    )
    # ±1 around each cited segment, within its document; document 2's segment is ranked below the pool depth: alone
    assert stored() == sorted(
        [segid(1, 1), segid(1, 2), segid(1, 3), segid(5, 0), segid(5, 1), segid(3, 3), segid(3, 4), segid(2, 2)]
    )
    out = capsys.readouterr().out
    assert "4 document(s) named by 2 run file(s)" in out
    assert "8 records read from 2 file(s)" in out and "8 new" in out and "22 not wanted" in out


def test_only_cited_with_no_neighbours_and_a_cited_segment_no_shard_holds(shards, tmp_path, capsys):
    absent = "msmarco_v2.1_doc_07_1#0_0"
    answers = answer_run(tmp_path, [segid(0, 0), absent])
    call_command(
        "load_collection",
        "marco",
        *shards,
        "--format",
        "msmarco-v2.1-segmented",
        "--only-cited",
        answers,
        "--neighbours",
        "0",
        "--search",
        "none",
    )
    assert stored() == [segid(0, 0)]
    assert f"1 named docno(s) not found: {absent}" in capsys.readouterr().out


def test_only_cited_refuses_what_it_cannot_read_before_scanning(shards, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"run_id": "a1", "topic_id": "t1", "answer": [{"text": "x", "citations": [0]}]\nnot json\n')
    with pytest.raises(CommandError) as refused:
        call_command(
            "load_collection", "marco", *shards, "--format", "msmarco-v2.1-segmented", "--only-cited", str(bad)
        )
    assert str(refused.value).startswith(f"{bad}:1: malformed JSON")
    assert f"{bad}:2: malformed JSON" in str(refused.value)
    with pytest.raises(CommandError, match="the pubmed format reads no run files"):
        call_command("load_collection", "pm", *shards, "--format", "pubmed", "--only-cited", str(bad))
    with pytest.raises(CommandError, match="--neighbours and --pool-depth go with --only-cited"):
        call_command("load_collection", "marco", *shards, "--format", "msmarco-v2.1-segmented", "--neighbours", "2")
    with pytest.raises(CommandError, match="--neighbours must be 0 or more"):
        args = ("--only-cited", str(bad), "--neighbours", "-1")
        call_command("load_collection", "marco", *shards, "--format", "msmarco-v2.1-segmented", *args)
    with pytest.raises(CommandError, match="no such file"):
        args = ("--only-cited", str(tmp_path / "nope.jsonl"))
        call_command("load_collection", "marco", *shards, "--format", "msmarco-v2.1-segmented", *args)
    assert not Collection.objects.filter(name__in=["marco", "pm"]).exists()


def test_a_truncated_shard_keeps_the_cited_segments_before_the_damage_and_names_where(tmp_path, capsys):
    whole = gzip.compress("".join(line(d, n) + "\n" for d in range(40) for n in range(5)).encode())
    shard = tmp_path / "cut.json.gz"
    shard.write_bytes(whole[: len(whole) * 2 // 3])
    answers = answer_run(tmp_path, [segid(0, 1), segid(39, 1)])
    args = ("--format", "msmarco-v2.1-segmented", "--only-cited", answers, "--neighbours", "0", "--search", "none")
    call_command("load_collection", "marco", str(shard), *args)
    assert stored() == [segid(0, 1)]
    out = capsys.readouterr().out
    assert f"1 named docno(s) not found: {segid(39, 1)}" in out
    assert f"{shard}: record " in out and "file unreadable from here on" in out


def test_only_cited_with_worker_processes_keeps_the_same_segments(shards, tmp_path, transactional_db):
    answers = answer_run(tmp_path, [segid(1, 2), segid(5, 4)])
    args = ("--format", "msmarco-v2.1-segmented", "--only-cited", answers, "--workers", "2", "--search", "none")
    call_command("load_collection", "marco", *shards, *args)
    assert stored() == sorted([segid(1, 1), segid(1, 2), segid(1, 3), segid(5, 3), segid(5, 4)])


def test_runs_loaded_by_need_pass_their_check_uncited_references_and_deep_ranks_included(shards, tmp_path):
    from pooling.evaluations import create_evaluation
    from pooling.runs import RunFile, load_run_files
    from pooling.topics import load_topics
    from tracks.rag.judging import TRACK

    answers = tmp_path / "a.jsonl"
    refs = [segid(0, 2), segid(4, 4)]  # the second is never cited
    answers.write_text(
        json.dumps({"run_id": "a1", "topic_id": "t1", "references": refs, "answer": [{"text": "X.", "citations": [0]}]})
        + "\n"
    )
    ranked = tmp_path / "r.txt"
    ranked.write_text("".join(f"t1 Q0 {segid(d, 0)} {d + 1} {9 - d} bm25\n" for d in range(4)))
    only = ("--only-cited", str(answers), str(ranked), "--pool-depth", "2", "--neighbours", "0", "--search", "none")
    call_command("load_collection", "marco", *shards, "--format", "msmarco-v2.1-segmented", *only)
    assert stored() == sorted([segid(0, 2), segid(4, 4)] + [segid(d, 0) for d in range(4)])
    evaluation = create_evaluation("rag-need", TRACK, ["marco"])
    load_topics(evaluation, b'{"id": "t1", "title": "x"}\n', "t.jsonl")
    files = [RunFile("a.jsonl", answers.read_bytes(), team="A"), RunFile("r.txt", ranked.read_bytes(), team="A")]
    assert [r.problems for r in load_run_files(evaluation, files)] == [[], []]


def test_a_run_file_over_the_run_size_limit_is_refused_before_the_scan(shards, tmp_path, settings):
    answers = answer_run(tmp_path, [segid(0, 0)])
    settings.UPLOAD_MAX_BYTES = settings.UPLOAD_MAX_BYTES | {"runs": 50}
    with pytest.raises(CommandError, match=f"{answers}: a run file larger than 50 bytes"):
        call_command("load_collection", "marco", *shards, "--format", "msmarco-v2.1-segmented", "--only-cited", answers)
    assert not Collection.objects.filter(name="marco").exists()
