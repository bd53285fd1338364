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


def test_the_demo_machine_set_disagrees_on_every_fourth_correct_answer(make_user):
    """The QA demo's machine set (issue 29): the official instance labels with every fourth correct answer read as
    incorrect, loaded once with its provenance, its agreement and rankings computed."""
    from scoring.models import Agreement, JudgmentSet, RankingState
    from tracks.qa.demo_machine_set import NAME, machine_set_demo

    sample = build_sample(slug="demo-tac2008", track="tac2008-qa", items_per_question=8)
    make_user("organizer", "organizer")
    primary = make_user("assessor", "assessor")
    make_user("assessor3", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=primary)
    said = []
    machine_set_demo(said.append)
    assert "no instance judgments yet" in said[-1] and not JudgmentSet.objects.exists()
    judge_demo(said.append, series=("1",))
    official = {}
    for question in sample.series[0].children.all():
        official.update(official_values([question.pk], "instance"))
    correct = sum(v["label"] == "correct" for v in official.values())
    assert correct >= 4  # at least one label moved
    machine_set_demo(said.append)
    machine_set_demo(said.append)  # idempotent
    made = JudgmentSet.objects.get(name=NAME)
    assert made.provenance["producer"] == "demo machine judge" and "already holds" in said[-1]
    assert made.judgments.count() == len(official)
    stats = Agreement.objects.get(judgment_set=made, topic__isnull=True, kind="instance").stats
    assert stats["items"] == len(official)
    assert round(stats["percent"] * len(official)) == len(official) - correct // 4  # a hand count of the moves
    assert f"set:{made.pk}" in RankingState.objects.get(evaluation=sample.evaluation).data["scores"]
