"""A measure as a named definition (in the manner of ir_measures): what a track declares in Track.measures.

Pure Python, no Django. `name` is the key its values are stored under (Score.measure); `function` is the pure
function computing it, or None for a value the scorer assembles from others (a series score, a mean over topics).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Measure:
    name: str
    label: str  # a column heading
    description: str  # one sentence a participant understands
    seed: str  # the seed passage it implements: "<seed number> <section>: '<words quoted from it>'"
    function: Callable[..., Any] | None = None

    def __str__(self) -> str:
        return self.name


# Values every scorer stores whatever its track (scoring.results reads them): not measures of a track.
GENERIC_LABELS: dict[str, str] = {
    "score": "Score",
    # apart from the report's "Pools judged" (every judged run's answers to the run's questions)
    "judged": "This run's answers judged",
}


def label_of(name: str, measures: Iterable[Measure] = ()) -> str:
    """The label of the measure stored as `name`: the track's declaration, else the generic one, else the name."""
    for measure in measures:
        if getattr(measure, "name", None) == name:
            return measure.label
    return GENERIC_LABELS.get(name, name.replace("_", " "))
