"""Storing run lines: the COPY text writer (core.bulk) and store_run without foreign-key constraints."""

import pytest

from accounts.models import Team
from core import bulk, copy_text
from core.bulk import insert_rows
from pooling.evaluations import LoadError, create_evaluation
from pooling.formats.base import ParsedEntry, ParsedRun
from pooling.models import Run, RunEntry, Topic
from pooling.runs import store_run


@pytest.fixture
def bolt(db):
    evaluation = create_evaluation("store-bolt", "bolt-ir-p2")
    Topic.objects.create(evaluation=evaluation, ident="1.001", kind="topic", text="q", position=0)
    return evaluation


def test_copy_keeps_tabs_newlines_backslashes_and_unicode(bolt):
    team = Team.objects.create(name="t")
    run = Run.objects.create(evaluation=bolt, team=team, tag="r1")
    topic = Topic.objects.get(evaluation=bolt)
    texts = ["a\tb", "line\nbreak\r\n", "back\\slash \\N \\t", "é → 中文", ""]
    datas = [{"q": "x\\y\t\n"}, {"n": 1, "ok": True, "s": None}, {"nested": [1, {"a": "\\"}]}, {}, {"é": "ü"}]
    rows = [(run.pk, topic.pk, i, f"doc\t{i}\\", t, d) for i, (t, d) in enumerate(zip(texts, datas))]
    insert_rows(RunEntry, ["run_id", "topic_id", "line_no", "docid", "text", "data"], rows)
    stored = list(RunEntry.objects.filter(run=run).order_by("line_no").values_list("docid", "text", "data"))
    assert stored == [(f"doc\t{i}\\", t, d) for i, (t, d) in enumerate(zip(texts, datas))]


def test_copy_text_of_nulls_floats_and_timestamps(bolt):
    """Score rows (scoring.rescore.store): nullable columns, doubles and a timestamp go in as COPY text too, and
    come back as given: None as NULL, floats to the last bit, the instant with its zone."""
    from datetime import UTC, datetime

    from scoring.models import Score

    run = Run.objects.create(evaluation=bolt, team=Team.objects.create(name="t"), tag="r1")
    topic = Topic.objects.get(evaluation=bolt)
    at = datetime(2026, 11, 24, 13, 5, 7, 123456, tzinfo=UTC)
    values = [0.1 + 0.2, None, 1e-300, 2, 1 / 3]
    topics = [topic.pk, None, topic.pk, None, topic.pk]
    rows = [
        (run.pk, "question", t, f"m\\{i}\t", v, {"k": [i, None]}, at) for i, (t, v) in enumerate(zip(topics, values))
    ]
    fields = ["run_id", "scope", "topic_id", "measure", "value", "detail", "computed_at"]
    assert bulk._text_writers([Score._meta.get_field(f) for f in fields]) is not None  # (not psycopg's per row)
    insert_rows(Score, fields, rows)
    stored = list(
        Score.objects.filter(run=run)
        .order_by("id")
        .values_list("run_id", "scope", "topic_id", "measure", "value", "detail", "computed_at")
    )
    assert stored == [(r[0], r[1], r[2], r[3], None if r[4] is None else float(r[4]), r[5], r[6]) for r in rows]


def test_json_of_a_batch_is_split_exactly_or_not_at_all():
    """Dicts are encoded in one json.dumps call and split at "}, {": the same text as one call each, also when a
    dict holds that text (in a string, or between the dicts of a list) or is empty."""
    tricky = [
        {"a": "}, {"},
        {},
        {"list": [{"x": 1}, {"y": 2}]},
        {"nested": {"b": {}}, "c": [{}]},
        {"q": 'back\\slash " quote', "é": "中"},
        {"n": None, "f": 1.5, "t": True},
    ]
    for values in (tricky, tricky[1:2], tricky[2:], [d for d in tricky if "a" not in d and "list" not in d], []):
        assert copy_text.json_fields(values) == [copy_text.json_field(v) for v in values]
    assert copy_text.json_fields([["not", "a dict"], {"a": 1}]) == ['["not", "a dict"]', '{"a": 1}']


def test_a_column_of_strings_is_escaped_as_each_one_would_be():
    """escaped() passes a column through when no string in it needs escaping, found by one scan of them all."""
    plain = ["a passage", "é → 中文", ""]
    for values in (plain, plain + ["tab\there"], plain + ["back\\slash"], ["\x01", "ok"], ["line\nbreak"], []):
        assert copy_text.escaped(values) == [copy_text.copy_text(v) for v in values]
    assert copy_text.escaped(plain) == plain


def test_a_batch_with_braces_in_its_data_is_stored_as_given(bolt):
    team = Team.objects.create(name="t")
    run = Run.objects.create(evaluation=bolt, team=team, tag="r1")
    topic = Topic.objects.get(evaluation=bolt)
    datas = [{"a": "}, {"}, {}, {"list": [{"x": 1}, {"y": "\\"}]}, {"p": "p1", "n": 3}]
    rows = [(run.pk, topic.pk, i, "d", "t", d) for i, d in enumerate(datas)]
    insert_rows(RunEntry, ["run_id", "topic_id", "line_no", "docid", "text", "data"], rows)
    assert list(RunEntry.objects.filter(run=run).order_by("line_no").values_list("data", flat=True)) == datas


def test_a_topic_removed_before_the_run_is_stored_refuses_the_run(bolt):
    team = Team.objects.create(name="t")
    parsed = ParsedRun(tag="r1", entries=[ParsedEntry("1.001", 3, "d"), ParsedEntry("9.999", 4, "d")])
    with pytest.raises(LoadError) as exc:
        store_run(bolt, parsed, team, 1, source_name="r1.xml")
    assert exc.value.problems == ["r1.xml:0: topic 9.999 was removed while the run was loading"]
    assert not Run.objects.filter(evaluation=bolt).exists() and not RunEntry.objects.exists()


def test_rows_written_by_a_worker_are_stored_as_the_entries_would_be(bolt):
    """A worker sends a run's lines as COPY text (pooling.formats.parallel.entry_rows): the same rows as
    insert_rows stores from the entries, escapes included; a topic whose id changed since is refused."""
    from pooling.formats import parallel

    team = Team.objects.create(name="t")
    topic = Topic.objects.get(evaluation=bolt)
    texts = ["a\tb", "line\nbreak\r\n", "back\\slash \\N", "é → 中文", ""]
    datas = [{"q": "x\\y\t\n"}, {"n": 1.5, "ok": True, "s": None}, {"a": "}, {"}, {}, {"é": "ü"}]
    entries = [ParsedEntry("1.001", i, f"doc\t{i}\\", t, d) for i, (t, d) in enumerate(zip(texts, datas))]
    run, _ = store_run(bolt, ParsedRun("plain", list(entries)), team, 1)
    prepared = parallel.entry_rows(ParsedRun("rows", list(entries)), {"1.001": topic.pk})
    assert prepared.entries == [] and prepared.rows.count == 5 and prepared.rows.topic_ids == {"1.001": topic.pk}
    with_rows, _ = store_run(bolt, prepared, team, 1)
    stored = {
        r: list(
            RunEntry.objects.filter(run=r)
            .order_by("line_no")
            .values_list("topic_id", "line_no", "docid", "text", "data")
        )
        for r in (run, with_rows)
    }
    assert stored[with_rows] == stored[run] and len(stored[run]) == 5 and with_rows.data["lines"] == 5
    assert parallel.entry_rows(ParsedRun("x", list(entries)), {"9.999": 1}).rows is None  # unknown topic: as it was
    stale = parallel.entry_rows(ParsedRun("r2", list(entries)), {"1.001": topic.pk + 1000})
    with pytest.raises(LoadError) as exc:
        store_run(bolt, stale, team, 1, source_name="r2.xml")
    assert exc.value.problems == ["r2.xml:0: topic 1.001 was removed while the run was loading"]
    assert not Run.objects.filter(tag="r2").exists()


def test_deleting_a_run_or_topic_still_removes_its_lines(bolt):
    team = Team.objects.create(name="t")
    entries = [ParsedEntry("1.001", n, "d", "text", {}) for n in range(3)]
    run, _ = store_run(bolt, ParsedRun(tag="r1", entries=entries), team, 1, source_name="r1.xml")
    run2, _ = store_run(bolt, ParsedRun(tag="r2", entries=entries), team, 1, source_name="r2.xml")
    assert RunEntry.objects.count() == 6
    run.delete()
    assert list(RunEntry.objects.order_by().values_list("run_id", flat=True).distinct()) == [run2.pk]
    Topic.objects.filter(evaluation=bolt).delete()
    assert not RunEntry.objects.exists()
