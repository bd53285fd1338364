"""Every save an assessor, voter, adjudicator or organizer makes while judging: one function per save.

Each function runs in one transaction, refuses changes to closed questions, records who/when/before/after
(JudgmentChange for judgments, StructureChange for classes, nuggets and closures), and marks the question's scores
stale in the same transaction (scoring.staleness.mark_stale). Judgments carry a version: the caller passes the
version it last saw (0 for "none yet"), and a save made against an older version is refused with StaleJudgment,
which carries the newer judgment so the page can show it. Views and commands call these; nothing else writes
judgments.
"""
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, Subquery
from django.utils import timezone

from assess import fastsave, questions
from assess.official import REVOTE, VOTE
from assess.models import (AnswerClass, Assignment, Invitation, Judgment, JudgmentChange, Nugget, StructureChange,
                           TopicClosure)
from config.roles import ORGANIZER, has_role
from scoring.staleness import mark_stale, request_rescoring

KEEP = object()  # "leave the answer class as it is"


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
        super().__init__(f"not saved: this judgment was changed elsewhere since you opened it{version}; "
                         f"the newer value is shown")


class AlreadyDecided(StaleJudgment):
    """Another adjudicator has decided this item: one decision per item, only its author may change it."""

    def __init__(self, current):
        self.current = current
        JudgingError.__init__(self, f"not saved: {current.assessor.username} already decided this item "
                                    f"(version {current.version}); one decision counts per item, so only "
                                    f"{current.assessor.username} can change it")


@dataclass
class Saved:
    judgment: Judgment
    changed: bool  # False when the value was already what the caller asked for (nothing written)


# --- who may do what -------------------------------------------------------------------------------------------

def assignment_role(user, question):
    """"primary", "secondary" or None: the user's assignment on the question's series."""
    return (Assignment.objects.filter(assessor=user, topic_id__in={question.id, questions.series_id(question)})
            .values_list("role", flat=True).first())


def may_adjudicate(user, evaluation):
    return has_role(user, ORGANIZER) or Invitation.objects.filter(
        evaluation=evaluation, user=user, kind=Invitation.ADJUDICATOR).exists()


def may_vote(user, question):
    sid = questions.series_id(question)
    return (Assignment.objects.filter(assessor=user, topic_id=sid, role=Assignment.PRIMARY).exists()
            or Invitation.objects.filter(topic_id=sid, user=user, kind=Invitation.VOTER).exists())


def revote_asked(user, question):
    """Whether the organizer asked `user`, the primary assessor of the question's series, for a later vote set
    (a voter invitation of the primary on their own series; TREC 2006/2007's ninth vote set)."""
    sid = questions.series_id(question)
    return (Assignment.objects.filter(assessor=user, topic_id=sid, role=Assignment.PRIMARY).exists()
            and Invitation.objects.filter(topic_id=sid, user=user, kind=Invitation.VOTER).exists())


def may_edit_structure(user, question):
    """Answer classes and nuggets are the primary assessor's (an organizer or adjudicator may fix them)."""
    role = assignment_role(user, question)
    return role == Assignment.PRIMARY or (role is None and may_adjudicate(user, question.evaluation))


def _require_structure(user, question):
    if not may_edit_structure(user, question):
        raise Forbidden(f"only the primary assessor of series {_series_ident(question)} may change its "
                        f"answer classes and nuggets")
    _refuse_if_closed(question)


def _series_ident(question):
    return question.parent.ident if question.parent_id else question.ident


def is_closed(question):
    return TopicClosure.objects.filter(topic_id__in={question.id, questions.series_id(question)}).exists()


def _refuse_if_closed(question, closed=None):
    if closed is None:
        closed = is_closed(question)
    if closed:
        raise QuestionClosed(question)


def load_item(user, item_id):
    """A pool item with its question and evaluation, plus — in the same query — whether the question is closed
    (`closed`) and the user's assignment role on its series (`my_role`). The save path's only read; raises
    PoolItem.DoesNotExist."""
    from pooling.models import PoolItem

    if fastsave.available():
        item = fastsave.load_item(user.pk, item_id)
        if item is None:
            raise PoolItem.DoesNotExist(f"no pool item {item_id}")
        return item
    closure = TopicClosure.objects.filter(Q(topic_id=OuterRef("topic_id")) | Q(topic_id=OuterRef("topic__parent_id")))
    role = Assignment.objects.filter(
        Q(topic_id=OuterRef("topic_id")) | Q(topic_id=OuterRef("topic__parent_id")), assessor_id=user.pk
    ).order_by().values("role")[:1]
    return (PoolItem.objects.select_related("topic", "evaluation").order_by()
            .annotate(closed=Exists(closure), my_role=Subquery(role)).get(pk=item_id))


# --- the one judgment writer -----------------------------------------------------------------------------------

def save_judgment(user, *, topic, kind, role, value, expected_version, item=None, nugget=None, closed=None):
    """Write one judgment of `user` on a pool item or a nugget, checked against the version the caller saw.

    The generic writer every track uses (BOLT citations too); callers have already checked that `user` may judge
    this subject in `role` and that `value` fits the kind. `expected_version` None skips the check (only for
    organizer-side bulk changes made under lock, such as class merges). `value` may be a function of the current
    value (None if there is none), applied under the row lock. Returns Saved.
    """
    if closed:  # the caller read the closure with the item: refuse before writing anything
        raise QuestionClosed(topic)
    subject = {"item": item} if item is not None else {"nugget": nugget}
    if expected_version is not None and not callable(value) and fastsave.available():
        return _fast_save(user, topic, kind, role, value, expected_version, subject)  # its statement checks
    with transaction.atomic():
        current = (Judgment.objects.select_for_update(of=("self",))
                   .filter(kind=kind, assessor=user, **subject).first())
        _refuse_if_closed(topic)  # checked under the lock: a closure committed after any earlier read counts
        if current is None:
            if expected_version:
                raise StaleJudgment(None)
            if callable(value):
                value = value(None)
            judgment = Judgment(evaluation_id=topic.evaluation_id, topic=topic, kind=kind, assessor=user,
                                role=role, value=value, version=1, **subject)
            try:
                with transaction.atomic():
                    judgment.save(force_insert=True)
            except IntegrityError:  # another tab created it between our read and our insert
                raise StaleJudgment(Judgment.objects.select_related("assessor")
                                    .get(kind=kind, assessor=user, **subject)) from None
            before = None
        else:
            if expected_version is not None and current.version != expected_version:
                raise StaleJudgment(current)
            if callable(value):
                value = value(current.value)
            if current.value == value and current.role == role:
                return Saved(current, changed=False)
            before = current.value
            current.value, current.role, current.version = value, role, current.version + 1
            current.save(update_fields=["value", "role", "version", "updated_at"])
            judgment = current
        JudgmentChange.objects.create(judgment=judgment, changed_by=user, version=judgment.version,
                                      before=before, after=value)
        mark_stale(topic)
    return Saved(judgment, changed=True)


def _fast_save(user, topic, kind, role, value, expected_version, subject):
    """save_judgment in one statement (assess.fastsave); reads the row only when nothing was written."""
    judgment = fastsave.write(user, topic=topic, kind=kind, role=role, value=value,
                              expected_version=expected_version, **subject)
    if judgment is not None:
        request_rescoring(topic.evaluation_id)  # the stale mark is already written by the same statement
        return Saved(judgment, changed=True)
    _refuse_if_closed(topic)  # closed between load_item and the write: the statement refused it
    current = Judgment.objects.select_related("assessor").filter(kind=kind, assessor=user, **subject).first()
    if current is None or current.version != expected_version:
        raise StaleJudgment(current)
    return Saved(current, changed=False)  # the same value and role again: nothing to record


# --- instance judgments and answer classes ---------------------------------------------------------------------

def judge_instance(user, item, label, expected_version, answer_class=KEEP):
    """Label one pool item of a factoid/list question as the user's assignment role (primary or secondary).

    `answer_class` (an AnswerClass id, None, or KEEP) applies only to the class label on a list question and only
    for the primary assessor; any other label clears it. `item` may come from load_item (saves two queries).
    """
    question, evaluation = item.topic, item.evaluation
    role = item.my_role if hasattr(item, "my_role") else assignment_role(user, question)
    if role is None:
        raise Forbidden(f"pool item {item.pk} belongs to a series that is not assigned to you")
    if not questions.is_instance_question(question):
        raise JudgingError(f"question {question.ident} is a {question.kind} question; it is judged with nuggets")
    allowed = questions.labels_for(item, evaluation)
    if label not in allowed:
        raise JudgingError(f"unknown label {label!r} for pool item {item.pk}; allowed: {', '.join(allowed)}")
    value = {"label": label, "answer_class": None}
    classed = questions.is_list_question(question) and role == Assignment.PRIMARY
    if label == questions.class_label(evaluation) and classed:
        if answer_class is KEEP:
            def value(current):
                return {"label": label, "answer_class": (current or {}).get("answer_class")}
        elif answer_class is not None:
            value["answer_class"] = _class_of(question, answer_class)
    return save_judgment(user, topic=question, kind="instance", role=role, item=item, value=value,
                         expected_version=expected_version, closed=getattr(item, "closed", None))


def _class_of(question, answer_class_id):
    class_id = int(answer_class_id)
    if not AnswerClass.objects.filter(pk=class_id, topic=question).exists():
        raise JudgingError(f"answer class {class_id} does not belong to question {question.ident}")
    return class_id


def assign_class(user, item, answer_class_id, expected_version):
    """Put a correct instance into an answer class (it gets the class label if it had another)."""
    label = questions.class_label(item.evaluation)
    return judge_instance(user, item, label, expected_version, answer_class=answer_class_id)


def _log(topic, user, action, before=None, after=None):
    StructureChange.objects.create(topic=topic, actor=user, action=action, before=before, after=after)


def create_class(user, question, label, item=None, expected_version=None):
    """Start an answer class (named `label`, by default the item's answer string); with `item`, put it in."""
    _require_structure(user, question)
    label = (label or (item.text if item is not None else "")).strip()
    if not label:
        raise JudgingError("an answer class needs a name")
    with transaction.atomic():
        answer_class = AnswerClass.objects.create(topic=question, label=label[:500], created_by=user)
        _log(question, user, "class.create", after={"id": answer_class.pk, "label": answer_class.label})
        if item is not None:
            assign_class(user, item, answer_class.pk, expected_version)
        mark_stale(question)
    return answer_class


def rename_class(user, answer_class, label):
    question = answer_class.topic
    _require_structure(user, question)
    label = label.strip()
    if not label:
        raise JudgingError("an answer class needs a name")
    with transaction.atomic():
        _log(question, user, "class.rename", {"id": answer_class.pk, "label": answer_class.label},
             {"id": answer_class.pk, "label": label})
        answer_class.label = label[:500]
        answer_class.save(update_fields=["label"])
    return answer_class


def _move_class_members(user, question, judgments, class_id):
    """Rewrite the class of these instance judgments, each as a recorded change (whoever's judgment it is)."""
    for judgment in judgments:
        before = judgment.value
        judgment.value = dict(before, answer_class=class_id)
        judgment.version += 1
        judgment.save(update_fields=["value", "version", "updated_at"])
        JudgmentChange.objects.create(judgment=judgment, changed_by=user, version=judgment.version,
                                      before=before, after=judgment.value)


def _class_members(question, class_ids):
    return (Judgment.objects.select_for_update(of=("self",)).filter(topic=question, kind="instance")
            .filter(value__answer_class__in=list(class_ids)))


def merge_classes(user, target, sources):
    """Merge the `sources` answer classes into `target`: their instances join it and the sources go."""
    question = target.topic
    _require_structure(user, question)
    sources = [s for s in sources if s.pk != target.pk]
    if any(s.topic_id != question.pk for s in sources):
        raise JudgingError("only classes of the same question can be merged")
    with transaction.atomic():
        _move_class_members(user, question, _class_members(question, [s.pk for s in sources]), target.pk)
        _log(question, user, "class.merge", {"sources": [{"id": s.pk, "label": s.label} for s in sources]},
             {"id": target.pk, "label": target.label})
        AnswerClass.objects.filter(pk__in=[s.pk for s in sources]).delete()
        mark_stale(question)
    return target


def split_class(user, answer_class, item_ids, label):
    """Move the instances of these pool items out of `answer_class` into a new class named `label`."""
    question = answer_class.topic
    _require_structure(user, question)
    item_ids = [int(i) for i in item_ids]
    if not item_ids:
        raise JudgingError("choose the instances that form the new class")
    with transaction.atomic():
        members = list(_class_members(question, [answer_class.pk]).filter(item_id__in=item_ids))
        if not members:
            raise JudgingError(f"none of those items is in class {answer_class.label!r}")
        new = AnswerClass.objects.create(topic=question, label=(label or members[0].item.text).strip()[:500],
                                         created_by=user)
        _move_class_members(user, question, members, new.pk)
        _log(question, user, "class.split", {"id": answer_class.pk, "items": item_ids},
             {"id": new.pk, "label": new.label})
        mark_stale(question)
    return new


def pool_key(docid, text):
    """A QA pool item's identity, as pooling makes it (pooling.formats.qa_run.pool_key): docid, tab, answer string
    with white space collapsed."""
    from pooling.formats.qa_run import collapse

    return f"{docid.strip()}\t{collapse(text)}"


def add_found_answer(user, question, docid, text, answer_class_id=None):
    """An answer the assessor found while developing the question: a pool item of origin "assessor", judged
    correct (class label) and put into a class — a new one named after it unless `answer_class_id` is given — so
    it joins the final answer set. The docid must name a document of the evaluation's collections."""
    from corpus.models import Document
    from pooling.models import PoolItem

    _require_structure(user, question)
    docid, text = docid.strip(), " ".join(text.split())
    if not docid or not text:
        raise JudgingError("a found answer needs both a docid and an answer string")
    evaluation = question.evaluation
    if not Document.objects.filter(docno=docid, collection__evaluations=evaluation).exists():
        raise JudgingError(f"docid {docid!r} is not a document of this evaluation's collections")
    key = pool_key(docid, text)
    with transaction.atomic():
        if PoolItem.objects.filter(topic=question, key=key).exists():
            raise JudgingError(f"[{docid}, {text!r}] is already in the pool of question {question.ident}")
        last = PoolItem.objects.filter(topic=question).order_by("-position").values_list("position", flat=True)
        item = PoolItem.objects.create(evaluation=evaluation, topic=question, key=key, docid=docid, text=text,
                                       origin=PoolItem.ASSESSOR, position=(last.first() or 0) + 1)
        _log(question, user, "answer.found", after={"item": item.pk, "docid": docid, "text": text})
        class_id = None
        if questions.is_list_question(question):
            if answer_class_id:
                class_id = _class_of(question, answer_class_id)
            else:
                class_id = AnswerClass.objects.create(topic=question, label=text[:500], created_by=user).pk
                _log(question, user, "class.create", after={"id": class_id, "label": text[:500]})
        save_judgment(user, topic=question, kind="instance", item=item, role=Judgment.PRIMARY,
                      value={"label": questions.class_label(evaluation), "answer_class": class_id},
                      expected_version=0, closed=False)
    return item


# --- nuggets ---------------------------------------------------------------------------------------------------

def _require_nugget_question(question):
    if not questions.is_nugget_question(question):
        raise JudgingError(f"question {question.ident} is a {question.kind} question; it has no nuggets")


def create_nugget(user, question, text):
    """A nugget typed or taken from selected answer text; it goes to the end of the list. The same text twice
    (white space and case aside) is refused: matches and votes would be split between the copies."""
    from pooling.models import Topic

    _require_nugget_question(question)
    _require_structure(user, question)
    text = text.strip()
    if not text:
        raise JudgingError("a nugget needs some text")
    with transaction.atomic():
        # The question's row serialises its nugget writes (a double click posts twice). NO KEY UPDATE, as the
        # foreign-key checks of rescoring's Score rows (KEY SHARE) on the topic must not wait for it.
        list(Topic.objects.select_for_update(no_key=True, of=("self",)).filter(pk=question.pk).values_list("pk"))
        twin = Nugget.duplicate_of(question, text)
        if twin is not None:
            raise JudgingError(f"nugget {twin[0]} already says “{twin[1].text}”; a second copy would split its "
                               f"matches and votes")
        last = Nugget.objects.filter(topic=question).order_by("-position").values_list("position", flat=True)
        nugget = Nugget.objects.create(topic=question, text=text, position=(last.first() or 0) + 1,
                                       created_by=user)
        _log(question, user, "nugget.create", after={"id": nugget.pk, "text": text})
        mark_stale(question)
    return nugget


def edit_nugget(user, nugget, text):
    from pooling.models import Topic

    question = nugget.topic
    _require_structure(user, question)
    text = text.strip()
    if not text:
        raise JudgingError("a nugget needs some text")
    with transaction.atomic():
        list(Topic.objects.select_for_update(no_key=True, of=("self",)).filter(pk=question.pk)  # as create_nugget
             .values_list("pk"))
        twin = Nugget.duplicate_of(question, text, exclude=nugget.pk)
        if twin is not None:
            raise JudgingError(f"nugget {twin[0]} already says “{twin[1].text}”; merge the two instead")
        _log(question, user, "nugget.edit", {"id": nugget.pk, "text": nugget.text}, {"id": nugget.pk, "text": text})
        nugget.text = text
        nugget.save(update_fields=["text"])
    return nugget


def reorder_nuggets(user, question, ordered_ids):
    """Put the question's nuggets in this order (ids of all of them)."""
    _require_structure(user, question)
    ordered_ids = [int(i) for i in ordered_ids]
    with transaction.atomic():
        nuggets = {n.pk: n for n in Nugget.objects.select_for_update(of=("self",)).filter(topic=question)}
        if sorted(ordered_ids) != sorted(nuggets):
            raise JudgingError("the new order must list every nugget of the question exactly once")
        before = [n.pk for n in sorted(nuggets.values(), key=lambda n: (n.position, n.pk))]
        for position, pk in enumerate(ordered_ids, start=1):
            nuggets[pk].position = position
        Nugget.objects.bulk_update(nuggets.values(), ["position"])
        _log(question, user, "nugget.reorder", {"order": before}, {"order": ordered_ids})
    return [nuggets[pk] for pk in ordered_ids]


def _rewrite_matches(user, question, replace):
    """Apply `replace(list of nugget ids) -> list` to every nugget_match judgment of the question, recorded."""
    for judgment in Judgment.objects.select_for_update(of=("self",)).filter(topic=question, kind="nugget_match"):
        old = list(judgment.value.get("nuggets", []))
        new = replace(old)
        if new != old:
            before = judgment.value
            judgment.value = dict(before, nuggets=new)
            judgment.version += 1
            judgment.save(update_fields=["value", "version", "updated_at"])
            JudgmentChange.objects.create(judgment=judgment, changed_by=user, version=judgment.version,
                                          before=before, after=judgment.value)


def merge_nuggets(user, target, sources):
    """Merge `sources` into `target`: the text of target stays, matches of the sources become matches of target,
    the sources (and their votes) go. The votes' history stays in the StructureChange record."""
    question = target.topic
    _require_structure(user, question)
    sources = [s for s in sources if s.pk != target.pk]
    if any(s.topic_id != question.pk for s in sources):
        raise JudgingError("only nuggets of the same question can be merged")
    gone = {s.pk for s in sources}

    def replace(ids):
        out = []
        for i in ids:
            i = target.pk if i in gone else i
            if i not in out:
                out.append(i)
        return out

    with transaction.atomic():
        _rewrite_matches(user, question, replace)
        votes = list(Judgment.objects.filter(nugget_id__in=gone).values("nugget_id", "kind", "assessor_id",
                                                                          "value"))
        _log(question, user, "nugget.merge",
             {"sources": [{"id": s.pk, "text": s.text} for s in sources], "votes": votes},
             {"id": target.pk, "text": target.text})
        Nugget.objects.filter(pk__in=gone).delete()
        mark_stale(question)
    return target


def delete_nugget(user, nugget, confirmed=False):
    """Delete a nugget with its matches and votes; refused unless `confirmed` (the page asks first)."""
    question = nugget.topic
    _require_structure(user, question)
    if not confirmed:
        raise JudgingError(f"deleting nugget {nugget.text[:40]!r} also removes its matches and votes: confirm")
    with transaction.atomic():
        _rewrite_matches(user, question, lambda ids: [i for i in ids if i != nugget.pk])
        votes = list(Judgment.objects.filter(nugget=nugget).values("kind", "assessor_id", "value"))
        _log(question, user, "nugget.delete", {"id": nugget.pk, "text": nugget.text, "votes": votes})
        nugget.delete()
        mark_stale(question)


def vote(user, nugget, value, expected_version, later=False):
    """A vital/okay vote on a nugget by the primary assessor or an invited voter (pyramid weights).

    `later`: the primary's later vote set ("nugget_revote"), once the organizer asked for it (ask_revote); it
    is a vote set of its own for the pyramid weights while the first vote stays the official vital/okay."""
    question = nugget.topic
    if value not in questions.VOTES:
        raise JudgingError(f"a vote is one of {', '.join(questions.VOTES)}, not {value!r}")
    role = assignment_role(user, question)
    if later:
        if not revote_asked(user, question):
            raise Forbidden(f"the organizer has not asked you for a later vote set on series "
                            f"{_series_ident(question)}")
        return save_judgment(user, topic=question, kind=REVOTE, nugget=nugget, role=Judgment.PRIMARY,
                             value={"vote": value}, expected_version=expected_version)
    if role != Assignment.PRIMARY and not may_vote(user, question):
        raise Forbidden(f"you are not a voter on series {_series_ident(question)}")
    return save_judgment(user, topic=question, kind=VOTE, nugget=nugget,
                         role=Judgment.PRIMARY if role == Assignment.PRIMARY else Judgment.SECONDARY,
                         value={"vote": value}, expected_version=expected_version)


def match(user, item, nugget_ids, expected_version):
    """Which nuggets one [docid, answer-string] pool item holds (none, one or several), by the primary."""
    question = item.topic
    _require_nugget_question(question)
    role = item.my_role if hasattr(item, "my_role") else assignment_role(user, question)
    if role != Assignment.PRIMARY:
        raise Forbidden(f"only the primary assessor of series {_series_ident(question)} matches its nuggets")
    wanted = sorted({int(i) for i in nugget_ids})
    known = set(Nugget.objects.filter(topic=question, pk__in=wanted).values_list("pk", flat=True))
    if len(known) != len(wanted):
        raise JudgingError(f"nuggets {sorted(set(wanted) - known)} are not nuggets of question {question.ident}")
    return save_judgment(user, topic=question, kind="nugget_match", item=item, role=Judgment.PRIMARY,
                         value={"nuggets": wanted}, expected_version=expected_version,
                         closed=getattr(item, "closed", None))


# --- adjudication ----------------------------------------------------------------------------------------------

def adjudicate(user, item, label, expected_version, answer_class=KEEP):
    """The third person's decision on a double-judged instance; it then counts (assess.official).

    On a list question the decided class is `answer_class` if given, else the primary's class when the decision
    is the class label; the adjudicator can start a class with create_class first.
    """
    question, evaluation = item.topic, item.evaluation
    if not may_adjudicate(user, evaluation):
        raise Forbidden("only the organizer or an invited adjudicator decides disagreements")
    if assignment_role(user, question) is not None:
        raise Forbidden("you judged this series yourself; a third person must adjudicate it")
    if not questions.is_instance_question(question):
        raise NotInQueue(f"question {question.ident} is a {question.kind} question: its nuggets, votes and "
                         f"matches are the primary assessor's, there is nothing to adjudicate")
    allowed = questions.labels_for(item, evaluation)
    if label not in allowed:
        raise JudgingError(f"unknown label {label!r} for pool item {item.pk}; allowed: {', '.join(allowed)}")
    class_id = None
    if label == questions.class_label(evaluation) and questions.is_list_question(question):
        if answer_class is KEEP:
            primary = Judgment.objects.filter(kind="instance", item=item, role=Judgment.PRIMARY).first()
            class_id = primary.value.get("answer_class") if primary else None
        elif answer_class:
            class_id = _class_of(question, answer_class)
    with transaction.atomic():
        claim_decision(user, item, "instance")
        _require_instance_disagreement(item)  # under the item's lock, like the decision itself
        return save_judgment(user, topic=question, kind="instance", item=item, role=Judgment.ADJUDICATED,
                             value={"label": label, "answer_class": class_id}, expected_version=expected_version)


def _require_instance_disagreement(item):
    """Only an item of the adjudication queue (assess.progress.adjudication_queue: a primary and a second label
    that differ) may get a decision; anything else would overwrite an official judgment nobody disputes."""
    labels = dict(Judgment.objects.filter(kind="instance", item_id=item.pk,
                                          role__in=[Judgment.PRIMARY, Judgment.SECONDARY])
                  .values_list("role", "value__label"))
    if len(labels) < 2:
        raise NotInQueue(f"pool item {item.pk} is not in the adjudication queue: it was not judged by two "
                         f"assessors")
    if labels[Judgment.PRIMARY] == labels[Judgment.SECONDARY]:
        raise NotInQueue(f"pool item {item.pk} is not in the adjudication queue: both assessors judged it "
                         f"{labels[Judgment.PRIMARY]}")


def claim_decision(user, item, kind):
    """One decision per item: lock the pool item (so two adjudicators deciding at once are serialised) and refuse
    with AlreadyDecided when someone else's decision of this kind exists. Call inside transaction.atomic(); the
    caller's own decision is then saved with its version check (QA instances here, BOLT citations in
    pooling.bolt_adjudication)."""
    from pooling.models import PoolItem

    PoolItem.objects.select_for_update(of=("self",)).filter(pk=item.pk).first()
    other = (Judgment.objects.select_related("assessor")
             .filter(kind=kind, item_id=item.pk, role=Judgment.ADJUDICATED).exclude(assessor=user).first())
    if other is not None:
        raise AlreadyDecided(other)


# --- organizer -------------------------------------------------------------------------------------------------

def _require_organizer(user):
    if not has_role(user, ORGANIZER):
        raise Forbidden("only an organizer may do this")


def close_question(user, question):
    """Close a question (or a whole series): its judgments can no longer change until reopened."""
    _require_organizer(user)
    with transaction.atomic():
        closure, created = TopicClosure.objects.get_or_create(topic=question, defaults={"closed_by": user})
        if created:
            _log(question, user, "question.close", after={"closed_at": timezone.now().isoformat()})
    return closure


def reopen_question(user, question):
    _require_organizer(user)
    with transaction.atomic():
        deleted, _ = TopicClosure.objects.filter(topic=question).delete()
        if deleted:
            _log(question, user, "question.reopen")


def invite(user, evaluation, invitee, kind, series=None):
    """Invite `invitee` as a nugget voter on `series` or as an adjudicator of `evaluation`. Inviting the series'
    primary assessor as a voter asks them for a later vote set (see ask_revote)."""
    _require_organizer(user)
    if kind == Invitation.VOTER and series is None:
        raise JudgingError("a voter is invited to a series")
    invitation, _ = Invitation.objects.get_or_create(
        evaluation=evaluation, topic=series if kind == Invitation.VOTER else None, user=invitee, kind=kind,
        defaults={"invited_by": user})
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
    return Assignment.objects.create(evaluation=series.evaluation, topic=series, assessor=assessor,
                                     role=Assignment.SECONDARY)
