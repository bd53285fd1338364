"""How a track's judgment kinds compare and grade (issue 29's agreement; issue 28's judgments in from qrels).
Plain data, declared by a track and registered at core.extension_points.judgment_scales.

A LabelScale names the key of a value that holds the label judges are compared on, the labels in order (best
first for an ordinal scale: weighted kappa and ordinal alpha use that order), and, for a kind qrels can carry, the
whole value each qrels grade stands for (the reverse of the track's core.extension_points.qrels grading). A kind
whose value is a set of nuggets (NUGGETS) is compared nugget by nugget: each (item, nugget) pair is a binary unit.
"""

from dataclasses import dataclass, field
from typing import Any

NUGGETS = "nuggets"  # the key of a value that is a set of nugget ids (QA's nugget_match)


@dataclass(frozen=True)
class LabelScale:
    key: str  # the value's key compared ("label", "rel", "vote"), or NUGGETS
    labels: tuple[str, ...] = ()  # in order; best first when ordinal
    ordinal: bool = False
    grades: dict[int, dict[str, Any]] = field(default_factory=dict)  # qrels REL -> the value it reads as

    def label(self, value: Any) -> Any:
        """The label of a stored value (None: the value has none, e.g. not answered yet)."""
        return value.get(self.key) if isinstance(value, dict) else None

    def value_of_grade(self, rel: int) -> dict[str, Any] | None:
        """A copy of the value a qrels grade stands for; None for a grade the track has no label for."""
        value = self.grades.get(rel)
        return None if value is None else dict(value)
