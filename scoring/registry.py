"""The data of scoring's plug-in points (core.extension_points, the scoring group): what a track's scorer returns
(ScoreBatch of ScoreRow) and what its judgment exports are (Export).

A scorer (core.extension_points.scorer) is `scorer(evaluation, topic_ids) -> ScoreBatch`: given the stale topics
(or None for all) it reads the official judgments (assess.official) and returns the Score rows that replace the old
ones. Everything else — staleness, locking, storing, freshness, the scoreboard, release and access rules — is
shared. A track may also register a report builder, its own judgment exports (QA: NIST's formats) beside the JSON
Lines every evaluation has, and, when it is not judged item by item, its judging progress.
"""

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core import extension_points as ep

if TYPE_CHECKING:  # named in annotations only: the registry imports no model at run time
    from pooling.models import Evaluation, Run
    from scoring.reports import RunReport


_SNAPSHOT_MEMO: ContextVar[dict[Any, Any] | None] = ContextVar("scoring_snapshot_memo", default=None)


@contextmanager
def one_snapshot() -> Iterator[None]:
    """Inside, a scorer called many times over one unchanging state (scoring.rankings' refresh: every reading scored
    in one REPEATABLE READ, READ ONLY snapshot) reads what does not depend on the reading once (`memo`): the stored
    official scores its live path combines, the runs' entries. The readings' own judgments are never memoised."""
    token = _SNAPSHOT_MEMO.set({})
    try:
        yield
    finally:
        _SNAPSHOT_MEMO.reset(token)


def memo(key: Any, compute: Callable[[], Any]) -> Any:
    """compute(), kept under `key` for the rest of a `one_snapshot` block (outside one: computed every time). The
    caller must not change what it gets back, and `key` must name everything compute reads."""
    found = _SNAPSHOT_MEMO.get()
    if found is None:
        return compute()
    if key not in found:
        found[key] = compute()
    return found[key]


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
    # The stored rows of some of those scopes, if the scorer read them already in this transaction:
    # {(run, scope, topic, measure): (pk, value, detail)} holding every stored row (all measures) of the
    # question-scope rows of `stored_question_ids` and the series-scope rows of `stored_series_ids`; store() then
    # reads only the rest (a live pass's QA scorer reads them to update its sums: issue 32).
    stored: dict[tuple[int, str, int | None, str], tuple[int, float | None, Any]] | None = None
    stored_question_ids: set[int] = field(default_factory=set)
    stored_series_ids: set[int] = field(default_factory=set)
    # {question: (judged pool items, pool items, unpooled answers, left out)} of the questions scored, stored once
    # per question rather than in every run's rows (scoring.pool_counts, which also makes their sums per series and
    # run and the lists of unjudged and left-out questions from them); replaces those of `question_ids` (all of them
    # when `full`). None: the scorer keeps its counts in its rows' detail.
    pool_counts: dict[int, tuple[int, int, int, bool]] | None = None


@dataclass(frozen=True)
class Export:
    kind: str  # its name in the URL and in `export_judgments --format`
    label: str  # the board's link text
    writer: Callable[["Evaluation"], Iterable[str]]  # writer(evaluation) -> the file's lines
    # The run tag a line names, or None for a line that is everyone's (scoring.team_downloads keeps a team's own
    # runs' lines); unset: the line's whitespace-separated fields are looked at (NIST's formats name the tag so).
    run_of: Callable[[str], str | None] | None = None
    ext: str = "txt"  # the downloaded file's extension
    # A file that shows what every team's runs retrieved (trec_eval's qrels): a team gets it only once the results
    # are released to everyone (TREC publishes its qrels after the campaign), never through a release to it alone.
    everyones: bool = False


# scorer(evaluation, stale topic ids or None for all) -> the rows replacing the old ones
type Scorer = Callable[[Evaluation, set[int] | None], ScoreBatch]
type ReportBuilder = Callable[[Run], RunReport]


def get_exports(evaluation: "Evaluation") -> tuple[tuple[Export, ...], str]:
    """(the track's Export entries, their note), and the qrels exports of a track that registered
    core.extension_points.qrels; none for a track without either."""
    exports = ep.judgment_exports.get(evaluation.track)
    found, note = exports(evaluation) if exports is not None else ((), "")
    ir: tuple[Export, ...] = ()  # issue 28: the IR tools' shapes, before the track's own, whose note the board
    if ep.qrels.get(evaluation.track) is not None:  # shows after the last of them; for every document track
        from scoring.qrels import qrels_jg_lines, qrels_lines

        ir += (
            Export("qrels", "qrels (trec_eval)", qrels_lines, everyones=True),
            Export("qrels-jg", "qrels per assessor (trec_eval qrels_jg)", qrels_jg_lines, everyones=True),
        )
    if ep.ranked_documents.get(evaluation.track) is not None:  # the runs' rankings, to score against the qrels
        from scoring.qrels import run_files_lines

        ir += (Export("runs", "run files (trec_eval)", run_files_lines, run_of=lambda line: line.split()[5]),)
    found = (*ir, *found)
    return tuple(found), note


def measure_label(name: str, track_slug: str | None = None) -> str:
    """The label of a stored measure: from the track's measure definitions (Track.measures), else generic."""
    from core.tracks import TRACKS
    from scoring.measures.definition import label_of

    track = TRACKS.get(track_slug) if track_slug else None
    return label_of(name, track.measures if track else ())
