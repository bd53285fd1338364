"""The collection benchmark's build at the end of a load, part by part (benchmarks/collection.py): each timed part
is a row of its own, and the rest of the build is what they leave of its wall time and CPU."""

from types import SimpleNamespace

from benchmarks.collection import BUILD_PARTS, _build_part_rows


def test_the_rest_of_the_build_is_what_its_parts_leave():
    parts = {"build": (100.0, 190.0), "the full-text index": (55.0, 104.0), "the pairs index": (40.0, 78.0)}
    report = SimpleNamespace(cpu=SimpleNamespace(parts=parts))
    rows = _build_part_rows(report, docs=200_000)
    assert [label for _m, _a, label in BUILD_PARTS] == ["the full-text index", "the pairs index"]
    assert [(r.name.strip(), round(r.value, 6), r.notes) for r in rows] == [
        ("the full-text index", 55.0, "CPU 520 us/doc"),
        ("the pairs index", 40.0, "CPU 390 us/doc"),
        ("the rest (catch-up, counts, statistics)", 5.0, "CPU 40 us/doc"),
    ]


def test_a_part_the_build_skipped_is_a_zero_row():
    report = SimpleNamespace(cpu=SimpleNamespace(parts={"build": (3.0, 4.0), "the full-text index": (2.5, 3.0)}))
    rows = _build_part_rows(report, docs=1000)
    assert [(r.name.strip(), r.value) for r in rows] == [
        ("the full-text index", 2.5),
        ("the pairs index", 0.0),
        ("the rest (catch-up, counts, statistics)", 0.5),
    ]
