"""The track registry: each track app (tracks/<name>/) declares its tracks here from its AppConfig.ready().

Plain data with no Django import. The stage apps look a track up here instead of branching on its slug; a track
is offered (create form, run checker, commands) only once an installed app has registered it.
"""

from dataclasses import dataclass, field
from typing import Any

from core.submission_rules import SubmissionRules


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
    topic_format: str  # module of its topic parser: a dotted path, or a name in pooling.formats
    run_format: str  # module of its run parser/checker: a dotted path, or a name in pooling.formats
    question_types: tuple[str, ...] = ()
    judgment_kinds: tuple[str, ...] = ()  # what assessors record (assess app)
    judgments: dict[str, tuple[str, ...]] = field(default_factory=dict)  # judgment kind -> allowed labels
    # Progress (assess.progress): the judgment kind that marks a pool item of a question judged, by question type
    # (upper case); the kinds only the primary assessor records (a second assessor's progress leaves their
    # questions out); and a PoolItem filter (lookup -> value) of items judged on a page of their own, not item by
    # item, which are no items left to judge.
    done_kinds: dict[str, str] = field(default_factory=dict)
    primary_only_kinds: tuple[str, ...] = ()
    items_judged_apart: dict[str, object] = field(default_factory=dict)
    measures: tuple[Any, ...] = ()  # its scoring.measures.definition.Measure entries (pooling cannot import scoring)
    human_judging: bool = True
    default_settings: dict = field(default_factory=dict)
    # Double judging's disagreements: the function listing them ([(item, primary, secondary, decided)]) and the
    # URL name of the page deciding them (takes the evaluation's slug); "" for a track without human judging.
    adjudication_queue: str = ""
    adjudication_page: str = ""
    # The assessor's page of one assignment (URL name taking the assignment's pk).
    assignment_page: str = ""
    # The page where a voter the organizer invited votes on a series (URL name taking the series' pk), if any.
    vote_page: str = ""
    # Links on the organizer's evaluation page (reversed with the evaluation's slug) and beside a participant's
    # run (reversed with the run's evaluation's slug).
    organizer_links: tuple[PageLink, ...] = ()
    participant_links: tuple[PageLink, ...] = ()
    # Demo steps, run in order by `manage.py load_demo` after the users and collections: dotted paths of
    # functions taking `out` (a print-like callable).
    demo_steps: tuple[str, ...] = ()
    # What a team may submit (core.submission_rules), checked by every loading path; the default accepts all.
    submission_rules: SubmissionRules = SubmissionRules()
    # The topics teams get while the evaluation runs, when not the topic file as loaded: a dotted path of a
    # Django-side f(evaluation) -> (filename, bytes) (BOLT: number, query and language-target only; the full
    # topics follow with the judgments).
    participant_topics: str = ""
    # A run's judgments in the track's official form, given to its team once released: a dotted path of a
    # Django-side f(run) -> (filename, bytes) or None; an optional attribute f.applies(run) says which runs have one.
    run_judgments: str = ""
    # Topic.data keys that hold an organizer's yes/no decision about a question that changes its scores (QA: the
    # NIL decisions, "answer_is_nil"): they travel with the judgments export (scoring.judgments_jsonl).
    topic_decisions: tuple[str, ...] = ()


TRACKS: dict[str, Track] = {}


def register_track(track: Track) -> None:
    """Offer `track` everywhere (called from a track app's AppConfig.ready(); registering again replaces)."""
    TRACKS[track.slug] = track


def get_track(slug: str) -> Track:
    try:
        return TRACKS[slug]
    except KeyError:
        raise KeyError(f"unknown track {slug!r}; known tracks: {', '.join(sorted(TRACKS))}") from None


def track_choices() -> list[tuple[str, str]]:
    return [(t.slug, t.title) for t in TRACKS.values()]
