"""Answer classes of a list question (rename, merge, split) and answers the assessor found: the primary's panel
beside instance judging. Every write goes through tracks.qa.instance_judging."""

from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from assess.judging import JudgingError
from assess.models import AnswerClass, Assignment
from config import params
from config.roles import assessor_required
from tracks.qa import instance_judging, questions
from tracks.qa.access import my_assignment, question_of
from tracks.qa.panels import classes_context


def _primary_question(request, pk, qid):
    assignment = my_assignment(request, pk)
    if assignment.role != Assignment.PRIMARY:
        raise Http404("answer classes are the primary assessor's")
    question = question_of(assignment, qid)
    if not questions.is_instance_question(question):
        raise Http404("this question has no answer classes")
    return assignment, question


def _render(request, assignment, question, message=None, error=None, status=200):
    return render(request, "qa/_classes.html", classes_context(assignment, question, message, error), status=status)


@assessor_required
def classes(request, pk, qid):
    """Who: the primary assessor of this assignment. The question's answer classes with their instances."""
    assignment, question = _primary_question(request, pk, qid)
    return _render(request, assignment, question)


@assessor_required
@require_POST
def class_action(request, pk, qid, class_id, action):
    """Who: the primary assessor of this assignment. Rename, merge into, or split an answer class."""
    assignment, question = _primary_question(request, pk, qid)
    answer_class = get_object_or_404(AnswerClass, pk=class_id, topic=question)
    answer_class.topic = question
    post = request.POST
    try:
        if action == "rename":
            instance_judging.rename_class(request.user, answer_class, params.text(post.get("label"), "label"))
            message = "renamed"
        elif action == "merge":
            ids = params.integers(post.getlist("sources"), "sources")
            sources = list(AnswerClass.objects.filter(topic=question, pk__in=ids))
            if not sources:
                raise JudgingError("choose the classes to merge into this one")
            instance_judging.merge_classes(request.user, answer_class, sources)
            message = f"merged {len(sources)} class(es) into “{answer_class.label}”"
        elif action == "split":
            new = instance_judging.split_class(
                request.user,
                answer_class,
                params.integers(post.getlist("items"), "items"),
                params.text(post.get("label"), "label"),
            )
            message = f"split off “{new.label}”"
        else:
            raise Http404("unknown class action")
    except params.BadParameter as bad:
        return _render(request, assignment, question, error=str(bad), status=400)
    except JudgingError as refused:
        return _render(request, assignment, question, error=str(refused), status=refused.status)
    return _render(request, assignment, question, message=message)


@assessor_required
@require_POST
def found_answer(request, pk, qid):
    """Who: the primary assessor of this assignment. Add an answer found while developing the question."""
    assignment, question = _primary_question(request, pk, qid)
    post = request.POST
    try:
        item = instance_judging.add_found_answer(
            request.user,
            question,
            params.text(post.get("docid"), "docid"),
            params.text(post.get("text"), "text"),
            params.optional_integer(post.get("answer_class"), "answer_class"),
        )
    except params.BadParameter as bad:
        return _render(request, assignment, question, error=str(bad), status=400)
    except JudgingError as refused:
        return _render(request, assignment, question, error=str(refused), status=refused.status)
    return _render(request, assignment, question, message=f"added [{item.docid}, “{item.text}”] as correct")
