"""The lossless JSON Lines round trip, all-or-nothing imports naming the bad line, and the scoring commands
(QA's NIST-format exports: tests/tracks/qa/test_nist_exports.py)."""

import json

import pytest
from django.core.management import CommandError, call_command

from assess.models import AnswerClass, Judgment, JudgmentChange, Nugget
from pooling.models import Evaluation, PoolItem, Run, RunEntry, Topic
from scoring.judgments_jsonl import export_jsonl
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db


def _copy_without_judgments(src, slug):
    """The same questions, runs and pools in another evaluation (what moving an evaluation means)."""
    ev = Evaluation.objects.create(slug=slug, title="copy", track=src.track)
    topics = {}
    for t in sorted(Topic.objects.filter(evaluation=src), key=lambda t: (t.parent_id is not None, t.id)):
        topics[t.id] = Topic.objects.create(
            evaluation=ev, ident=t.ident, kind=t.kind, text=t.text, position=t.position, parent=topics.get(t.parent_id)
        )
    entries = {}
    for run in Run.objects.filter(evaluation=src):
        copy = Run.objects.create(evaluation=ev, team=run.team, tag=run.tag, priority=run.priority)
        for e in run.entries.all():
            entries[e.id] = RunEntry.objects.create(
                run=copy, topic=topics[e.topic_id], line_no=e.line_no, docid=e.docid, text=e.text
            )
    for item in PoolItem.objects.filter(evaluation=src):
        new = PoolItem.objects.create(
            evaluation=ev,
            topic=topics[item.topic_id],
            key=item.key,
            docid=item.docid,
            text=item.text,
            origin=item.origin,
        )
        new.sources.add(*[entries[e.id] for e in item.sources.all()])
    return ev


def test_jsonl_round_trip_is_lossless_and_rescores_identically(tmp_path):
    t = tiny_trec2007()
    src = t["evaluation"]
    j = Judgment.objects.get(item=t["items"]["f1"])
    JudgmentChange.objects.create(judgment=j, changed_by=t["primary"], version=1, before=None, after=j.value)
    path = tmp_path / "judgments.jsonl"
    call_command("export_judgments", src.slug, "--output", str(path))
    dst = _copy_without_judgments(src, "moved")
    call_command("import_judgments", "moved", str(path))
    # Exporting the copy gives the same records (ids of classes and nuggets differ, so compare their content).
    again = "".join(export_jsonl(dst))

    def normal(text):
        recs = [json.loads(x) for x in text.splitlines()]
        for r in recs:
            r.pop("evaluation", None)
            r.pop("id", None)
            if r.get("type") == "item":
                r.pop("created_at")  # the copy made the found item itself (a rebuild from files would not)
            if r.get("type") == "judgment":
                r.pop("nugget", None)
                r["value"].pop("answer_class", None)
                r["value"].pop("nuggets", None)
                for h in r["history"]:
                    h["after"].pop("answer_class", None)
        return recs

    assert normal(again) == normal(path.read_text())
    assert JudgmentChange.objects.filter(judgment__evaluation=dst).count() == 1
    rescore_evaluation(src.id)
    rescore_evaluation(dst.id)

    def run_scores(ev):
        return sorted(Score.objects.filter(run__evaluation=ev, scope="run").values_list("run__tag", "measure", "value"))

    assert run_scores(dst) == run_scores(src)


@pytest.mark.parametrize(
    "bad, message",
    [
        ('{"type": "judgment", "topic": "216.1"', "not JSON"),
        (
            '{"type": "judgment", "topic": "999.9", "kind": "instance", "item": {"topic": "216.1", "key": "D1 Princeton"},'
            ' "assessor": "x", "role": "primary", "value": {"label": "incorrect"}}',
            "unknown question '999.9'",
        ),
        (
            '{"type": "judgment", "topic": "216.1", "kind": "instance", "item": {"topic": "216.1", "key": "nope"},'
            ' "assessor": "x", "role": "primary", "value": {"label": "incorrect"}}',
            "no pool item 'nope'",
        ),
        ('{"type": "mystery"}', "unknown record type"),
        ('{"type": "item", "topic": "216.1", "key": ""}', "a found item needs a key"),
        ('{"type": "item", "topic": "999.9", "key": "D1 x"}', "unknown question '999.9'"),
        (
            '{"type": "judgment", "topic": "216.1", "kind": "instance", "item": {"topic": "216.1", "key": "D1 Princeton"},'
            ' "assessor": "x", "role": "primary", "value": {"label": 3, "answer_class": null}}',
            "instance judgment: value.label must be str, not 3",
        ),
    ],
)
def test_bad_import_changes_nothing_and_names_the_line(tmp_path, bad, message):
    t = tiny_trec2007()
    path = tmp_path / "in.jsonl"
    good = "".join(export_jsonl(t["evaluation"])).splitlines()
    dst = _copy_without_judgments(t["evaluation"], "target")
    lines = good[:4] + [bad] + good[4:]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CommandError) as err:
        call_command("import_judgments", "target", str(path))
    assert f"{path}:5: " in str(err.value) and message in str(err.value)
    assert not Judgment.objects.filter(evaluation=dst).exists()
    assert not Nugget.objects.filter(topic__evaluation=dst).exists()
    assert not AnswerClass.objects.filter(topic__evaluation=dst).exists()


def test_import_refuses_an_evaluation_with_judgments(tmp_path):
    t = tiny_trec2007()
    path = tmp_path / "in.jsonl"
    path.write_text("".join(export_jsonl(t["evaluation"])))
    with pytest.raises(CommandError, match="already has judgments"):
        call_command("import_judgments", t["evaluation"].slug, str(path))


def test_score_command_json_keyed_by_run_series_question(capsys):
    t = tiny_trec2007()
    call_command("score", t["evaluation"].slug, "--rescore", "--json")
    data = json.loads(capsys.readouterr().out)
    run_a = data["runs"]["runA"]
    assert run_a["questions"]["216.2"]["score"] == pytest.approx(4 / 7)
    assert run_a["series"]["217"]["score"] == 0.0
    assert run_a["run"]["score"] == pytest.approx(((1 + 4 / 7 + 6 / 7.95) / 3) / 2)
    assert data["stale_questions"] == 0
    call_command("score", t["evaluation"].slug)
    text = capsys.readouterr().out
    assert "runB (Team Beta)" in text and "216.2: 0.5000" in text


def test_release_command():
    t = tiny_trec2007()
    call_command("release_scores", t["evaluation"].slug)
    t["evaluation"].refresh_from_db()
    assert t["evaluation"].state == Evaluation.RELEASED
    call_command("release_scores", t["evaluation"].slug, "--withdraw")
    t["evaluation"].refresh_from_db()
    assert t["evaluation"].state == Evaluation.JUDGING


def test_rescore_command_catches_up_stale():
    from pooling.staleness import mark_stale

    t = tiny_trec2007()
    mark_stale(t["q"]["216.2"])
    call_command("rescore", "--stale")
    assert Score.objects.filter(run=t["runA"], scope="question", topic=t["q"]["216.2"]).exists()


def test_significance_command(capsys):
    t = tiny_trec2007()
    rescore_evaluation(t["evaluation"].id)
    call_command("significance", t["evaluation"].slug, "--json")
    data = json.loads(capsys.readouterr().out)
    # 2 runs x 2 series: df_error = (2-1)(2-1) = 1; runB's mean is higher
    assert data["df_error"] == 1
    assert [r["run"] for r in data["runs"]] == ["runB", "runA"]
    test = data["randomization"]
    assert (test["permutations"], test["seed"], test["corrected_for_multiple_comparisons"]) == (10000, 0, False)
    (pair,) = test["pairs"]
    assert (pair["a"], pair["b"], pair["series"], pair["exact"]) == ("runB", "runA", 2, True)
    assert pair["p"] in (0.5, 1.0) and pair["significant"] is False  # 4 patterns: p is a multiple of 1/4, >= 2/4
    call_command("significance", t["evaluation"].slug, "--permutations", "3", "--seed", "9")
    out = capsys.readouterr().out
    assert "3 permutations, seed 9" in out and "runB" in out.splitlines()[-1]
    with pytest.raises(CommandError, match="--permutations must be a whole number from 1 to 100000"):
        call_command("significance", t["evaluation"].slug, "--permutations", "100001")


def test_import_refuses_another_assessor_in_the_same_role(tmp_path):
    from django.contrib.auth.models import User

    from assess.models import Assignment

    t = tiny_trec2007()
    src = t["evaluation"]
    series = Topic.objects.get(evaluation=src, ident="216")
    Assignment.objects.create(evaluation=src, topic=series, assessor=t["primary"])
    path = tmp_path / "in.jsonl"
    path.write_text("".join(export_jsonl(src)))
    dst = _copy_without_judgments(src, "target")
    Assignment.objects.create(
        evaluation=dst,
        topic=Topic.objects.get(evaluation=dst, ident="216"),
        assessor=User.objects.create(username="zed"),
    )
    with pytest.raises(CommandError, match=f"216 is assigned to zed as primary here, to {t['primary'].username}"):
        call_command("import_judgments", "target", str(path))
    assert not Judgment.objects.filter(evaluation=dst).exists()
    assert Assignment.objects.filter(evaluation=dst).count() == 1
