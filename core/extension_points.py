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


# scoring: judgments JSON Lines

judgments_jsonl = point(
    "judgments_jsonl",
    """The records a track adds to Assay's judgments file (scoring.judgments_jsonl) and the ids of them that its
    judgment values and structure-log values name (QA: answer classes and nuggets, tracks/qa/judgments_jsonl.py).

    Receives (evaluation, importing): an Evaluation of the track, and the import in progress
    (scoring.judgments_jsonl.Importing), or None for an export. Returns a scoring.judgments_jsonl.TrackRecords
    (register a subclass: the class is the callable), which the stage asks
      export(names) -> iterable of JSON-ready dicts with a "type", written after the found items and before the
          judgments (names.ident[topic id] is a question's ident, names.users[user id] a username);
      readers: {record type: read(importing, rec)}, each storing one record of the file (importing.topic(ident),
          .user(name), .once(identity, what), .stamp(model, pk, field, value), .error(message) -> ImportFailed
          naming the file and line);
      held() -> bool: the evaluation already holds such records (the import is refused);
      value(kind, value, history) -> a judgment value (a dict copy) with the target's ids;
      nugget(source id) -> the target's id of the nugget a judgment is on;
      structure_ids(action, value, item, user) -> a structure-log value with its ids put through item and user
          (id -> id) and the track's own mapped.
    Unregistered: the base TrackRecords, which adds no record and maps pool items only.""",
)
