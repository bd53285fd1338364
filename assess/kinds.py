"""Judgment kinds and the shape of their values, declared by the tracks and checked in one place: the one judgment
writer (assess.judging.save_judgment) refuses a value that does not fit its kind, whatever path it came by.

A track declares its kinds once, as data of its Track (core.tracks.JudgmentKind: name, value shape, labels,
words; the shape language is documented there):

    Track(..., kinds=(JudgmentKind("citation", {"rel": ("yes", "maybe", "no"), ...}, labels=(...)),))

and this module finds them through the registered tracks (a kind two tracks declare has one shape).
"""

from typing import Any

from core import tracks
from core.tracks import TRACKS, JudgmentKind, MapOf, Nullable


class InvalidValue(ValueError):
    """A judgment value that does not fit its kind; the message names the kind, the place and what was wrong."""


_declared: tuple[int, dict[str, JudgmentKind]] = (-1, {})


def declared_kinds() -> dict[str, JudgmentKind]:
    """{name: kind} of every registered track's kinds (the first track declaring a name gives it); built once per
    state of the track registry, not on every save or history row."""
    global _declared
    if _declared[0] != tracks.generation:
        found: dict[str, JudgmentKind] = {}
        for track in TRACKS.values():
            for kind in track.kinds:
                found.setdefault(kind.name, kind)
        _declared = (tracks.generation, found)
    return _declared[1]


def problems(value: Any, shape: Any, where: str = "value") -> list[str]:
    """What is wrong with `value` against `shape` (empty: it fits)."""
    if isinstance(shape, Nullable):
        return [] if value is None else problems(value, shape.shape, where)
    if isinstance(shape, tuple):
        return (
            []
            if value in shape and type(value) is type(next(iter(shape), value))
            else [f"{where} must be one of {', '.join(map(repr, shape))}, not {value!r}"]
        )
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{where} must be a list, not {type(value).__name__}"]
        return [p for i, v in enumerate(value) for p in problems(v, shape[0], f"{where}[{i}]")]
    if isinstance(shape, MapOf):
        if not isinstance(value, dict):
            return [f"{where} must be an object, not {type(value).__name__}"]
        return [p for k, v in value.items() for p in problems(v, shape.shape, f"{where}[{k!r}]")]
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where} must be an object, not {type(value).__name__}"]
        found = [f"{where} has no {k!r}" for k in shape if k not in value]
        found += [f"{where} has an unknown key {k!r}" for k in value if k not in shape]
        return found + [p for k, s in shape.items() if k in value for p in problems(value[k], s, f"{where}.{k}")]
    if shape is int:  # bool is an int to Python, not to a judgment
        return (
            []
            if isinstance(value, int) and not isinstance(value, bool)
            else [f"{where} must be an integer, not {value!r}"]
        )
    return [] if isinstance(value, shape) else [f"{where} must be {shape.__name__}, not {value!r}"]


def check_value(kind: str, value: Any) -> None:
    """Raise InvalidValue unless `value` fits the registered judgment kind `kind`."""
    kinds = declared_kinds()
    declared = kinds.get(kind)
    if declared is None:
        raise InvalidValue(f"unknown judgment kind {kind!r}; known: {', '.join(sorted(kinds))}")
    found = problems(value, declared.shape)
    if found:
        raise InvalidValue(f"{kind} judgment: {'; '.join(found)}")


def _generic_words(value: Any) -> str:
    if not isinstance(value, dict):
        return str(value)
    parts = []
    for key, v in value.items():
        name = str(key).replace("_", " ")
        if v is None or v == [] or v == {} or v == "":
            continue
        if isinstance(v, bool):
            parts.append(f"{name}: {'yes' if v else 'no'}")
        elif isinstance(v, (list, dict)):
            parts.append(f"{name}: {len(v)}")
        else:
            parts.append(f"{name}: {v}")
    return ", ".join(parts) or "nothing"


def in_words(kind: str, value: Any, names: dict | None = None) -> str:
    """A stored judgment value as the history shows it: words, not a Python repr ("—" for none)."""
    if value is None:
        return "—"
    declared = declared_kinds().get(kind)
    if declared is not None and declared.words is not None and isinstance(value, dict):
        try:
            return declared.words(value, names or {})
        except (KeyError, TypeError, ValueError, AttributeError):  # an old value of another shape: still shown
            pass
    return _generic_words(value)
