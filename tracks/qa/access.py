"""Which assignment and question a QA judging page is about: the request user's own assignment and a question of
its series, or 404. Shared by the instance, class, nugget and search pages."""

from django.http import Http404
from django.shortcuts import get_object_or_404

from assess.models import Assignment
from pooling.models import Topic


def my_assignment(request, pk):
    """The request user's own assignment, or 404: another assessor's assignment does not exist for them."""
    return get_object_or_404(Assignment.objects.select_related("evaluation", "topic"), pk=pk, assessor=request.user)


def series_questions(assignment):
    series = assignment.topic
    children = list(Topic.objects.filter(parent=series).order_by("position"))
    return children or [series]


def question_of(assignment, qid):
    for question in series_questions(assignment):
        if question.pk == qid:
            question.evaluation = assignment.evaluation
            return question
    raise Http404("no such question in this assignment")
