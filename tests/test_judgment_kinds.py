"""Judgment kinds check their values' shapes, naming what is wrong and where (assess.kinds)."""

import pytest

from assess.kinds import InvalidValue, check_value, declared_kinds, problems
from core.tracks import TRACKS, JudgmentKind, MapOf, Nullable, register_track, unregister_track

CITATION = {"rel": ("yes", "maybe", "no"), "chksrc": bool, "relspans": [[int]]}


def test_a_fitting_value_has_no_problems():
    assert problems({"rel": "yes", "chksrc": False, "relspans": [[0, 3], [5, 2]]}, CITATION) == []


@pytest.mark.parametrize(
    "value, expected",
    [
        (
            {"rel": "sure", "chksrc": False, "relspans": []},
            ["value.rel must be one of 'yes', 'maybe', 'no', not 'sure'"],
        ),
        ({"rel": "yes", "chksrc": 1, "relspans": []}, ["value.chksrc must be bool, not 1"]),
        (
            {"rel": "yes", "chksrc": True, "relspans": [[0, True]]},
            ["value.relspans[0][1] must be an integer, not True"],
        ),
        ({"rel": "yes", "chksrc": True}, ["value has no 'relspans'"]),
        ({"rel": "yes", "chksrc": True, "relspans": [], "x": 1}, ["value has an unknown key 'x'"]),
        ([], ["value must be an object, not list"]),
    ],
)
def test_each_problem_is_named_with_its_place(value, expected):
    assert problems(value, CITATION) == expected


def test_nullable_and_maps():
    shape = {"relevant": Nullable(bool), "groups": MapOf({"members": MapOf(bool)})}
    assert problems({"relevant": None, "groups": {"1": {"members": {"k": True}}}}, shape) == []
    assert problems({"relevant": None, "groups": {"1": {"members": {"k": "y"}}}}, shape) == [
        "value.groups['1'].members['k'] must be bool, not 'y'"
    ]


def test_check_value_refuses_unknown_kinds_and_misfits():
    from dataclasses import replace

    track = replace(
        next(iter(TRACKS.values())), slug="test-track", kinds=(JudgmentKind("test-kind", {"vote": ("vital", "okay")}),)
    )
    register_track(track)  # the kinds are found through the registered tracks
    try:
        check_value("test-kind", {"vote": "okay"})
        with pytest.raises(InvalidValue, match="test-kind judgment: value.vote must be one of"):
            check_value("test-kind", {"vote": "great"})
        with pytest.raises(InvalidValue, match="unknown judgment kind 'nope'"):
            check_value("nope", {})
    finally:
        unregister_track("test-track")
    assert "test-kind" not in declared_kinds()


def test_a_kind_is_declared_once_with_one_shape():
    """Tracks sharing a kind (QA's three) declare the same shape for it; its labels are each track's."""
    shapes = {}
    for track in TRACKS.values():
        for kind in track.kinds:
            assert shapes.setdefault(kind.name, kind.shape) == kind.shape, (track.slug, kind.name)
    assert TRACKS["tac2008-qa"].labels("instance") == ("incorrect", "unsupported", "non-exact", "correct")
    assert TRACKS["bolt-ir-p2"].labels("citation") == ("yes", "maybe", "no")


@pytest.mark.parametrize(
    "value", [{"label": 5, "answer_class": None}, lambda current: {"label": "correct", "answer_class": "one"}]
)
def test_the_one_judgment_writer_refuses_a_misfit_and_stores_nothing(db, make_user, value):
    """Every save path ends in assess.judging.save_judgment: a value (or a value computed under the lock) that does
    not fit its kind is a 400 naming what is wrong, and nothing is written."""
    from assess.judging import JudgingError, save_judgment
    from assess.models import Assignment, Judgment, JudgmentChange
    from tracks.qa.sample import build_sample

    sample = build_sample(slug="kinds-sample")
    user = make_user("kim", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=user)
    question = sample.questions["1.1"]
    with pytest.raises(JudgingError, match="instance judgment: value") as refused:
        save_judgment(
            user,
            topic=question,
            kind="instance",
            role="primary",
            item=sample.items["1.1"][0],
            value=value,
            expected_version=0,
        )
    assert refused.value.status == 400
    assert not Judgment.objects.exists() and not JudgmentChange.objects.exists()
