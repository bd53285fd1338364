"""Adjudication of QA instance labels: the queue of items the two assessors of a double-judged series labelled
differently (core.extension_points.adjudication_queue), and the third person's decision on one of them, which then
counts (assess.official). Nugget questions are the primary assessor's alone: nothing of theirs is adjudicated.
"""

from django.db import transaction

from assess.judging import (
    Forbidden,
    JudgingError,
    NotInQueue,
    assignment_role,
    claim_decision,
    may_adjudicate,
    save_judgment,
    series_id,
)
from assess.models import Assignment, Judgment
from assess.progress import paired_instance_labels
from tracks.qa import questions
from tracks.qa.instance_judging import KEEP, class_of


def adjudication_queue(evaluation, user=None):
    """Items the two assessors labelled differently: [(item, primary, secondary, adjudicated or None)].

    With `user`, series the user judged are left out (a third person adjudicates)."""
    mine = set()
    if user is not None:
        mine = set(Assignment.objects.filter(evaluation=evaluation, assessor=user).values_list("topic_id", flat=True))
    out = []
    for question, first, second, roles in paired_instance_labels(evaluation):
        if series_id(question) in mine or question.id in mine:
            continue
        if first.value.get("label") != second.value.get("label"):
            out.append((first.item, first, second, roles.get(Judgment.ADJUDICATED)))
    out.sort(key=lambda row: (row[0].topic.position, row[0].position, row[0].pk))
    return out


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
        raise NotInQueue(
            f"question {question.ident} is a {question.kind} question: its nuggets, votes and "
            f"matches are the primary assessor's, there is nothing to adjudicate"
        )
    allowed = questions.labels_for(item, evaluation)
    if label not in allowed:
        raise JudgingError(f"unknown label {label!r} for pool item {item.pk}; allowed: {', '.join(allowed)}")
    class_id = None
    if label == questions.class_label(evaluation) and questions.is_list_question(question):
        if answer_class is KEEP:
            primary = Judgment.objects.filter(kind="instance", item=item, role=Judgment.PRIMARY).first()
            class_id = primary.value.get("answer_class") if primary else None
        elif answer_class:
            class_id = class_of(question, answer_class)
    with transaction.atomic():
        claim_decision(user, item, "instance")
        _require_instance_disagreement(item)  # under the item's lock, like the decision itself
        return save_judgment(
            user,
            topic=question,
            kind="instance",
            item=item,
            role=Judgment.ADJUDICATED,
            value={"label": label, "answer_class": class_id},
            expected_version=expected_version,
        )


def _require_instance_disagreement(item):
    """Only an item of the adjudication queue (adjudication_queue: a primary and a second label that differ) may
    get a decision; anything else would overwrite an official judgment nobody disputes."""
    labels = dict(
        Judgment.objects.filter(
            kind="instance", item_id=item.pk, role__in=[Judgment.PRIMARY, Judgment.SECONDARY]
        ).values_list("role", "value__label")
    )
    if len(labels) < 2:
        raise NotInQueue(f"pool item {item.pk} is not in the adjudication queue: it was not judged by two assessors")
    if labels[Judgment.PRIMARY] == labels[Judgment.SECONDARY]:
        raise NotInQueue(
            f"pool item {item.pk} is not in the adjudication queue: both assessors judged it {labels[Judgment.PRIMARY]}"
        )
