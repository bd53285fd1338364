"""Which factoid questions have NIL as their answer (seed 001: "NIL responses were correct only if there was no
known answer to the question in the collection").

NIL responses are not pooled, so by default the judgments decide (tracks.qa.scorer.nil_state): NIL is right once
every pooled answer of the question is judged and none shows a known answer. An organizer who knows better (the
assessor found an answer no run returned, or a judged answer turns out to hold none) marks the question's answer
as NIL or as not NIL, or hands it back to the judgments. Each change is kept in the question's StructureChange log
(who, when, before, after, reason) and the question is rescored live.
"""

from django.db import transaction

from assess.judging import Forbidden, log_structure_change
from assess.models import StructureChange
from config.roles import ORGANIZER, has_role
from pooling.models import Topic
from pooling.staleness import mark_stale
from tracks.qa.scorer import FACTOID_TYPES, nil_states

ACTION = "question.answer_is_nil"
# The three decisions an organizer can take, as written on the page and the command line.
CHOICES = {"nil": True, "answer": False, "auto": None}


class NilError(ValueError):
    """A decision that cannot be taken (the question is no factoid, the track allows no NIL)."""


def nil_allowed(evaluation):
    return bool(evaluation.setting("allow_nil", False))


def factoid_questions(evaluation):
    return list(
        Topic.objects.filter(evaluation=evaluation, kind__in=FACTOID_TYPES)
        .select_related("parent")
        .order_by("position", "id")
    )


def nil_rows(evaluation):
    """One row per factoid question: the question, its NIL state (explicit, known_answer, fully_judged,
    answer_is_nil) and the last recorded decision (a StructureChange, or None)."""
    questions = factoid_questions(evaluation)
    states = nil_states(questions)
    last = {}
    for change in (
        StructureChange.objects.filter(topic__in=questions, action=ACTION)
        .select_related("actor")
        .order_by("topic_id", "at", "id")
    ):
        last[change.topic_id] = change
    return [{"question": q, **states[q.pk], "last": last.get(q.pk)} for q in questions]


def set_answer_is_nil(user, question, choice, reason=""):
    """Record the organizer's decision on `question` ("nil", "answer" or "auto") and rescore it. Returns True when
    something changed (the same decision twice records nothing)."""
    if not has_role(user, ORGANIZER):
        raise Forbidden("only an organizer may decide whether a question's answer is NIL")
    if choice not in CHOICES:
        raise NilError(f"unknown decision {choice!r}; expected one of {', '.join(CHOICES)}")
    if question.kind not in FACTOID_TYPES:
        raise NilError(f"question {question.ident} is a {question.kind} question; NIL answers factoid questions only")
    if not nil_allowed(question.evaluation):
        raise NilError(f"{question.evaluation.track_spec.title} allows no NIL responses (setting allow_nil)")
    value = CHOICES[choice]
    with transaction.atomic():
        locked = Topic.objects.select_for_update(of=("self",)).get(pk=question.pk)
        data = dict(locked.data or {})
        before = data.get("answer_is_nil")
        if before == value:
            return False
        if value is None:
            data.pop("answer_is_nil", None)
        else:
            data["answer_is_nil"] = value
        locked.data = data
        locked.save(update_fields=["data"])
        log_structure_change(
            locked,
            user,
            ACTION,
            before={"answer_is_nil": before},
            after={"answer_is_nil": value, "reason": reason.strip()},
        )
        mark_stale(locked)
    question.data = data
    return True
