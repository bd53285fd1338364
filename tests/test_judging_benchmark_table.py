"""The judging benchmark's printed table (benchmarks/judging.py): a goal measured over repeats is shown run by run,
each judged against the goal, so one run over it is seen even when the median meets it."""

from benchmarks.harness import Result
from benchmarks.judging import _with_baselines


def test_each_repeat_of_a_goal_is_a_row_judged_on_its_own():
    p99 = Result("fixed 200/s p99", 21.9, "ms", goal="<= 50", extra={"each": [21.9, 64.0, 13.5], "worker_off": 9.0})
    rows = _with_baselines([p99])
    assert [(r.name, r.value, r.met) for r in rows] == [
        ("fixed 200/s p99", 21.9, True),
        ("  run 1 of 3", 21.9, True),
        ("  run 2 of 3", 64.0, False),
        ("  run 3 of 3", 13.5, True),
        ("  worker stopped", 9.0, None),
    ]


def test_measures_without_a_goal_or_repeats_stay_one_row():
    cpu = Result("rate: CPU per save, web", 2.7, "ms", extra={"each": [2.6, 2.7, 2.9]})
    once = Result("one assessor p99", 9.1, "ms", goal="<= 10", extra={"each": [9.1]})
    assert [r.name for r in _with_baselines([cpu, once])] == ["rate: CPU per save, web", "one assessor p99"]
