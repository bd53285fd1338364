"""Property tests over every file parser (issue 19): whatever bytes arrive, a parser answers with its listed
problems (or, for a collection's records, FormatError naming the record), never with another exception.

Inputs are random bytes and, closer to what goes wrong in practice, a valid fixture with a random slice replaced
by random bytes or text (a truncated upload, a hand edit, a wrong encoding)."""

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus.formats import aquaint2, blog06, bolt_forum, pubmed
from corpus.formats.base import FormatError, SizeLimitExceeded
from pooling.formats.base import CheckContext, Problem
from pooling.formats.top_docs import parse_top_docs
from tracks.bolt.formats import citations as bolt_runs
from tracks.bolt.formats import topics as bolt_topics
from tracks.qa.formats import runs as qa_runs
from tracks.qa.formats import topics as qa_topics
from tracks.qa4mre.formats import gold as qa4mre_gold
from tracks.qa4mre.formats import run as qa4mre_runs
from tracks.qa4mre.formats import test_set as qa4mre_test_set

FIX = Path(__file__).parent / "fixtures"
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _mutated(fixture):
    """The fixture with one slice replaced by random bytes or by random (often non-ASCII) text."""
    base = fixture.read_bytes()
    junk = st.one_of(st.binary(max_size=40), st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")))
    return st.tuples(st.integers(0, len(base)), st.integers(0, 60), junk).map(
        lambda c: base[: c[0]] + c[2] + base[c[0] + c[1] :]
    )


def _inputs(fixture):
    return st.one_of(st.binary(max_size=400), _mutated(fixture))


def _problems_only(result):
    problems, _ = result
    assert all(isinstance(p, Problem) for p in problems)
    for p in problems:
        p.format("f")  # every problem can be shown as FILE:LINE: message


def _qa_context():
    _, topics = qa_topics.parse_topics((FIX / "qa" / "tac2008_questions.xml").read_bytes(), "q.xml")
    return CheckContext(
        topics={t.ident: t.kind for t in topics if t.parent},
        settings={"allow_nil": True, "max_answer_chars": 7000},
    )


def _qa4mre_context():
    _, topics = qa4mre_test_set.parse_topics((FIX / "qa4mre" / "test_set.xml").read_bytes(), "t.xml")
    return CheckContext(topics={t.ident: t.kind for t in topics}, settings={}, extra={"runs_by_team_id": {}})


def _bolt_context():
    _, topics = bolt_topics.parse_topics((FIX / "bolt" / "topics.xml").read_bytes(), "t.xml")
    return CheckContext(topics={t.ident: t.kind for t in topics}, settings={}, extra={})


@FUZZ
@given(_inputs(FIX / "qa" / "trec2007_questions.xml"))
def test_qa_questions(data):
    _problems_only(qa_topics.parse_topics(data, "q.xml"))


@FUZZ
@given(_inputs(FIX / "qa" / "tac_valid_run.txt"))
def test_qa_runs(data):
    _problems_only(qa_runs.check_run(data, "run.txt", _qa_context()))


@FUZZ
@given(_inputs(FIX / "qa" / "tac2008_topdocs.txt"))
def test_top_docs(data):
    _problems_only(parse_top_docs(data, "top.txt"))


@FUZZ
@given(_inputs(FIX / "qa4mre" / "test_set_clef2012.xml"))
def test_qa4mre_test_sets(data):
    _problems_only(qa4mre_test_set.parse_topics(data, "t.xml"))


@FUZZ
@given(_inputs(FIX / "qa4mre" / "gold_clef2012.xml"))
def test_qa4mre_gold(data):
    _problems_only(qa4mre_gold.parse_gold(data, "g.xml"))


@FUZZ
@given(_inputs(FIX / "qa4mre" / "alph12011enen.xml"))
def test_qa4mre_runs(data):
    _problems_only(qa4mre_runs.check_run(data, "alph12011enen.xml", _qa4mre_context()))


@FUZZ
@given(_inputs(FIX / "bolt" / "topics.xml"))
def test_bolt_topics(data):
    _problems_only(bolt_topics.parse_topics(data, "t.xml"))


@FUZZ
@given(st.one_of(_inputs(FIX / "bolt" / "alpha1.xml"), _mutated(FIX / "bolt" / "alpha1-groups.xml")))
def test_bolt_submissions(data):
    _problems_only(bolt_runs.check_run(data, "alpha1.xml", _bolt_context()))


@pytest.mark.parametrize(
    "module, fixture",
    [
        (blog06, FIX / "corpus" / "blog06-demo.txt"),
        (aquaint2, FIX / "corpus" / "aquaint2-sample.xml"),
        (bolt_forum, FIX / "bolt" / "forum.xml"),
        (pubmed, FIX / "corpus" / "pubmed-sample.jsonl"),
        (pubmed, FIX / "corpus" / "pubmed-baseline-sample.xml"),
    ],
    ids=["blog06", "aquaint2", "bolt-forum", "pubmed-jsonl", "pubmed-xml"],
)
def test_collection_records(module, fixture):
    @FUZZ
    @given(_inputs(fixture))
    def check(data):
        try:
            for record in module.records(io.BytesIO(data), "f", max_record=1 << 16):
                module.docno_of(record.raw)
                try:
                    module.parse_record(record.raw)
                except FormatError:
                    pass  # the loader lists it as a bad record, by number and byte
        except SizeLimitExceeded:
            pass  # refused whole with a message naming the record

    check()


MANIFEST = b"alpha1.txt\tTeam Alpha\t1\tautomatic\twhole\nbeta1.txt Beta 2 manual partial\n# a comment\n"


@FUZZ
@given(st.one_of(st.binary(max_size=300), st.tuples(st.integers(0, len(MANIFEST)), st.binary(max_size=30))))
def test_run_manifests(data):
    from pooling.evaluations import LoadError
    from pooling.runs import parse_manifest

    if isinstance(data, tuple):
        data = MANIFEST[: data[0]] + data[1] + MANIFEST[data[0] :]
    try:
        parse_manifest(data, "manifest.txt")
    except LoadError as exc:
        assert all(p.startswith("manifest.txt:") for p in exc.problems)


@pytest.mark.django_db
def test_judgment_imports():
    """A judgment import is refused whole with ImportFailed naming FILE:LINE, and stores nothing."""
    from assess.models import Judgment
    from scoring.judgments_jsonl import ImportFailed, export_jsonl, import_jsonl
    from tracks.qa.synthetic import tiny_trec2007

    source = tiny_trec2007(slug="fuzz-source")
    lines = [line for line in export_jsonl(source["evaluation"])]
    target = tiny_trec2007(slug="fuzz-target", judge=False)["evaluation"]
    text = "".join(lines).encode()
    _clear(target)
    import_jsonl(target, lines, "j.jsonl")  # the unmutated export imports
    _clear(target)
    outcomes = []

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.tuples(st.integers(0, len(text)), st.integers(0, 40), st.binary(max_size=30)))
    def check(cut):
        at, length, junk = cut
        data = text[:at] + junk + text[at + length :]
        try:
            import_jsonl(target, data.decode("utf-8", "replace").splitlines(keepends=True), "j.jsonl")
        except ImportFailed as exc:
            outcomes.append("refused")
            assert str(exc).startswith("j.jsonl:")  # FILE:LINE
            assert not Judgment.objects.filter(evaluation=target).exists()
        else:
            outcomes.append("imported")
            _clear(target)  # a harmless mutation imported: start over

    check()
    assert "refused" in outcomes  # the mutations did reach the line checks


def _clear(evaluation):
    from assess.models import AnswerClass, Judgment, Nugget, TopicClosure

    Judgment.objects.filter(evaluation=evaluation).delete()
    Nugget.objects.filter(topic__evaluation=evaluation).delete()
    AnswerClass.objects.filter(topic__evaluation=evaluation).delete()
    TopicClosure.objects.filter(topic__evaluation=evaluation).delete()
