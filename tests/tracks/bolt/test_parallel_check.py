"""BOLT run files checked in worker processes (pooling.formats.parallel) give exactly what checking them in process
gives: the same problems by line, the same parsed runs and near-duplicate classes, the same stored runs. A file
the workers cannot check (a grouping file, a thread written with an entity) is checked in process, in its turn."""

import multiprocessing
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from benchmarks.bolt import generate
from config import patience
from pooling import runs
from pooling.evaluations import create_evaluation
from pooling.formats import parallel
from pooling.formats.base import CheckContext
from pooling.formats.columns import run_problems
from pooling.models import Run, RunEntry
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tests.tracks.bolt import daemonic
from tests.tracks.bolt.test_citations import BAD, FIXTURES, T1, context
from tests.tracks.bolt.test_pipeline import evaluation  # noqa: F401 (a fixture)
from tracks.bolt.formats import citations
from tracks.bolt.near_duplicates import shared_features

ROOT = Path(__file__).resolve().parents[3]
LIMITS = partial(run_problems, tag_max=100, docid_max=200)


def in_process(files, ctx):
    """What the loader gets without workers: each file checked here, the batch's features shared."""
    with shared_features():
        answers = []
        for data, name in files:
            found, parsed = citations.check_run(data, name, ctx)
            answers.append((list(found) + (LIMITS(parsed) if parsed else []), parsed))
        return answers


def in_workers(files, ctx, processes=2):
    return list(
        parallel.checked(
            citations,
            files,
            lambda data: parallel.plain_context(citations, ctx, data),
            processes,
            LIMITS,
            shared_features,
        )
    )


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)  # the fixtures are a few KB: send them to workers all the same


def fixture_files():
    names = ["alpha1.xml", "alpha2.xml", "beta1.xml"]
    files = [((FIXTURES / n).read_bytes(), n) for n in names]
    return files + [(BAD.format(t=T1, long="w" * 251).encode(), "bad.xml")]


def test_workers_give_the_same_problems_and_runs(small_batches):
    files = fixture_files()
    got = in_workers(files, context())
    assert all(answer is not None for answer in got)  # every file was checked by a worker
    assert got == in_process(files, context())
    assert got[3][1] is None and [p.format("bad.xml") for p in got[3][0]][:2] == [
        "bad.xml:0: no response for topic 1.002",
        "bad.xml:2: <bolt-ir-submission>: missing or empty attribute 'team'",
    ]


def test_workers_find_the_same_near_duplicate_classes(small_batches):
    """Each worker shares features over its own files only; the classes must not depend on it."""
    generated, lengths, idents = generate(topics=4, runs=6, per_run=40, seed=3)
    ctx = CheckContext(
        topics={i: "topic" for i in idents},
        settings={},
        extra={"post_lengths": lambda threads: {t: lengths[t] for t in threads if t in lengths}},
    )
    files = [(data, f"{tag}.xml") for tag, data in generated.items()]
    got = in_workers(files, ctx, processes=3)
    assert all(answer is not None for answer in got)
    expected = in_process(files, ctx)
    assert got == expected
    classes = [(e.topic, e.line, e.data["leader"], e.data["near_dup"]) for _, run in got for e in run.entries]
    assert sum(near for *_, near in classes) > 0  # there were near-duplicates to find


def test_what_a_worker_cannot_check_comes_back(small_batches):
    alpha1 = (FIXTURES / "alpha1.xml").read_bytes()
    # The parser reads &#50; as "2": a thread the parent did not look up, so the worker gives the file back.
    entity = alpha1.replace(f'thread="{T1}"'.encode(), f'thread="{T1[:-1]}&#50;"'.encode())
    groups = (FIXTURES / "alpha1-groups.xml").read_bytes()
    files = [(alpha1, "alpha1.xml"), (entity, "entity.xml"), (groups, "alpha1-groups.xml")]
    got = in_workers(files, context())
    assert got[0] == in_process(files[:1], context())[0]
    assert got[1] is None and got[2] is None
    assert citations.process_extra(context(), groups) is None  # never sent: checked against the stored runs
    problems, parsed = citations.check_run(entity, "entity.xml", context())
    assert problems == [] and parsed.entries[0].docid == T1  # (in process it passes, as it should)


def test_no_workers_for_one_process_a_single_file_or_a_small_batch(monkeypatch):
    files = fixture_files()
    assert in_workers(files, context(), processes=1) == [None] * 4
    assert in_workers(files[:1], context()) == [None]
    assert in_workers(files, context()) == [None] * 4  # a few KB, under MIN_BYTES
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)
    assert None not in in_workers(files, context())


def test_a_failed_worker_leaves_the_file_to_the_caller(small_batches):
    files = fixture_files()[:2]
    unpicklable = CheckContext(topics={"1.001": "topic"}, settings={}, known_docids=lambda docids: set(docids))
    contexts = iter([unpicklable, parallel.plain_context(citations, context(), files[1][0])])
    got = list(parallel.checked(citations, files, lambda data: next(contexts), 2, LIMITS))
    assert got[0] is None and got[1] == in_process(files[1:], context())[0]


def test_a_daemonic_process_checks_its_files_itself():
    """A daemonic process may not start processes (multiprocessing refuses): every file comes back unchecked,
    for the caller to check, instead of an error."""
    spawn = multiprocessing.get_context("spawn")
    answers = spawn.Queue()
    process = spawn.Process(target=daemonic.check_fixtures, args=(answers,), daemon=True)
    process.start()
    try:
        assert answers.get(timeout=patience.scaled(60)) == [True, True]
    finally:
        process.join(timeout=patience.scaled(60))


def _children(pid):
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == str(pid) and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_end_when_their_parent_is_killed_outright():
    """A web worker killed past its timeout must not leave check workers behind, waiting forever."""
    code = "from tests.tracks.bolt import daemonic; daemonic.hold_workers()"
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout.readline().strip() == "ready"
        workers = _children(parent.pid)
        assert workers  # (the workers, and multiprocessing's resource tracker)
    finally:
        parent.kill()
        parent.wait()
    patience.wait_until(lambda: not any(_alive(pid) for pid in workers), 15, interval=0.2)
    assert not [pid for pid in workers if _alive(pid)]


def test_plain_context_holds_no_lookup_of_the_parent():
    ctx = context()
    ctx.extra["citation_runs"] = lambda: {}
    plain = parallel.plain_context(citations, ctx, (FIXTURES / "alpha1.xml").read_bytes())
    assert plain.extra["citation_runs"] is parallel.unavailable and plain.known_docids is parallel.unavailable
    with pytest.raises(parallel.NeedsParent):
        plain.extra["citation_runs"]()
    assert isinstance(plain.extra["post_lengths"], citations.KnownPosts)
    assert plain.extra["post_lengths"]({T1}) == {T1: context().extra["post_lengths"]({T1})[T1]}
    with pytest.raises(parallel.NeedsParent):
        plain.extra["post_lengths"]({"a thread the file does not name"})


def test_compact_form_round_trips():
    _, run = citations.check_run((FIXTURES / "alpha1.xml").read_bytes(), "alpha1.xml", context())
    assert parallel.expand(parallel.compact(run)) == run


# ---------------------------------------------------------------- the loader


def _batch():
    alpha1 = (FIXTURES / "alpha1.xml").read_bytes()
    bad = alpha1.replace(b'offset="154" length="72"', b'offset="154" length="74"')
    return [
        RunFile(filename="alpha1.xml", data=alpha1, team="Team Alpha", priority=1),
        # Checked in process at its turn, against alpha1 stored just before it in this batch.
        RunFile(filename="alpha1-groups.xml", data=(FIXTURES / "alpha1-groups.xml").read_bytes(), team="Team Alpha"),
        RunFile(filename="bad.xml", data=bad, team="Team Gamma", priority=1),
        RunFile(filename="alpha2.xml", data=(FIXTURES / "alpha2.xml").read_bytes(), team="Team Alpha", priority=2),
        RunFile(filename="beta1.xml", data=(FIXTURES / "beta1.xml").read_bytes(), team="Team Beta", priority=1),
    ]


def _loaded(ev):
    return {
        run.tag: sorted(
            RunEntry.objects.filter(run=run).values_list("topic__ident", "line_no", "docid", "text", "data"),
            key=lambda row: (row[1], row[0]),
        )
        for run in Run.objects.filter(evaluation=ev)
    }


def test_load_run_files_stores_the_same_with_and_without_workers(evaluation, settings, monkeypatch):  # noqa: F811
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)
    answered, as_rows = [], []
    checked = parallel.checked

    def counting(*args):
        for answer in checked(*args):
            answered.append(answer is not None)
            # A run to store comes as the COPY text of its rows, not as its entries.
            as_rows.append(answer is not None and answer[1] is not None and answer[1].rows is not None)
            yield answer

    monkeypatch.setattr(runs.parallel, "checked", counting)
    settings.RUN_CHECK_PROCESSES = 1
    serial = load_run_files(evaluation, _batch())
    assert answered == [False] * 5

    other = create_evaluation("bolt-test-2", "bolt-ir-p2", ["bolt-test-forum"])
    load_topics(other, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    settings.RUN_CHECK_PROCESSES = 2
    answered.clear()
    as_rows.clear()
    workers = load_run_files(other, _batch())
    assert answered == [True, False, True, True, True]  # the grouping file was checked here
    assert as_rows == [True, False, False, True, True]  # (bad.xml has a problem: nothing to store)

    assert [(r.filename, r.problems, r.run and r.run.tag) for r in workers] == [
        (r.filename, r.problems, r.run and r.run.tag) for r in serial
    ]
    assert workers[2].problems == [
        "bad.xml:6: cite: offset 154 + length 74 lies outside post 'p2', whose raw text has 227 characters"
    ]
    assert workers[1].run.data["citation_run"] == "alpha1"
    assert _loaded(other) == _loaded(evaluation) and set(_loaded(other)) == {
        "alpha1",
        "alpha1-groups",
        "alpha2",
        "beta1",
    }
