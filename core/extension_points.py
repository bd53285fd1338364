"""Every point where a stage calls into a track: the one plug-in contract (issue 27).

A track is plain data (`core.tracks.Track`); what a stage calls in it is a callable the track registers here from
its AppConfig.ready(), one per track and point:

    from core import extension_points as ep
    ep.scorer.register(TRACK.slug, scorer.score)

and a stage asks for it by the evaluation's track:

    score = ep.scorer.get(evaluation.track)        # None when the track registered nothing
    score = ep.scorer.require(evaluation.track)    # LookupError naming the point and the track

Each point below says what its callable receives and returns (as pretix's base/signals.py does). The stages'
types (Evaluation, Run, ScoreBatch, RunReport) are named in the docstrings, not imported: this module sits below
every stage. Registering again replaces (tests re-register).
"""

from collections.abc import Callable, Iterator
from typing import Any


class ExtensionPoint[F: Callable[..., Any]]:
    """One per-track registry of a callable; its docstring is the contract."""

    def __init__(self, name: str, doc: str):
        self.name = name
        self.__doc__ = doc
        self._by_track: dict[str, F] = {}

    def register(self, track_slug: str, function: F) -> F:
        if not callable(function):
            raise TypeError(f"{self.name}: {track_slug} registered {function!r}, which is not callable")
        self._by_track[track_slug] = function
        return function

    def get(self, track_slug: str) -> F | None:
        return self._by_track.get(track_slug)

    def require(self, track_slug: str) -> F:
        try:
            return self._by_track[track_slug]
        except KeyError:
            raise LookupError(f"track {track_slug!r} registered no {self.name}") from None

    def items(self) -> Iterator[tuple[str, F]]:
        return iter(sorted(self._by_track.items()))

    def __repr__(self) -> str:
        return f"<extension point {self.name}>"


POINTS: dict[str, ExtensionPoint[Any]] = {}


def point(name: str, doc: str) -> ExtensionPoint[Any]:
    """Declare an extension point (only in this module, so the contract stays in one place)."""
    declared: ExtensionPoint[Any] = ExtensionPoint(name, doc)
    POINTS[name] = declared
    return declared


# The points themselves follow, grouped by the stage that calls them.
