"""import_judgments refuses records that repeat an id, naming both lines, and stores nothing (issue 20, item 6c)."""

import json

import pytest
from django.core.management import CommandError, call_command

from assess.models import AnswerClass, Judgment, Nugget, TopicClosure
from scoring.judgments_jsonl import export_jsonl
from tests.test_scoring_exports import _copy_without_judgments
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db


def _first(lines, record_type):
    return next(i for i, line in enumerate(lines) if json.loads(line)["type"] == record_type)


def _import_with(tmp_path, change):
    """Export tiny_trec2007, let `change(lines)` return (lines, description), import into a bare copy."""
    t = tiny_trec2007()
    lines = "".join(export_jsonl(t["evaluation"])).splitlines()
    dst = _copy_without_judgments(t["evaluation"], "target")
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(change(lines)) + "\n")
    with pytest.raises(CommandError) as err:
        call_command("import_judgments", "target", str(path))
    assert not Judgment.objects.filter(evaluation=dst).exists()
    assert not Nugget.objects.filter(topic__evaluation=dst).exists()
    assert not AnswerClass.objects.filter(topic__evaluation=dst).exists()
    assert not TopicClosure.objects.filter(topic__evaluation=dst).exists()
    return str(err.value), path


@pytest.mark.parametrize("record_type, what", [("answer_class", "answer class id"), ("nugget", "nugget id")])
def test_a_repeated_id_is_refused_naming_both_lines(tmp_path, record_type, what):
    """Another record with the same id (different content): later references would be ambiguous."""
    placed = {}

    def change(lines):
        i = _first(lines, record_type)
        rec = json.loads(lines[i])
        twin = dict(rec, **({"label": "another class"} if record_type == "answer_class" else {"text": "other"}))
        placed.update(first=i + 1, second=i + 3, id=rec["id"])
        return lines[: i + 2] + [json.dumps(twin)] + lines[i + 2 :]

    message, path = _import_with(tmp_path, change)
    assert message == f"{path}:{placed['second']}: {what} {placed['id']!r} is already on line {placed['first']}"


def test_the_same_judgment_twice_is_refused_naming_both_lines(tmp_path):
    placed = {}

    def change(lines):
        i = _first(lines, "judgment")
        placed.update(first=i + 1, second=len(lines) + 1, rec=json.loads(lines[i]))
        return lines + [lines[i]]

    message, path = _import_with(tmp_path, change)
    rec = placed["rec"]
    assert message.startswith(f"{path}:{placed['second']}: the {rec['kind']} judgment of {rec['assessor']!r} on ")
    assert message.endswith(f"is already on line {placed['first']}")


@pytest.mark.parametrize(
    "record, message",
    [
        (
            {"type": "decision", "topic": "216.1", "key": "answer_is_nil", "value": "yes"},
            "decision answer_is_nil must be true or false, not 'yes'",
        ),
        (
            {"type": "decision", "topic": "216.1", "key": "colour", "value": True},
            "'colour' is no decision of track trec2007-qa (answer_is_nil)",
        ),
        (
            {"type": "decision", "topic": "999.1", "key": "answer_is_nil", "value": True},
            "unknown question '999.1' in evaluation target",
        ),
        ({"type": "settings", "settings": ["nugget_method"]}, "settings must be an object"),
    ],
)
def test_a_bad_decision_or_settings_record_is_refused_with_its_line(tmp_path, record, message):
    from pooling.models import Evaluation, Topic

    got, path = _import_with(tmp_path, lambda lines: lines[:1] + [json.dumps(record)] + lines[1:])
    assert got == f"{path}:2: {message}"
    target = Evaluation.objects.get(slug="target")
    assert not Topic.objects.filter(evaluation=target, data__has_key="answer_is_nil").exists()
