"""The one plug-in contract (core.extension_points, core.tracks): every point documents its callable, the tracks and
the later stages register through it, and nothing names a track's functions by dotted string any more."""

from pathlib import Path

import pytest

from core import extension_points as ep
from core.tracks import TRACKS

ROOT = Path(__file__).resolve().parent.parent
STAGE_POINTS = {"document_access": {"assess"}, "judged_items": {"assess"}, "release_check": {"scoring"}}


def test_every_point_says_what_its_callable_receives_and_returns():
    assert len(ep.POINTS) >= 19
    for name, declared in ep.POINTS.items():
        assert getattr(ep, name) is declared, name  # each is a module attribute of its own name
        assert f"{name}(" in declared.__doc__ or "A stage point." in declared.__doc__, name
        assert "->" in declared.__doc__, name


def test_points_are_declared_in_the_contract_module_only():
    apps = ("config", "core", "accounts", "corpus", "pooling", "assess", "scoring", "api", "tracks", "tests")
    declaring = [
        str(path.relative_to(ROOT))
        for app in apps
        for path in (ROOT / app).rglob("*.py")
        if path not in (ROOT / "core" / "extension_points.py", Path(__file__))
        and any(call in path.read_text() for call in ("ep.point(", "extension_points.point("))
    ]
    assert declaring == []


def test_the_later_stages_answer_the_earlier_ones_through_stage_points():
    for name, apps in STAGE_POINTS.items():
        assert {label for label, _ in getattr(ep, name).items()} == apps, name


def test_every_track_point_is_registered_for_registered_tracks_only():
    for name, declared in ep.POINTS.items():
        if name in STAGE_POINTS or name == "team_downloads":
            continue
        for slug, function in declared.items():
            assert slug in TRACKS, (name, slug)
            assert callable(function)


def test_a_point_refuses_what_is_not_callable_and_names_what_is_missing():
    with pytest.raises(TypeError, match="scorer: some-track registered 'tracks.x.score', which is not callable"):
        ep.scorer.register("some-track", "tracks.x.score")
    assert ep.scorer.get("some-track") is None
    with pytest.raises(LookupError, match="track 'some-track' registered no scorer"):
        ep.scorer.require("some-track")


def test_no_format_module_names_a_django_side_hook():
    """The hooks a format named by dotted string (AFTER_LOAD, AFTER_STORE, CONTEXT_EXTRA, BATCH_CONTEXT,
    CHECK_SUBMISSION) are registered by the track now; the Track holds its format modules themselves."""
    for track in TRACKS.values():
        for module in (track.topic_format, track.run_format):
            for hook in ("AFTER_LOAD", "AFTER_STORE", "CONTEXT_EXTRA", "BATCH_CONTEXT", "CHECK_SUBMISSION"):
                assert not hasattr(module, hook), (module.__name__, hook)
        dotted = [
            (field, value)
            for field, value in vars(track).items()
            if isinstance(value, str) and value.count(".") >= 2 and " " not in value
        ]
        assert dotted == [], track.slug


def test_every_registered_callable_is_its_tracks_own_or_a_stages():
    """What a track registers resolves to a function of that track's own package (or of a stage: a shared helper),
    never of another track: a point registered with another track's function would tie the two together."""
    from importlib import import_module
    from importlib.util import find_spec

    from django.apps import apps

    from core.tracks import Track

    package_of = {}  # track slug -> the package of the app that declares it (in its plugin module)
    for config in apps.get_app_configs():
        if find_spec(f"{config.name}.plugin") is None:
            continue
        for value in vars(import_module(f"{config.name}.plugin")).values():
            if isinstance(value, Track) and value.slug in TRACKS:  # not a template such as QA's QA_COMMON
                package_of[value.slug] = config.name
    assert set(package_of) == set(TRACKS)  # every registered track is declared in an installed app's plugin module
    stages = ("config.", "core.", "accounts.", "corpus.", "pooling.", "assess.", "scoring.")
    for name, declared in ep.POINTS.items():
        if name in STAGE_POINTS or name == "team_downloads":
            continue
        for slug, function in declared.items():
            module = getattr(function, "__module__", "") or ""
            assert module.startswith((package_of[slug] + ".", *stages)), (name, slug, module)
