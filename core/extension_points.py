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
#
# Two kinds of point. A track point is registered by a track, keyed by the track's slug, and asked for by an
# evaluation's track. A stage point is how a later stage answers an earlier one that may not import it (the
# dependencies run one way): keyed by the registering app's label, and the earlier stage asks every registered
# callable (`items()`), so with none registered it works alone (and fails closed where that matters).

# --- demo (pooling.demo, `manage.py load_demo`) -----------------------------------------------------------------

demo = point(
    "demo",
    """demo(out) -> None: load the track's demo evaluation (idempotent), after the demo users and collections;
    `out` is a print-like callable for what to tell the user. Run in the order the tracks are registered.""",
)

# --- corpus (a stage point: the document viewer) -----------------------------------------------------------------

document_access = point(
    "document_access",
    """A stage point. grant(user) -> the ids of the collections `user` may read: an iterable, a values() QuerySet,
    or an SQL expression selecting them (RawSQL; corpus.access; organizers read everything, anyone else the union
    of the grants, nothing if none).""",
)

# --- corpus: collection formats (corpus.formats.format_module, `load_collection`) ---------------------------------

collection_formats = point(
    "collection_formats",
    """collection_formats() -> {format name: module}: the collection formats a track brings beside corpus's own
    (TREC RAG: msmarco-v2.1-segmented), each a pure module as corpus.formats describes (records, docno_of,
    parse_record; optionally wanted_from_runs for `load_collection --only-cited`). corpus.formats.format_module
    asks every registered track for a name its own table lacks; a name corpus already has is not replaced.""",
)

# --- pooling: topics and runs (pooling.topics, pooling.runs, pooling.formats.parallel) ---------------------------

after_topics_loaded = point(
    "after_topics_loaded",
    """after_topics_loaded(evaluation) -> None: called inside load_topics' transaction once the topics are
    stored (QA4MRE: its gold standard's questions). Raise LoadError to refuse the file.""",
)
check_context = point(
    "check_context",
    """check_context(evaluation) -> dict: what the track's run checker needs beyond the topics and settings,
    put into CheckContext.extra (BOLT: the posts' texts by docid; QA4MRE: the runs stored per team).""",
)
check_submission = point(
    "check_submission",
    """check_submission(evaluation, parsed, submission) -> iterable of problem strings: a track's rules of a
    checked run that only the stored evaluation can tell (ciQA: pairing and limits), so a run only checked is
    told what storing it would refuse.""",
)
after_run_stored = point(
    "after_run_stored",
    """after_run_stored(run) -> None: called inside store_run's transaction once the run and its entries are
    stored (ciQA: pairs an initial run with its final run; QA4MRE: scores it). Raise LoadError to refuse it.""",
)
batch_context = point(
    "batch_context",
    """batch_context() -> a context manager entered around checking a batch of run files, in the caller and in
    each worker process for its life (BOLT: shared near-duplicate features). It must be a pure module's
    module-level function: the spawned workers import it without Django.""",
)

# --- pooling: the campaign (pooling.campaign, a team's page and the API) -------------------------------------------

participant_topics = point(
    "participant_topics",
    """participant_topics(evaluation) -> (filename, bytes): the topic file teams get while the evaluation runs,
    when not the file as loaded (BOLT: number, query and language target only); the full topics follow with the
    judgments.""",
)
other_submissions = point(
    "other_submissions",
    """other_submissions(evaluation) -> [pooling.campaign.OtherSubmission]: the files besides runs a team may
    send (ciQA: URL files), offered on the participant's page and through the API.""",
)
release_check = point(
    "release_check",
    """A stage point. released(evaluation, team_id) -> bool: whether the team's results are released (every
    registered check must agree; with none, only an evaluation in the released state counts).""",
)
team_downloads = point(
    "team_downloads",
    """A stage point. downloads(evaluation, team) -> [pooling.campaign.TeamDownload]: files the team may fetch
    besides the evaluation's own (scoring: judgments of its runs, once released).""",
)

# --- pooling: pools (pooling.pools) -------------------------------------------------------------------------------

judged_items = point(
    "judged_items",
    """A stage point. judged(question_ids) -> set of the ids of those questions' pool items that hold a judgment
    (a pool rebuild never drops one).""",
)

# --- assess: judging (assess.organizer_views, the `judging` command, assess.search_views) -------------------------

adjudication_queue = point(
    "adjudication_queue",
    """adjudication_queue(evaluation, user=None) -> [(item, primary, secondary, decided)]: double judging's
    disagreements, each with the two assessors' judgments and the decision if any (user: only those that user
    may decide). The page deciding them is Track.adjudication_page.""",
)
item_labels = point(
    "item_labels",
    """item_labels(item, kind) -> tuple of str: the labels a judgment of `kind` on the pool item may take, for a
    track whose labels depend on the item (BioGen: an answer's, a sentence's, a citation's); without it, the
    kind's labels (Track.labels). Asked by assisted judging (assess.assist.labels_of): the labels a suggestion
    may give and a model server is offered.""",
)

assist_prompt = point(
    "assist_prompt",
    """assist_prompt(item, kind) -> (template, fields, read): how a model server is asked for a suggestion of
    `kind` on the pool item when the track knows better than the generic prompt (assess.assist_client): the
    default template (an organizer's template for the kind still wins), {place: text} for its places (over the
    generic ones), and read(content) -> (value dict, rationale), or None for the generic {"label", "rationale"}
    reply; read raises assess.formats.model_reply.MalformedReply. Raises model_reply.NotAskable(reason) when the
    item cannot be asked about yet (stored as an error row, no call made). Without it, the generic prompt.""",
)

nugget_sources = point(
    "nugget_sources",
    """nugget_sources(topic) -> list of str: the texts a model server is asked to read a topic's nugget list from
    (assisted judging's nugget proposals, assess.assist_client.propose_nuggets): TREC RAG the segments the topic
    was judged relevant in, QA a nugget question's pooled answer strings. Empty: nothing to propose from yet. A
    track without it has no nugget proposals.""",
)

search_found = point(
    "search_found",
    """search_found(request, assignment, topic, document) -> (template name, context dict): what a result of the
    search panel (assess.search_panel) can become, rendered under the opened document. Its form must post to the
    track's existing assessor-found function, so the panel adds no second way to write judgments.""",
)

# --- scoring (scoring.rescore, scoring.reports, scoring.results, the exports) ------------------------------------

scorer = point(
    "scorer",
    """scorer(evaluation, topic_ids) -> scoring.registry.ScoreBatch: given the stale topics (None: all), read
    the official judgments (assess.official) and return the Score rows that replace the old ones.""",
)
run_groups = point(
    "run_groups",
    """run_groups(evaluation, runs) -> [(label, [run, ...]), ...]: the runs whose "score" measures the same thing,
    group by group (TREC RAG: answer runs, scored by nugget All, apart from retrieval runs, scored by nDCG@20).
    Significance and the rankings under other judgments (scoring.rankings) compare runs within one group; without
    it every run is one group.""",
)
report = point(
    "report",
    """report(run) -> scoring.reports.RunReport: a run's report; without one, the generic report of its stored
    Score rows.""",
)
judging_progress = point(
    "judging_progress",
    """judging_progress(evaluation) -> {"pool_items", "pool_judged", "questions", "questions_judged",
    "unjudged_questions", "unit"}: how far judging has got, for a track not judged item by item (QA4MRE: a gold
    standard); the others' scorers store those counts in their run-level "score" detail.""",
)
judgment_exports = point(
    "judgment_exports",
    """judgment_exports(evaluation) -> ([scoring.registry.Export], note): the track's own judgment exports
    (QA: NIST's formats) beside the JSON Lines every evaluation has, and the note the board shows after them.""",
)
qrels = point(
    "qrels",
    """qrels(evaluation, which) -> iterable of (topic ident, docno, rel, group): the track's judgments of its
    documents or passages as qrels rows (scoring.qrels writes them, scoring.formats.trec the lines), for a track
    whose items are documents or passages. which="official": each pooled item's official judgment, group "0",
    rel -1 for an item nobody has judged (trec_eval's unjudged); which="assessors": every item judgment by the
    assessor's role as its group ("primary", "secondary", "adjudicated"), trec_eval's qrels_jg. A docno met twice
    in a topic and group keeps its highest rel. The grading is the track's, stated in docs/formats.md.""",
)
ranked_documents = point(
    "ranked_documents",
    """ranked_documents(run) -> iterable of (topic ident, docno, score): a run's documents in its ranking, topic
    by topic, with the docnos of the track's qrels (core.extension_points.qrels), for a TREC run file
    (scoring.qrels.run_file_lines); nothing for a run without a ranking (BOLT: a grouping run).""",
)
judgment_scales = point(
    "judgment_scales",
    """judgment_scales() -> {scale name: core.label_scales.LabelScale}: how the track's judgment kinds compare and
    grade (issue 29): the key of a value that judges are compared on, its labels in order (ordinal or not: weighted
    kappa and ordinal alpha), and the value each qrels grade stands for (the reverse of the track's qrels grading;
    scoring.judgment_sets reads qrels into a judgment set with it). A scale is named by its kind, or, where one kind
    holds several scales told apart by pool item (TREC RAG), by a name of its own with LabelScale.kind and .items.
    A kind left out is not compared.""",
)
qrels_items = point(
    "qrels_items",
    """qrels_items(evaluation) -> (kind, {(topic ident, docno): [(topic id, pool item id), ...]}): the pool items a
    qrels line names and the judgment kind its grade becomes (core.extension_points.judgment_scales gives the value
    of each grade), the reverse of core.extension_points.qrels; several items of one document (two passages of a
    post, a PMID cited by several sentences) each take the line's grade. scoring.qrels.item_index builds it.""",
)
run_judgments = point(
    "run_judgments",
    """run_judgments(run) -> (filename, bytes) or None: a run's judgments in the track's official form, given to
    its team once released; an optional attribute run_judgments.applies(run) says which runs have one.""",
)

# --- scoring: judgments JSON Lines ---------------------------------------------------------------------------------

judgments_jsonl = point(
    "judgments_jsonl",
    """judgments_jsonl(evaluation, importing) -> scoring.judgments_jsonl.TrackRecords: the records a track adds to
    Assay's judgments file (scoring.judgments_jsonl) and the ids of them that its judgment values and structure-log
    values name (QA: answer classes and nuggets, tracks/qa/judgments_jsonl.py). `evaluation` is an Evaluation of the
    track, `importing` the import in progress (scoring.judgments_jsonl.Importing), or None for an export. Register
    a subclass of TrackRecords (the class is the callable); the stage asks it
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
