"""Judgment kinds check their values' shapes, naming what is wrong and where (assess.kinds)."""
import pytest

from assess.kinds import KINDS, InvalidValue, JudgmentKind, MapOf, Nullable, check_value, problems, register_kind

CITATION = {"rel": ("yes", "maybe", "no"), "chksrc": bool, "relspans": [[int]]}


def test_a_fitting_value_has_no_problems():
    assert problems({"rel": "yes", "chksrc": False, "relspans": [[0, 3], [5, 2]]}, CITATION) == []


@pytest.mark.parametrize("value, expected", [
    ({"rel": "sure", "chksrc": False, "relspans": []}, ["value.rel must be one of 'yes', 'maybe', 'no', not 'sure'"]),
    ({"rel": "yes", "chksrc": 1, "relspans": []}, ["value.chksrc must be bool, not 1"]),
    ({"rel": "yes", "chksrc": True, "relspans": [[0, True]]}, ["value.relspans[0][1] must be an integer, not True"]),
    ({"rel": "yes", "chksrc": True}, ["value has no 'relspans'"]),
    ({"rel": "yes", "chksrc": True, "relspans": [], "x": 1}, ["value has an unknown key 'x'"]),
    ([], ["value must be an object, not list"]),
])
def test_each_problem_is_named_with_its_place(value, expected):
    assert problems(value, CITATION) == expected


def test_nullable_and_maps():
    shape = {"relevant": Nullable(bool), "groups": MapOf({"members": MapOf(bool)})}
    assert problems({"relevant": None, "groups": {"1": {"members": {"k": True}}}}, shape) == []
    assert problems({"relevant": None, "groups": {"1": {"members": {"k": "y"}}}}, shape) == [
        "value.groups['1'].members['k'] must be bool, not 'y'"]


def test_check_value_refuses_unknown_kinds_and_misfits():
    register_kind(JudgmentKind("test-kind", {"vote": ("vital", "okay")}))
    try:
        check_value("test-kind", {"vote": "okay"})
        with pytest.raises(InvalidValue, match="a test-kind judgment: value.vote must be one of"):
            check_value("test-kind", {"vote": "great"})
        with pytest.raises(InvalidValue, match="unknown judgment kind 'nope'"):
            check_value("nope", {})
    finally:
        KINDS.pop("test-kind")
