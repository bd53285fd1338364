"""The rules every judgment save keeps, whatever the track: one function per generic save, and the checks a
track's own saves build on.

A save runs in one transaction, refuses changes to closed questions (QuestionClosed, 423), records who/when/
before/after (JudgmentChange for judgments, StructureChange for structure and closures) and marks the question's
scores stale in the same transaction (pooling.staleness.mark_stale). Judgments carry a version: the caller passes
the version it last saw (0 for "none yet"), and a save made against an older version is refused with
StaleJudgment (409), which carries the newer judgment so the page can show it. An adjudication decides only an item
of the adjudication queue (NotInQueue) and only once (claim_decision, AlreadyDecided). The organizer's judging
actions (closing questions, invitations, double judging) are here too. Tracks build their saves on save_judgment
(e.g. tracks/qa/instance_judging.py, tracks/bolt/judging.py, tracks/biogen/judging.py) and their decisions on
claim_decision (through assess.adjudication.decide for BOLT and BioGen); a change of structure that rewrites the
judgments referring to it (QA's class merges, nugget deletes) goes through rewrite_values. Judging writes
judgments nowhere else; only bulk loads outside judging do (the import of an exported judgments file,
scoring.judgments_jsonl, and generated benchmark data).
"""

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, Subquery
from django.http import Http404
from django.utils import timezone

from assess import fastsave
from assess.kinds import InvalidValue, check_value
from assess.models import Assignment, Invitation, Judgment, JudgmentChange, Nugget, StructureChange, TopicClosure
from config.auth import NOT_READ, session_companion
from config.roles import ORGANIZER, has_role
from pooling.staleness import mark_stale, mark_stale_many, request_rescoring


class JudgingError(Exception):
    """A save that was refused; `status` is the HTTP status a view answers with."""

    status = 400


class Forbidden(JudgingError):
    status = 403


class QuestionClosed(JudgingError):
    status = 423

    def __init__(self, topic):
        super().__init__(f"question {topic.ident} is closed by the organizer; judgments can no longer change")


class NotInQueue(Forbidden):
    """An adjudication of an item nobody disputes: decisions are only for the adjudication queue."""


class StaleJudgment(JudgingError):
    """Someone (another tab, another person) saved this judgment since the caller read it."""

    status = 409

    def __init__(self, current):
        self.current = current
        version = f" (now version {current.version})" if current is not None else ""
        super().__init__(
            f"not saved: this judgment was changed elsewhere since you opened it{version}; the newer value is shown"
        )


class AlreadyDecided(StaleJudgment):
    """Another adjudicator has decided this item: one decision per item, only its author may change it."""

    def __init__(self, current):
        self.current = current
        JudgingError.__init__(
            self,
            f"not saved: {current.assessor.username} already decided this item "
            f"(version {current.version}); one decision counts per item, so only "
            f"{current.assessor.username} can change it",
        )


@dataclass
class Saved:
    judgment: Judgment
    changed: bool  # False when the value was already what the caller asked for (nothing written)
    before: dict | None = None  # the value before this save (None for a new judgment)


# --- who may do what -------------------------------------------------------------------------------------------


def series_id(topic):
    """The series a question belongs to (assignments are made per series); a topic without parent is its own."""
    return topic.parent_id or topic.id


def series_ident(question):
    return question.parent.ident if question.parent_id else question.ident


def assignment_role(user, question):
    """ "primary", "secondary" or None: the user's assignment on the question's series."""
    return (
        Assignment.objects.filter(assessor=user, topic_id__in={question.id, series_id(question)})
        .values_list("role", flat=True)
        .first()
    )


def may_adjudicate(user, evaluation):
    return (
        has_role(user, ORGANIZER)
        or Invitation.objects.filter(evaluation=evaluation, user=user, kind=Invitation.ADJUDICATOR).exists()
    )


def is_closed(question):
    return TopicClosure.objects.filter(topic_id__in={question.id, series_id(question)}).exists()


def refuse_if_closed(question, closed=None):
    if closed is None:
        closed = is_closed(question)
    if closed:
        raise QuestionClosed(question)


def item_to_save(request, item_id, track=None, name=""):
    """The pool item a track's judging save names, with its role and closure: the save path's one read, made with
    the session's when the view is read_with_session(fastsave.ITEM_WITH_SESSION, "item_id"). Http404 unless it
    exists and, given a `track`, belongs to it (`name`: the track's name in the message)."""
    from pooling.models import PoolItem

    try:
        item = load_item(request.user, item_id, session_companion(request))
    except PoolItem.DoesNotExist:
        raise Http404("no such pool item") from None
    if track is not None and item.evaluation.track != track:
        raise Http404(f"not a {name} pool item")
    return item


def load_item(user, item_id, read=NOT_READ):
    """A pool item with its question and evaluation, plus — in the same query — whether the question is closed
    (`closed`) and the user's assignment role on its series (`my_role`). The save path's only read; raises
    PoolItem.DoesNotExist. `read`: what the view's read_with_session(fastsave.ITEM_WITH_SESSION) read with the
    session (config.auth.session_companion), so no statement of its own is sent."""
    from pooling.models import PoolItem

    if read is not NOT_READ and fastsave.available():
        if read is None:
            raise PoolItem.DoesNotExist(f"no pool item {item_id}")
        return fastsave.item_from_row(read)
    if fastsave.available():
        item = fastsave.load_item(user.pk, item_id)
        if item is None:
            raise PoolItem.DoesNotExist(f"no pool item {item_id}")
        return item
    closure = TopicClosure.objects.filter(Q(topic_id=OuterRef("topic_id")) | Q(topic_id=OuterRef("topic__parent_id")))
    role = (
        Assignment.objects.filter(
            Q(topic_id=OuterRef("topic_id")) | Q(topic_id=OuterRef("topic__parent_id")), assessor_id=user.pk
        )
        .order_by()
        .values("role")[:1]
    )
    return (
        PoolItem.objects.select_related("topic", "evaluation")
        .order_by()
        .annotate(closed=Exists(closure), my_role=Subquery(role))
        .get(pk=item_id)
    )


def load_nugget(user, nugget_id, read=NOT_READ):
    """A nugget with its question and evaluation, plus — in the same query on PostgreSQL — the user's assignment
    role on its series (`my_role`, as load_item's), whether they are the series' primary assessor
    (`series_primary`) and whether they are invited to vote on it (`series_voter`). Raises Nugget.DoesNotExist.
    `read`: what the view's read_with_session(fastsave.NUGGET_WITH_SESSION) read with the session."""
    if fastsave.available():
        if read is NOT_READ:
            nugget = fastsave.load_nugget(user.pk, nugget_id)
        else:
            nugget = None if read is None else fastsave.nugget_from_row(read)
        if nugget is None:
            raise Nugget.DoesNotExist(f"no nugget {nugget_id}")
        return nugget
    nugget = Nugget.objects.select_related("topic__evaluation").get(pk=nugget_id)
    series = series_id(nugget.topic)
    nugget.my_role = assignment_role(user, nugget.topic)
    nugget.series_primary = Assignment.objects.filter(assessor=user, topic_id=series, role=Assignment.PRIMARY).exists()
    nugget.series_voter = Invitation.objects.filter(topic_id=series, user=user, kind=Invitation.VOTER).exists()
    return nugget


# --- the one judgment writer -----------------------------------------------------------------------------------


def save_judgment(user, *, topic, kind, role, value, expected_version, item=None, nugget=None, closed=None, keep=()):
    """Write one judgment of `user` on a pool item or a nugget, checked against the version the caller saw.

    The generic writer every track uses; callers have already checked that `user` may judge this subject in
    `role` and that `value` fits the kind. `expected_version` None skips the check (only for organizer-side bulk
    changes made under lock, such as class merges). `keep` names keys of `value` whose current value stays, read
    under the row lock (`value` holds what a new judgment gets). `value` may instead be a function of the current
    value (None if there is none), applied under the row lock (the ORM path). Returns Saved.
    """
    if closed:  # the caller read the closure with the item: refuse before writing anything
        raise QuestionClosed(topic)
    if not callable(value):
        _require_fit(kind, value)
    subject = {"item": item} if item is not None else {"nugget": nugget}
    if expected_version is not None and not callable(value) and fastsave.available():
        return _fast_save(user, topic, kind, role, value, expected_version, subject, keep)  # its statement checks
    with transaction.atomic():
        current = Judgment.objects.select_for_update(of=("self",)).filter(kind=kind, assessor=user, **subject).first()
        refuse_if_closed(topic)  # checked under the lock: a closure committed after any earlier read counts
        if current is None:
            if expected_version:
                raise StaleJudgment(None)
            if callable(value):
                value = _require_fit(kind, value(None))
            judgment = Judgment(
                evaluation_id=topic.evaluation_id,
                topic=topic,
                kind=kind,
                assessor=user,
                role=role,
                value=value,
                version=1,
                **subject,
            )
            try:
                with transaction.atomic():
                    judgment.save(force_insert=True)
            except IntegrityError:  # another tab created it between our read and our insert
                raise StaleJudgment(
                    Judgment.objects.select_related("assessor").get(kind=kind, assessor=user, **subject)
                ) from None
            before = None
        else:
            if expected_version is not None and current.version != expected_version:
                raise StaleJudgment(current)
            value = _require_fit(kind, value(current.value)) if callable(value) else _kept(value, current.value, keep)
            if current.value == value and current.role == role:
                return Saved(current, changed=False, before=current.value)
            before = current.value
            current.value, current.role, current.version = value, role, current.version + 1
            current.save(update_fields=["value", "role", "version", "updated_at"])
            judgment = current
        JudgmentChange.objects.create(
            judgment=judgment, changed_by=user, version=judgment.version, before=before, after=value
        )
        mark_stale(topic)
    return Saved(judgment, changed=True, before=before)


def rewrite_values(user, judgments, new_value_of):
    """Rewrite the values of `judgments` (anyone's) that a change of structure touches: a class merge or split
    moves instances between answer classes, a nugget merge or delete rewrites the matches that name it.

    `new_value_of(value)` gives each judgment's new value; a judgment whose value stays is left alone. Every new
    value is checked against its kind before anything is written (one that does not fit: JudgingError, nothing
    changed), a closed question is refused (QuestionClosed), and each change bumps the version and is recorded
    as a JudgmentChange by `user`, with the topics marked stale in the same transaction. Pass the judgments
    locked (select_for_update); a queryset is read inside this transaction. Returns the changed judgments.
    """
    from pooling.models import Topic

    with transaction.atomic():
        changes = []
        for judgment in judgments:
            after = new_value_of(judgment.value)
            if after != judgment.value:
                changes.append((judgment, _require_fit(judgment.kind, after)))
        topics = list(Topic.objects.filter(pk__in={judgment.topic_id for judgment, _ in changes}))
        for topic in topics:
            refuse_if_closed(topic)
        for judgment, after in changes:
            before = judgment.value
            judgment.value, judgment.version = after, judgment.version + 1
            judgment.save(update_fields=["value", "version", "updated_at"])
            JudgmentChange.objects.create(
                judgment=judgment, changed_by=user, version=judgment.version, before=before, after=after
            )
        mark_stale_many(topics)
    return [judgment for judgment, _ in changes]


def _kept(value, current, keep):
    """`value` with the `keep` keys of the current value (a key the current value lacks is None)."""
    if not keep:
        return value
    return {**value, **{key: (current or {}).get(key) for key in keep}}


def _require_fit(kind, value):
    """The value, if it fits its kind's declared shape (assess.kinds); a 400 naming what is wrong otherwise."""
    try:
        check_value(kind, value)
    except InvalidValue as exc:
        raise JudgingError(str(exc)) from None
    return value


def _fast_save(user, topic, kind, role, value, expected_version, subject, keep):
    """save_judgment in one statement (assess.fastsave); reads the row only when nothing was written."""
    written = fastsave.write(
        user, topic=topic, kind=kind, role=role, value=value, expected_version=expected_version, keep=keep, **subject
    )
    if written is not None:
        judgment, before = written
        request_rescoring(topic.evaluation_id)  # the stale mark is already written by the same statement
        return Saved(judgment, changed=True, before=before)
    refuse_if_closed(topic)  # closed between load_item and the write: the statement refused it
    current = Judgment.objects.select_related("assessor").filter(kind=kind, assessor=user, **subject).first()
    if current is None or current.version != expected_version:
        raise StaleJudgment(current)
    return Saved(current, changed=False, before=current.value)  # the same value and role again: nothing recorded


# --- adjudication: one decision per item ----------------------------------------------------------------------


def claim_decision(user, item, kind):
    """One decision per item: lock the pool item (so two adjudicators deciding at once are serialised) and refuse
    with AlreadyDecided when someone else's decision of this kind exists. Call inside transaction.atomic(); the
    caller's own decision is then saved with its version check (assess.adjudication.decide for BOLT citations and
    BioGen items, tracks/qa/adjudication.py for QA instances)."""
    from pooling.models import PoolItem

    PoolItem.objects.select_for_update(of=("self",)).filter(pk=item.pk).first()
    other = (
        Judgment.objects.select_related("assessor")
        .filter(kind=kind, item_id=item.pk, role=Judgment.ADJUDICATED)
        .exclude(assessor=user)
        .first()
    )
    if other is not None:
        raise AlreadyDecided(other)


# --- organizer -------------------------------------------------------------------------------------------------


def log_structure_change(topic, user, action, before=None, after=None):
    """Record a change that is no judgment (a class, a nugget, a closure) in the question's StructureChange log."""
    StructureChange.objects.create(topic=topic, actor=user, action=action, before=before, after=after)


def _require_organizer(user):
    if not has_role(user, ORGANIZER):
        raise Forbidden("only an organizer may do this")


def close_question(user, question):
    """Close a question (or a whole series): its judgments can no longer change until reopened."""
    _require_organizer(user)
    with transaction.atomic():
        closure, created = TopicClosure.objects.get_or_create(topic=question, defaults={"closed_by": user})
        if created:
            log_structure_change(question, user, "question.close", after={"closed_at": timezone.now().isoformat()})
    return closure


def reopen_question(user, question):
    _require_organizer(user)
    with transaction.atomic():
        deleted, _ = TopicClosure.objects.filter(topic=question).delete()
        if deleted:
            log_structure_change(question, user, "question.reopen")


def invite(user, evaluation, invitee, kind, series=None):
    """Invite `invitee` as a nugget voter on `series` or as an adjudicator of `evaluation`. Inviting the series'
    primary assessor as a voter asks them for a later vote set (see ask_revote)."""
    _require_organizer(user)
    if kind == Invitation.VOTER and series is None:
        raise JudgingError("a voter is invited to a series")
    invitation, _ = Invitation.objects.get_or_create(
        evaluation=evaluation,
        topic=series if kind == Invitation.VOTER else None,
        user=invitee,
        kind=kind,
        defaults={"invited_by": user},
    )
    return invitation


def ask_revote(user, series):
    """Ask the primary assessor of `series` to vote vital/okay on its nuggets again: their later votes are a vote
    set of their own ("nugget_revote") beside the first one, as TREC 2006/2007 had the primary vote twice."""
    _require_organizer(user)
    primary = Assignment.objects.filter(topic=series, role=Assignment.PRIMARY).select_related("assessor").first()
    if primary is None:
        raise JudgingError(f"series {series.ident} has no primary assessor to vote again")
    return invite(user, series.evaluation, primary.assessor, Invitation.VOTER, series)


def assign_secondary(user, series, assessor):
    """Ask for double judging of a series: `assessor` judges its instances independently of the primary."""
    _require_organizer(user)
    if Assignment.objects.filter(topic=series, assessor=assessor).exists():
        raise JudgingError(f"{assessor.username} is already assigned to series {series.ident}")
    held = Assignment.objects.filter(topic=series, role=Assignment.SECONDARY).select_related("assessor").first()
    if held is not None:
        raise JudgingError(f"series {series.ident} already has a second assessor, {held.assessor.username}")
    try:
        with transaction.atomic():  # another organizer's request may have added one since (the unique constraint)
            return Assignment.objects.create(
                evaluation=series.evaluation, topic=series, assessor=assessor, role=Assignment.SECONDARY
            )
    except IntegrityError:
        raise JudgingError(f"series {series.ident} already has a second assessor") from None
