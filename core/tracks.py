"""The track registry: each track app (tracks/<name>/) declares its tracks here from its AppConfig.ready()
(through its plugin module, see tracks/__init__.py).

Plain data with no Django import: what a track *is* (titles, formats, kinds, measures, settings, links). What a
stage *calls* in a track is registered in core.extension_points instead. The stage apps look a track up here
instead of branching on its slug; a track is offered (create form, run checker, commands) only once an installed
app has registered it.
"""

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from core.submission_rules import SubmissionRules


# The shape of a judgment value (checked by assess.kinds): a type (str, int, bool), a tuple of allowed values,
# `Nullable(shape)`, a one-element list `[shape]` (a list of such), `MapOf(shape)` (an object with any string
# keys) or a dict (an object with exactly those keys).
@dataclass(frozen=True)
class Nullable:
    shape: Any


@dataclass(frozen=True)
class MapOf:
    shape: Any


@dataclass(frozen=True)
class JudgmentKind:
    """What assessors record of one kind: its name, the value's shape, the labels an assessor picks from (the
    track's; the value's check may be looser, the track's judging narrows it), and the value in words."""

    name: str
    shape: Any  # the value's shape, as above
    description: str = ""
    # value, names -> the value in words for the history (names: {"answer_class": {id: label}, "nuggets": {id:
    # text}}); None: assess.kinds.in_words' generic "key: value" words
    words: Any = None
    labels: tuple[str, ...] = ()
    # The worst and best judgment an unjudged pool item of this kind could get (issue 29's bounds: each run's score
    # if every unjudged item were wrong, and if every one were right): bounds(item_data, nugget_ids) -> (worst
    # value, best value), given the item's PoolItem.data and its topic's nugget ids, or None for an item without a
    # bound. None: the kind is not judged item by item (votes) or has no bound; scoring.robustness says so.
    bounds: Any = None


@dataclass(frozen=True)
class PageLink:
    """A link a track adds to a stage app's page: `url_name` reversed with the page's object key (an
    evaluation's slug), shown as `label`; `ident` is the HTML id tests and users can rely on."""

    ident: str
    label: str
    url_name: str
    note: str = ""


@dataclass(frozen=True)
class Track:
    slug: str
    title: str
    seed: str  # the seed document in ../shared/seeds that specifies the track
    collection_formats: tuple[str, ...]  # corpus formats its documents come in
    topic_format: ModuleType  # its topic parser (pooling.formats.base: parse_topics), a pure module
    run_format: ModuleType  # its run parser/checker (pooling.formats.base: check_run), a pure module
    question_types: tuple[str, ...] = ()
    kinds: tuple[JudgmentKind, ...] = ()  # what assessors record (checked by assess.kinds)
    # Progress (assess.progress): the judgment kind that marks a pool item of a question judged, by question type
    # (upper case); the kinds only the primary assessor records (a second assessor's progress leaves their
    # questions out); and a PoolItem filter (lookup -> value) of items judged on a page of their own, not item by
    # item, which are no items left to judge.
    done_kinds: dict[str, str] = field(default_factory=dict)
    primary_only_kinds: tuple[str, ...] = ()
    items_judged_apart: dict[str, object] = field(default_factory=dict)
    measures: tuple[Any, ...] = ()  # its scoring.measures.definition.Measure entries (core cannot import scoring)
    human_judging: bool = True
    default_settings: dict = field(default_factory=dict)
    # Double judging's disagreements: the URL name of the page deciding them (takes the evaluation's slug; the
    # queue itself is core.extension_points.adjudication_queue); "" for a track without human judging.
    adjudication_page: str = ""
    # The assessor's page of one assignment (URL name taking the assignment's pk).
    assignment_page: str = ""
    # The page where a voter the organizer invited votes on a series (URL name taking the series' pk), if any.
    vote_page: str = ""
    # Links on the organizer's evaluation page (reversed with the evaluation's slug) and beside a participant's
    # run (reversed with the run's evaluation's slug).
    organizer_links: tuple[PageLink, ...] = ()
    participant_links: tuple[PageLink, ...] = ()
    # Its judging pages and their keys (assess.keymap.Page entries: core cannot import assess; the key map is built
    # from every track's).
    pages: tuple[Any, ...] = ()
    # What a team may submit (core.submission_rules), checked by every loading path; the default accepts all.
    submission_rules: SubmissionRules = SubmissionRules()
    # Topic.data keys that hold an organizer's yes/no decision about a question that changes its scores (QA: the
    # NIL decisions, "answer_is_nil"): they travel with the judgments export (scoring.judgments_jsonl).
    topic_decisions: tuple[str, ...] = ()

    @property
    def judgment_kinds(self) -> tuple[str, ...]:
        """The names of its kinds."""
        return tuple(kind.name for kind in self.kinds)

    def labels(self, kind: str) -> tuple[str, ...]:
        """The labels of its kind `kind` (none for a kind it does not record)."""
        return next((k.labels for k in self.kinds if k.name == kind), ())


TRACKS: dict[str, Track] = {}


# Bumped by every registration, so what is derived from TRACKS (assess.kinds' kinds by name) can be kept until the
# registry changes instead of being rebuilt on every judgment saved.
generation = 0


def register_track(track: Track) -> None:
    """Offer `track` everywhere (called from a track app's AppConfig.ready(); registering again replaces)."""
    global generation
    TRACKS[track.slug] = track
    generation += 1


def unregister_track(slug: str) -> None:
    """Withdraw a track registered for a while (a test's)."""
    global generation
    TRACKS.pop(slug, None)
    generation += 1


def get_track(slug: str) -> Track:
    try:
        return TRACKS[slug]
    except KeyError:
        raise KeyError(f"unknown track {slug!r}; known tracks: {', '.join(sorted(TRACKS))}") from None


def track_choices() -> list[tuple[str, str]]:
    return [(t.slug, t.title) for t in TRACKS.values()]
