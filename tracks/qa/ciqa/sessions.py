"""Interaction sessions (seed 001 3.2.1): each assessor interacts with every team's system for five minutes per
topic, on the throw-away training topic first and then on the topics assigned to them (their primary
assignments, like the rest of their work); a system that cannot be reached is skipped with a reason and not
returned to. The time allowed is the evaluation setting `interaction_seconds` (300).

The server keeps the clock: a session's deadline is its start plus the seconds allowed, so a reload or a second
tab shows the same count-down, and a session left open past its deadline is ended at the deadline.
"""

import random
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from assess.models import Assignment
from pooling.evaluations import LoadError, update_settings
from pooling.models import Topic
from tracks.qa.ciqa.models import InteractionSession, UrlFile
from tracks.qa.formats.ciqa_topics import KIND, TRAINING_KIND

DEFAULT_SECONDS = 300


def allowed_seconds(evaluation):
    return int(evaluation.setting("interaction_seconds", DEFAULT_SECONDS) or DEFAULT_SECONDS)


def system_order(evaluation, assessor, url_files):
    """The order an assessor meets the systems in: random, but the same on every call (seeded by evaluation and
    assessor), so order effects spread over assessors."""
    files = sorted(url_files, key=lambda u: u.tag)
    random.Random(f"{evaluation.pk}:{assessor.pk}").shuffle(files)
    return files


def plan_sessions(evaluation):
    """Create the sessions of every assessor holding a primary assignment of a ciQA topic: the training topic with
    each system first, then each assigned topic with each system. Idempotent: sessions are kept, new ones added,
    and sessions no longer wanted removed if not started. Returns (created, removed)."""
    training = Topic.objects.filter(evaluation=evaluation, kind=TRAINING_KIND).first()
    files = list(UrlFile.objects.filter(evaluation=evaluation))
    assigned = {}
    for a in (
        Assignment.objects.filter(evaluation=evaluation, role=Assignment.PRIMARY, topic__kind=KIND)
        .select_related("assessor", "topic")
        .order_by("topic__position")
    ):
        assigned.setdefault(a.assessor, []).append(a.topic)
    created = removed = 0
    with transaction.atomic():
        existing = {
            (s.assessor_id, s.topic_id, s.url_file_id): s
            for s in InteractionSession.objects.select_for_update(of=("self",)).filter(evaluation=evaluation)
        }
        wanted = set()
        seconds = allowed_seconds(evaluation)
        for assessor, topics in assigned.items():
            order = system_order(evaluation, assessor, files)
            plan = [(training, f) for f in order] if training else []
            plan += [(t, f) for t in topics for f in order]
            for position, (topic, url_file) in enumerate(plan):
                key = (assessor.pk, topic.pk, url_file.pk)
                wanted.add(key)
                session = existing.get(key)
                if session is None:
                    InteractionSession.objects.create(
                        evaluation=evaluation,
                        assessor=assessor,
                        topic=topic,
                        url_file=url_file,
                        position=position,
                        seconds=seconds,
                    )
                    created += 1
                elif session.position != position:
                    session.position = position
                    session.save(update_fields=["position"])
        for key, session in existing.items():
            if key not in wanted and session.started_at is None and session.skipped_at is None:
                session.delete()
                removed += 1
    return created, removed


def sessions_of(evaluation, assessor):
    return list(
        InteractionSession.objects.filter(evaluation=evaluation, assessor=assessor)
        .select_related("topic", "url_file", "url_file__team")
        .order_by("position", "id")
    )


def deadline(session):
    return session.started_at + timedelta(seconds=session.seconds) if session.started_at else None


def remaining_seconds(session, now=None):
    if session.started_at is None:
        return session.seconds
    if session.done:
        return 0
    left = (deadline(session) - (now or timezone.now())).total_seconds()
    return max(0, int(left + 0.999))


def _locked(session):
    return InteractionSession.objects.select_for_update(of=("self",)).get(pk=session.pk)


def expire(session, now=None):
    """A started session past its deadline ends at the deadline (the assessor closed the page, or lost it)."""
    now = now or timezone.now()
    if session.started_at and not session.done and deadline(session) <= now:
        with transaction.atomic():
            session = _locked(session)
            if not session.done:
                session.ended_at = deadline(session)
                session.save(update_fields=["ended_at"])
    return session


def start(session, now=None):
    """Start the clock (a second start is the same start: the deadline does not move)."""
    now = now or timezone.now()
    with transaction.atomic():
        session = _locked(session)
        if session.skipped_at:
            raise LoadError(["this interaction was skipped"])
        if session.started_at is None:
            session.started_at = now
            session.seconds = allowed_seconds(session.evaluation)
            session.save(update_fields=["started_at", "seconds"])
    return session


def end(session, early=False, now=None):
    """End a started session: when time is up, or earlier when the assessor stops (recorded as stopped early)."""
    now = now or timezone.now()
    with transaction.atomic():
        session = _locked(session)
        if session.started_at is None:
            raise LoadError(["this interaction has not started"])
        if session.done:
            return session
        if now >= deadline(session):
            session.ended_at, session.stopped_early = deadline(session), False
        else:
            session.ended_at, session.stopped_early = now, bool(early)
        session.save(update_fields=["ended_at", "stopped_early"])
    return session


def skip(session, reason, now=None):
    """The system could not be reached: the session is skipped, with the assessor's reason, and not returned to."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise LoadError(["say why the interaction is skipped (e.g. the system does not answer)"])
    with transaction.atomic():
        session = _locked(session)
        if session.ended_at:
            raise LoadError(["this interaction has ended already"])
        if session.skipped_at is None:
            session.skipped_at, session.skip_reason = now or timezone.now(), reason[:2000]
            session.save(update_fields=["skipped_at", "skip_reason"])
    return session


def next_session(sessions):
    return next((s for s in sessions if not s.done), None)


def progress_by_assessor(evaluation):
    """[(username, done, total)] over the assessors with sessions."""
    counts = {}
    for s in InteractionSession.objects.filter(evaluation=evaluation).select_related("assessor"):
        done, total = counts.get(s.assessor.username, (0, 0))
        counts[s.assessor.username] = (done + s.done, total + 1)
    return [(name, *counts[name]) for name in sorted(counts)]


def set_interaction_seconds(evaluation, seconds, by=None):
    """Set the length of an interaction session; logged (who, before, after) as every settings change."""
    seconds = int(seconds)
    if not 10 <= seconds <= 3600:
        raise LoadError([f"interaction time {seconds}s: between 10 and 3600 seconds"])
    update_settings(evaluation, {"interaction_seconds": seconds}, by=by)


def assessor_named(username):
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise LoadError([f"no user {username!r}"])
    return user
