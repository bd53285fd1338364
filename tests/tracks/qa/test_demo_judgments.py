"""The demo step records real judgments through the services, is idempotent, and is quiet without its data."""

from assess.models import Assignment, Judgment, JudgmentChange
from assess.official import nugget_votes, official_values
from tracks.qa.adjudication import adjudication_queue
from tracks.qa.demo_judgments import judge_demo
from tracks.qa.sample import build_sample


def test_judge_demo_skips_without_the_evaluation(db):
    said = []
    judge_demo(said.append)
    assert "no demo-tac2008 evaluation" in said[0]
    assert not Judgment.objects.exists()


def test_judge_demo_judges_once(make_user):
    sample = build_sample(slug="demo-tac2008", track="tac2008-qa", items_per_question=6)
    for name in ("organizer",):
        make_user(name, "organizer")
    primary, second = make_user("assessor", "assessor"), make_user("assessor2", "assessor")
    make_user("assessor3", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=primary)
    Assignment.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], assessor=second, role=Assignment.SECONDARY
    )
    said = []
    judge_demo(said.append, series=("1",))
    rigid, squishy = sample.questions["1.1"], sample.questions["1.2"]
    labels = official_values([rigid.pk], "instance")
    assert len(labels) == 6 and {v["label"] for v in labels.values()} >= {"correct"}
    assert all(v["answer_class"] for v in labels.values() if v["label"] == "correct")
    assert official_values([squishy.pk], "nugget_match")
    assert any(len(v) == 2 for v in nugget_votes([squishy.pk]).values())  # primary and the invited voter
    assert len(adjudication_queue(sample.evaluation)) == 1
    assert JudgmentChange.objects.count() == Judgment.objects.count()
    count = Judgment.objects.count()
    judge_demo(said.append, series=("1",))
    assert Judgment.objects.count() == count and "already has judgments" in said[-1]
