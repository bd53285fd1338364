"""How a track's judgment kinds compare and grade (issue 29's agreement; issue 28's judgments in from qrels).
Plain data, declared by a track and registered at core.extension_points.judgment_scales.

A LabelScale names the key of a value that holds the label judges are compared on, the labels in order (best
first for an ordinal scale: weighted kappa and ordinal alpha use that order), and, for a kind qrels can carry, the
whole value each qrels grade stands for (the reverse of the track's core.extension_points.qrels grading). A kind
whose value holds nuggets (NUGGETS) is compared nugget by nugget: each (item, nugget) pair is a unit, labelled
"match"/"no match" when the value holds a set of nugget ids (QA's nugget_match, a scale without labels) or the
label the value's map gives that nugget (TREC RAG's assignments {nugget id: support|partial_support|not_support},
a scale with those labels; a nugget the map leaves out is not a unit).

A scale is named by the judgment kind it compares, or, where one kind holds several scales told apart by pool item
(TREC RAG's one kind "rag" for relevance grades, support levels and answers' assignments), by a name of its own
with `kind` the judgment kind it reads and `items` the pool item keys' prefix it takes (e.g. "r:").
"""

from dataclasses import dataclass, field
from typing import Any

NUGGETS = "nuggets"  # the key of a value that holds nuggets: a set of ids (QA's nugget_match) or a map id -> label


@dataclass(frozen=True)
class LabelScale:
    key: str  # the value's key compared ("label", "rel", "vote"), or NUGGETS
    labels: tuple[str, ...] = ()  # in order; best first when ordinal
    ordinal: bool = False
    grades: dict[int, dict[str, Any]] = field(default_factory=dict)  # qrels REL -> the value it reads as
    kind: str = ""  # the judgment kind read, when the scale's name is not that kind
    items: str = ""  # only the pool items whose key starts with this (empty: every item of the kind)
    template: dict[str, Any] = field(default_factory=dict)  # a NUGGETS map read from a file: the rest of the value

    def label(self, value: Any) -> Any:
        """The label of a stored value (None: the value has none, e.g. not answered yet)."""
        return value.get(self.key) if isinstance(value, dict) else None

    def value_of_grade(self, rel: int) -> dict[str, Any] | None:
        """A copy of the value a qrels grade stands for; None for a grade the track has no label for."""
        value = self.grades.get(rel)
        return None if value is None else dict(value)

    def judged_kind(self, name: str) -> str:
        """The judgment kind this scale (registered under `name`) reads."""
        return self.kind or name

    def takes(self, item_key: str | None) -> bool:
        """Whether a subject with this pool item key (None: a nugget, or the key unread) is one of the scale's."""
        return not self.items or (item_key or "").startswith(self.items)

    @property
    def per_nugget_labels(self) -> bool:
        """A NUGGETS scale whose values map each nugget to a label (rather than hold a set of matched ids)."""
        return self.key == NUGGETS and bool(self.labels)


def judged_kinds(scales: dict[str, LabelScale]) -> set[str]:
    """The judgment kinds a track's scales read."""
    return {scale.judged_kind(name) for name, scale in scales.items()}


def scale_for_kind(scales: dict[str, LabelScale], kind: str, item_key: str | None = None) -> LabelScale | None:
    """The scale (with qrels grades) that a judgment of `kind` on an item with that key is read into: the one named
    by the kind, else the first that reads it and takes the item (item_key None: any item)."""
    if kind in scales and scales[kind].grades:
        return scales[kind]
    for name, scale in scales.items():
        if scale.judged_kind(name) == kind and scale.grades and (item_key is None or scale.takes(item_key)):
            return scale
    return scales.get(kind)
