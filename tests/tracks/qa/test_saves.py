"""The judging services: every save is one transaction with history, version checks, closure and staleness."""

import re

import pytest

from assess import judging
from assess.models import (
    AnswerClass,
    Assignment,
    Invitation,
    Judgment,
    JudgmentChange,
    Nugget,
    StructureChange,
    TopicClosure,
)
from assess.official import nugget_votes, official_values
from pooling.models import PoolItem, StaleTopic
from tracks.qa import adjudication, instance_judging, nugget_judging


@pytest.fixture
def second(make_user, sample):
    user = make_user("sec", "assessor")
    Assignment.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], assessor=user, role=Assignment.SECONDARY
    )
    return user


def item(sample, ident, k=0, user=None):
    it = sample.items[ident][k]
    return judging.load_item(user, it.pk) if user is not None else it


def test_instance_save_records_history_and_marks_stale(sample, primary, save_path):
    it = item(sample, "1.1", 0, primary)
    saved = instance_judging.judge_instance(primary, it, "incorrect", 0)
    assert saved.changed and saved.judgment.version == 1
    saved = instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "globally-correct", 1)
    judgment = Judgment.objects.get(item=it, assessor=primary)
    assert (judgment.version, judgment.value, judgment.role) == (
        2,
        {"label": "globally-correct", "answer_class": None},
        "primary",
    )
    changes = list(
        JudgmentChange.objects.filter(judgment=judgment).values_list(
            "version", "before", "after", "changed_by__username"
        )
    )
    assert changes == [
        (1, None, {"label": "incorrect", "answer_class": None}, "prim"),
        (2, {"label": "incorrect", "answer_class": None}, {"label": "globally-correct", "answer_class": None}, "prim"),
    ]
    assert StaleTopic.objects.filter(topic=sample.questions["1.1"]).exists()


def test_same_value_again_writes_nothing(sample, primary, save_path):
    instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "incorrect", 0)
    again = instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "incorrect", 1)
    assert not again.changed and again.judgment.version == 1
    assert JudgmentChange.objects.count() == 1


def test_stale_version_is_refused_and_shows_the_newer_value(sample, primary, save_path):
    instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "incorrect", 0)  # tab A
    with pytest.raises(judging.StaleJudgment) as refused:  # tab B still thinks nothing was saved
        instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "non-exact", 0)
    assert refused.value.current.value["label"] == "incorrect"
    instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "unsupported", 1)  # tab A moves on
    with pytest.raises(judging.StaleJudgment) as refused:  # tab B, having seen version 1, is now behind
        instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "non-exact", 1)
    assert refused.value.current.version == 2
    assert Judgment.objects.get(assessor=primary).value["label"] == "unsupported"


def test_closed_question_refuses_changes(sample, primary, save_path, organizer):
    instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "incorrect", 0)
    judging.close_question(organizer, sample.series[0])
    with pytest.raises(judging.QuestionClosed):
        instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "non-exact", 1)
    with pytest.raises(judging.QuestionClosed):
        nugget_judging.create_nugget(primary, sample.questions["1.3"], "closed nugget")
    judging.reopen_question(organizer, sample.series[0])
    assert instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "non-exact", 1).changed
    assert list(StructureChange.objects.values_list("action", flat=True)) == ["question.close", "question.reopen"]


def test_labels_come_from_the_track_and_nil_is_right_or_wrong(sample, primary):
    with pytest.raises(judging.JudgingError, match="unknown label 'correct'"):
        instance_judging.judge_instance(primary, item(sample, "1.1", 0, primary), "correct", 0)  # a TAC label
    nil = item(sample, "1.1", 2, primary)
    assert nil.text == "NIL"
    with pytest.raises(judging.JudgingError, match="allowed: incorrect, globally-correct"):
        instance_judging.judge_instance(primary, nil, "locally-correct", 0)
    assert instance_judging.judge_instance(primary, nil, "globally-correct", 0).changed


def test_the_class_label_keeps_the_class_the_item_is_in(sample, primary, save_path):
    """The class label without a class keeps the stored one (read under the row lock, on both save paths), and the
    save says what the value was before, so the page knows whether the item moved between classes."""
    q = sample.questions["1.2"]
    kidman = item(sample, "1.2", 0, primary)
    c1 = instance_judging.create_class(primary, q, "", item=kidman, expected_version=0)
    # a stored value whose class outlived its label (as a class merge leaves values it rewrites)
    Judgment.objects.filter(item=kidman).update(value={"label": "locally-correct", "answer_class": c1.pk})
    saved = instance_judging.judge_instance(primary, item(sample, "1.2", 0, primary), "globally-correct", 1)
    assert saved.changed and saved.judgment.value == {"label": "globally-correct", "answer_class": c1.pk}
    assert saved.before == {"label": "locally-correct", "answer_class": c1.pk}
    stored = Judgment.objects.get(item=kidman)
    assert (stored.value, stored.version) == ({"label": "globally-correct", "answer_class": c1.pk}, 2)
    change = JudgmentChange.objects.get(judgment=stored, version=2)
    assert (change.before["label"], change.after) == ("locally-correct", stored.value)
    again = instance_judging.judge_instance(primary, item(sample, "1.2", 0, primary), "globally-correct", 2)
    assert not again.changed and again.before == stored.value
    out = instance_judging.judge_instance(primary, item(sample, "1.2", 0, primary), "non-exact", 2)
    assert out.judgment.value == {"label": "non-exact", "answer_class": None} and out.before["answer_class"] == c1.pk


def test_unassigned_assessor_cannot_judge(sample, primary, make_user):
    stranger = make_user("stranger", "assessor")
    with pytest.raises(judging.Forbidden):
        instance_judging.judge_instance(stranger, item(sample, "1.1", 0, stranger), "incorrect", 0)
    assert not Judgment.objects.exists()


def test_classes_create_assign_rename_merge_split(sample, primary):
    q = sample.questions["1.2"]
    kidman, keira, n_kidman, pitt = (item(sample, "1.2", k, primary) for k in range(4))
    c1 = instance_judging.create_class(primary, q, "", item=kidman, expected_version=0)
    assert c1.label == "Nicole Kidman"
    assert Judgment.objects.get(item=kidman).value == {"label": "globally-correct", "answer_class": c1.pk}
    c2 = instance_judging.create_class(primary, q, "Kidman again", item=n_kidman, expected_version=0)
    instance_judging.judge_instance(primary, keira, "globally-correct", 0)
    assert Judgment.objects.get(item=keira).value["answer_class"] is None
    instance_judging.assign_class(primary, keira, c1.pk, 1)
    instance_judging.merge_classes(primary, c1, [c2])
    assert not AnswerClass.objects.filter(pk=c2.pk).exists()
    assert Judgment.objects.get(item=n_kidman).value["answer_class"] == c1.pk
    assert JudgmentChange.objects.filter(judgment__item=n_kidman).count() == 2  # created, then merged
    new = instance_judging.split_class(primary, c1, [keira.pk], "Keira Knightley")
    assert Judgment.objects.get(item=keira).value["answer_class"] == new.pk
    instance_judging.rename_class(primary, new, "K. Knightley")
    assert AnswerClass.objects.get(pk=new.pk).label == "K. Knightley"
    # a label other than the class label takes the instance out of its class
    instance_judging.judge_instance(primary, item(sample, "1.2", 0, primary), "non-exact", 1)
    assert Judgment.objects.get(item=kidman).value == {"label": "non-exact", "answer_class": None}
    assert {"class.create", "class.merge", "class.split", "class.rename"} <= set(
        StructureChange.objects.values_list("action", flat=True)
    )
    with pytest.raises(judging.JudgingError, match="does not belong"):
        other = AnswerClass.objects.create(topic=sample.questions["1.1"], label="x", created_by=primary)
        instance_judging.assign_class(primary, item(sample, "1.2", 3, primary), other.pk, 0)


def _two_instances(sample, primary):
    for k in (0, 1):
        instance_judging.judge_instance(primary, item(sample, "1.2", k, primary), "globally-correct", 0)
    return Judgment.objects.filter(topic=sample.questions["1.2"], kind="instance").order_by("item__position")


def test_a_rewrite_that_does_not_fit_the_kind_changes_nothing(sample, primary, organizer):
    judgments = _two_instances(sample, primary)
    before = list(judgments.values_list("pk", "value", "version"))
    first_pk = before[0][0]

    seen = []

    def spoil_the_second(value):  # the first new value fits, the second does not
        seen.append(value)
        return dict(value, answer_class=7 if len(seen) == 1 else "seven")

    with pytest.raises(judging.JudgingError, match="answer_class must be an integer"):
        judging.rewrite_values(organizer, judgments.select_for_update(of=("self",)), spoil_the_second)
    assert list(judgments.values_list("pk", "value", "version")) == before
    assert not JudgmentChange.objects.filter(changed_by=organizer).exists()
    assert JudgmentChange.objects.filter(judgment_id=first_pk).count() == 1  # only its first save


def test_a_rewrite_keeps_both_values_and_who_made_it(sample, primary, organizer):
    judgments = _two_instances(sample, primary)
    cls = AnswerClass.objects.create(topic=sample.questions["1.2"], label="Kidman", created_by=primary)
    StaleTopic.objects.all().delete()
    changed = judging.rewrite_values(
        organizer, judgments.filter(item=sample.items["1.2"][0]), lambda value: dict(value, answer_class=cls.pk)
    )
    assert [j.version for j in changed] == [2]
    change = JudgmentChange.objects.get(judgment=changed[0], version=2)
    assert (change.changed_by, change.before, change.after) == (
        organizer,
        {"label": "globally-correct", "answer_class": None},
        {"label": "globally-correct", "answer_class": cls.pk},
    )
    assert StaleTopic.objects.filter(topic=sample.questions["1.2"]).exists()
    # an unchanged value is no change; a closed question refuses the rewrite
    assert judging.rewrite_values(organizer, judgments, lambda value: value) == []
    judging.close_question(organizer, sample.questions["1.2"])
    with pytest.raises(judging.QuestionClosed):
        judging.rewrite_values(organizer, judgments, lambda value: dict(value, answer_class=None))
    assert Judgment.objects.get(pk=changed[0].pk).version == 2


def test_second_assessor_cannot_touch_classes(sample, primary, second):
    with pytest.raises(judging.Forbidden):
        instance_judging.create_class(second, sample.questions["1.2"], "mine")
    saved = instance_judging.judge_instance(
        second, item(sample, "1.2", 0, second), "globally-correct", 0, answer_class=None
    )
    assert saved.judgment.role == "secondary" and saved.judgment.value["answer_class"] is None


def test_found_answer_needs_a_known_docid_and_joins_the_answer_set(sample, primary):
    q = sample.questions["1.2"]
    with pytest.raises(judging.JudgingError, match="not a document"):
        instance_judging.add_found_answer(primary, q, "NO-SUCH-DOC", "Penelope Cruz")
    found = instance_judging.add_found_answer(primary, q, "DOC001-2-0001", "Penelope Cruz")
    assert found.origin == PoolItem.ASSESSOR
    value = official_values([q.pk], "instance")[found.pk]
    assert value["label"] == "globally-correct"
    assert AnswerClass.objects.get(pk=value["answer_class"]).label == "Penelope Cruz"
    with pytest.raises(judging.JudgingError, match="already in the pool"):
        instance_judging.add_found_answer(primary, q, "DOC001-2-0001", "Penelope   Cruz")


def test_nuggets_build_match_merge_reorder_delete(sample, primary):
    q = sample.questions["1.3"]
    a = nugget_judging.create_nugget(primary, q, "founded in 1909")
    b = nugget_judging.create_nugget(primary, q, "based in Paris")
    c = nugget_judging.create_nugget(primary, q, "Paris headquarters")
    nugget_judging.edit_nugget(primary, a, "founded by Coco Chanel in 1909")
    first, second = item(sample, "1.3", 0, primary), item(sample, "1.3", 1, primary)
    nugget_judging.match(primary, first, [a.pk, b.pk], 0)
    nugget_judging.match(primary, second, [c.pk], 0)
    with pytest.raises(judging.JudgingError, match="not nuggets of question"):
        nugget_judging.match(primary, item(sample, "1.3", 2, primary), [999999], 0)
    nugget_judging.merge_nuggets(primary, b, [c])
    assert official_values([q.pk], "nugget_match") == {
        first.pk: {"nuggets": [a.pk, b.pk]},
        second.pk: {"nuggets": [b.pk]},
    }
    nugget_judging.reorder_nuggets(primary, q, [b.pk, a.pk])
    assert list(Nugget.objects.filter(topic=q).values_list("pk", flat=True)) == [b.pk, a.pk]
    with pytest.raises(judging.JudgingError, match="confirm"):
        nugget_judging.delete_nugget(primary, b)
    b_id = b.pk
    nugget_judging.delete_nugget(primary, b, confirmed=True)
    assert official_values([q.pk], "nugget_match") == {first.pk: {"nuggets": [a.pk]}, second.pk: {"nuggets": []}}
    history = JudgmentChange.objects.filter(judgment__item=second).order_by("version")
    assert [h.after["nuggets"] for h in history] == [[c.pk], [b_id], []]


def test_votes_from_primary_and_invited_voters_only(sample, primary, save_path, organizer, make_user):
    q = sample.questions["1.3"]
    n = nugget_judging.create_nugget(primary, q, "founded in 1909")
    voter, outsider = make_user("voter", "assessor"), make_user("outsider", "assessor")
    with pytest.raises(judging.Forbidden):
        nugget_judging.vote(voter, n, "vital", 0)
    judging.invite(organizer, sample.evaluation, voter, Invitation.VOTER, sample.series[0])
    nugget_judging.vote(primary, n, "vital", 0)
    nugget_judging.vote(voter, n, "okay", 0)
    with pytest.raises(judging.Forbidden):
        nugget_judging.vote(outsider, n, "vital", 0)
    with pytest.raises(judging.JudgingError, match="one of vital, okay"):
        nugget_judging.vote(voter, n, "important", 1)
    assert sorted(nugget_votes([q.pk])[n.pk]) == ["okay", "vital"]
    assert Judgment.objects.get(nugget=n, assessor=voter).role == "secondary"


def test_adjudication_by_a_third_person_counts(sample, primary, save_path, second, organizer, make_user):
    it = sample.items["1.1"][1]
    instance_judging.judge_instance(primary, item(sample, "1.1", 1, primary), "incorrect", 0)
    instance_judging.judge_instance(second, item(sample, "1.1", 1, second), "globally-correct", 0)
    with pytest.raises(judging.Forbidden):
        adjudication.adjudicate(primary, it, "globally-correct", 0)  # not an adjudicator at all
    judging.invite(organizer, sample.evaluation, primary, Invitation.ADJUDICATOR)
    with pytest.raises(judging.Forbidden, match="third person"):
        adjudication.adjudicate(primary, it, "globally-correct", 0)
    adjudication.adjudicate(organizer, it, "globally-correct", 0)
    assert official_values([it.topic_id], "instance")[it.pk]["label"] == "globally-correct"
    with pytest.raises(judging.StaleJudgment):
        adjudication.adjudicate(organizer, it, "incorrect", 0)


def test_only_organizers_close_and_invite(sample, primary):
    with pytest.raises(judging.Forbidden):
        judging.close_question(primary, sample.questions["1.1"])
    with pytest.raises(judging.Forbidden):
        judging.invite(primary, sample.evaluation, primary, Invitation.ADJUDICATOR)
    assert not TopicClosure.objects.exists()


def test_time_per_item_from_consecutive_saves(sample, primary):
    from datetime import timedelta

    from django.utils import timezone

    from assess import progress

    for k in range(3):
        instance_judging.judge_instance(primary, item(sample, "1.1", k, primary), "incorrect", 0)
    t0 = timezone.now()
    for offset, change in zip((0, 20, 1000), JudgmentChange.objects.order_by("id")):
        JudgmentChange.objects.filter(pk=change.pk).update(changed_at=t0 + timedelta(seconds=offset))
    times = progress.time_per_assessor(sample.evaluation)[primary.pk]
    # 20 s on the second item; the 980 s gap before the third counts as the 300 s cap
    assert times == {"seconds": 320.0, "items": 3, "per_item": pytest.approx(320 / 3)}
    assert (
        progress.time_per_assessor(sample.evaluation, by_series=True)[(primary.pk, sample.series[0].pk)]["items"] == 3
    )


def test_the_bar_lists_the_question_s_classes_in_the_order_they_were_made(sample, primary, save_path, client):
    """The judgment bar's class buttons (read by a prepared statement on PostgreSQL, the ORM elsewhere): this
    question's classes only, in the order they were made, numbered from 1 for ⇧digits, whatever their labels."""
    from tracks.qa.instance_views import bar_classes

    q = sample.questions["1.2"]
    made = [AnswerClass.objects.create(topic=q, label=label, created_by=primary) for label in ("Zed", "Ann", "Mo")]
    AnswerClass.objects.create(topic=sample.questions["1.1"], label="elsewhere", created_by=primary)
    assert [(c.pk, c.label, c.topic_id) for c in bar_classes(q)] == [(c.pk, c.label, q.pk) for c in made]
    client.force_login(primary)
    answer = client.post(f"/assess/item/{sample.items['1.2'][0].pk}/judge", {"version": 0, "label": "globally-correct"})
    assert answer.status_code == 200
    buttons = re.findall(rb'name="answer_class" value="(\d+)" data-class-number="(\d)"', answer.content)
    assert buttons == [(str(c.pk).encode(), str(n).encode()) for n, c in enumerate(made, start=1)]
    assert b"elsewhere" not in answer.content
