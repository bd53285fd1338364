"""The collection benchmark's build at the end of a load, part by part (benchmarks/collection.py): each timed part
is a row of its own, and the rest of the build is what they leave of its wall time and CPU; a real load is timed
part by part, and the functions wrapped to time it are put back."""

import importlib
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.db import connection

from benchmarks.collection import BUILD_PARTS, _build_part_rows, _load
from corpus import loading

FIX = Path(__file__).resolve().parent / "fixtures"


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


BLOGS = [FIX / "corpus" / "blog06-demo.txt", FIX / "corpus" / "blog06-demo-2.txt.gz"]


@pytest.mark.django_db
def test_a_load_is_timed_part_by_part_and_its_functions_are_put_back():
    if connection.vendor != "postgresql":
        pytest.skip("the benchmark's meter reads PostgreSQL's backends")
    originals = [getattr(importlib.import_module(m), a) for m, a, _label in BUILD_PARTS] + [loading.build_index]
    report, _wall = _load("bench-parts", BLOGS, 1, True)
    parts = report.cpu.parts
    assert set(parts) == {"build"} | {label for _m, _a, label in BUILD_PARTS}
    build_wall = parts["build"][0]
    assert 0 < build_wall <= report.index_seconds
    build_cpu = parts["build"][1]
    assert all(0 < parts[label][0] < build_wall and 0 < parts[label][1] < build_cpu for _m, _a, label in BUILD_PARTS)
    assert [getattr(importlib.import_module(m), a) for m, a, _label in BUILD_PARTS] + [loading.build_index] == originals

    plain, _wall = _load("bench-parts-plain", BLOGS, 1, False)  # no index: no build, no parts
    assert plain.cpu.parts == {}
