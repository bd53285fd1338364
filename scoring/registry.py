"""The plug-in points of scoring: each track registers how its scores are computed and how a run's report looks.

A scorer is `scorer(evaluation, topic_ids) -> ScoreBatch`: given the stale topics (or None for all) it reads the
official judgments (assess.official) and returns the Score rows that replace the old ones. Everything else —
staleness, locking, storing, freshness, the scoreboard, release and access rules — is shared.

A report builder is `builder(run) -> scoring.reports.RunReport`; tracks without one get the generic
report built from their stored Score rows (question, series and run scopes), so a scorer alone already yields a
report. Register from your app's `AppConfig.ready()`:

    from scoring.registry import register_scorer, register_report
    register_scorer("my-track", score_my_track)
    register_report("my-track", my_track_report)

A track may also offer judgment exports of its own (QA: NIST's formats) beside the JSON Lines every evaluation has
(scoring.judgments_jsonl): `register_exports(track_slug, exports, note)` with Export entries; the board links them
and `manage.py export_judgments --format KIND` writes them.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # named in annotations only: the registry imports no model at run time
    from pooling.models import Evaluation, Run
    from scoring.reports import RunReport


@dataclass
class ScoreRow:
    run_id: int
    scope: str  # Score.RUN / SERIES / QUESTION
    topic_id: int | None
    measure: str
    value: float | None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class ScoreBatch:
    """Rows that replace, for the evaluation's runs: question-scope rows of `question_ids`, series-scope rows of
    `series_ids`, and every run-scope row when `run_level` is set. `full` replaces every stored score."""

    rows: list[ScoreRow]
    question_ids: set[int] = field(default_factory=set)
    series_ids: set[int] = field(default_factory=set)
    run_level: bool = True
    full: bool = False


@dataclass(frozen=True)
class Export:
    kind: str  # its name in the URL and in `export_judgments --format`
    label: str  # the board's link text
    writer: Callable[["Evaluation"], Iterable[str]]  # writer(evaluation) -> the file's lines


# scorer(evaluation, stale topic ids or None for all) -> the rows replacing the old ones
type Scorer = Callable[[Evaluation, set[int] | None], ScoreBatch]
type ReportBuilder = Callable[[Run], RunReport]
type JudgingHook = Callable[[Evaluation], dict[str, Any]]  # see JUDGING below

SCORERS: dict[str, Scorer] = {}
REPORTS: dict[str, ReportBuilder] = {}
# track slug -> (Export, ...), note shown after them on the board
EXPORTS: dict[str, tuple[tuple[Export, ...], str]] = {}
# A track whose scores are not judged item by item (QA4MRE: a gold standard) says how far "judging" has got:
# judging(evaluation) -> {"pool_items", "pool_judged", "questions", "questions_judged", "unjudged_questions",
# "unit"}; the others' scorers store those counts in their run-level "score" detail (scoring.results.Judging).
JUDGING: dict[str, JudgingHook] = {}


def register_scorer(track_slug: str, scorer: Scorer) -> None:
    SCORERS[track_slug] = scorer


def register_report(track_slug: str, builder: ReportBuilder) -> None:
    REPORTS[track_slug] = builder


def register_exports(track_slug: str, exports: Iterable[Export], note: str = "") -> None:
    EXPORTS[track_slug] = (tuple(exports), note)


def get_exports(track_slug: str) -> tuple[tuple[Export, ...], str]:
    """(the track's Export entries, their note); none for a track without exports of its own."""
    return EXPORTS.get(track_slug, ((), ""))


def register_judging(track_slug: str, judging: JudgingHook) -> None:
    JUDGING[track_slug] = judging


def get_judging(track_slug: str) -> JudgingHook | None:
    return JUDGING.get(track_slug)


def get_scorer(track_slug: str) -> Scorer | None:
    return SCORERS.get(track_slug)


def get_report_builder(track_slug: str) -> ReportBuilder | None:
    return REPORTS.get(track_slug)


def measure_label(name: str, track_slug: str | None = None) -> str:
    """The label of a stored measure: from the track's measure definitions (Track.measures), else generic."""
    from core.tracks import TRACKS
    from scoring.measures.definition import label_of

    track = TRACKS.get(track_slug) if track_slug else None
    return label_of(name, track.measures if track else ())
