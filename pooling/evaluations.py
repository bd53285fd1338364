"""Evaluations: creating one, its settings and its state (open -> judging -> released), and the error every loader
raises. Each change is logged in the audit log with who made it.
"""

from datetime import datetime

from django.db import transaction

from config import uploads
from core import audit
from core.tracks import TRACKS, get_track
from corpus.models import Collection
from pooling.models import Evaluation
from pooling.staleness import mark_stale_many


class LoadError(Exception):
    """Input that cannot be loaded; `problems` holds every `FILE:LINE: message`."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def create_evaluation(slug, track, collections=(), title="", settings=None):
    """A new evaluation of `track` over the named collections, its settings seeded from the track's defaults."""
    problems = []
    if track not in TRACKS:
        problems.append(f"unknown track {track!r}; known tracks: {', '.join(sorted(TRACKS))}")
    if Evaluation.objects.filter(slug=slug).exists():
        problems.append(f"an evaluation with slug {slug!r} already exists")
    found = {c.name: c for c in Collection.objects.filter(name__in=list(collections))}
    problems += [f"no collection named {name!r}" for name in collections if name not in found]
    if problems:
        raise LoadError(problems)
    spec = get_track(track)
    merged = dict(spec.default_settings) | dict(settings or {})
    with transaction.atomic():
        evaluation = Evaluation.objects.create(slug=slug, track=track, title=title or spec.title, settings=merged)
        evaluation.collections.set(found.values())
    return evaluation


def effective_settings(evaluation):
    return dict(evaluation.track_spec.default_settings) | dict(evaluation.settings or {})


def update_settings(evaluation, changes, by=None):
    """Change some settings (judged priorities, limits, NIL allowed, submission window); other settings are kept.
    `by` (a user, or None for the server) is logged with the values before and after."""
    # The window is read on every upload and team page (_aware): a value that is no time would break them all.
    for name in ("submission_opens", "submission_closes"):
        value = changes.get(name)
        try:
            if value is not None:
                datetime.fromisoformat(value)
        except (TypeError, ValueError):
            raise LoadError([f"{name} must be an ISO time such as 2026-06-01T12:00:00+00:00, not {value!r}"]) from None
    # read by assess.assignments.assign: "refuse" an assessor of a team with runs in the series' pool, or "warn"
    if changes.get("assessor_conflicts", "warn") not in ("warn", "refuse"):
        raise LoadError([f"assessor_conflicts must be 'warn' or 'refuse', not {changes['assessor_conflicts']!r}"])
    # read by assess.official: which of a *reveal after* judgment's values is official (assisted judging)
    if changes.get("assist_official", "revised") not in ("revised", "pre_reveal"):
        raise LoadError([f"assist_official must be 'revised' or 'pre_reveal', not {changes['assist_official']!r}"])
    before = effective_settings(evaluation)
    with transaction.atomic():
        evaluation.settings = before | changes
        evaluation.save(update_fields=["settings"])
        changed = {k: v for k, v in changes.items() if before.get(k) != v}
        if "assist_official" in changed and before.get("assist_official", "revised") != changes["assist_official"]:
            mark_stale_many(evaluation.topics.all())  # other judgments are official now: every score is rescored
        if changed:
            audit.record(
                by, "settings changed", evaluation.slug, before={k: before.get(k) for k in changed}, after=changed
            )
    return evaluation


def set_state(evaluation, state, by=None):
    valid = [s for s, _ in Evaluation.STATES]
    if state not in valid:
        raise LoadError([f"unknown state {state!r}; states are {', '.join(valid)}"])
    before = evaluation.state
    with transaction.atomic():
        evaluation.state = state
        evaluation.save(update_fields=["state"])
        if before != state:
            audit.record(by, "state changed", evaluation.slug, before={"state": before}, after={"state": state})
    return evaluation


def start_judging(evaluation):
    """Open for runs -> judging, once judging can begin (a pool was built, a series assigned). Only from "open":
    released scores stay released, and an organizer may still set the state by hand afterwards."""
    if Evaluation.objects.filter(pk=evaluation.pk, state=Evaluation.OPEN).update(state=Evaluation.JUDGING):
        evaluation.state = Evaluation.JUDGING
    return evaluation


def read_upload(upload, kind):
    """The bytes of an uploaded file of `kind` (config.uploads.read: refused before reading when over its
    limit), a refusal as a LoadError, the error the pages and API views already answer."""
    try:
        return uploads.read(upload, kind)
    except uploads.TooLarge as exc:
        raise LoadError([str(exc)]) from None
