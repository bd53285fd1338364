"""QA's part of the judging pages' search panel (assess.search_panel): a result opened from a search becomes an
assessor-found answer — the answer string typed or selected, the result's docid — saved by
instance_judging.add_found_answer (judged correct in the same step; on a list question, in a new class)."""

from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from assess.judging import JudgingError
from assess.models import Assignment
from config import params
from config.roles import assessor_required
from tracks.qa import instance_judging, questions
from tracks.qa.access import my_assignment, question_of


def context(request, assignment, topic, document):
    """The form under an opened result: only the primary may add answers (they shape the classes)."""
    question = topic if topic.parent_id else None
    return {
        "found_url": reverse("qa:search_found", args=[assignment.pk]),
        "found_question": question,
        "found_allowed": assignment.role == Assignment.PRIMARY
        and question is not None
        and questions.is_instance_question(question),
    }


def found(request, assignment, topic, document):
    """What a search result can become (core.extension_points.search_found): (template, context)."""
    return "qa/_search_found.html", context(request, assignment, topic, document)


@require_POST
@assessor_required
def search_found(request, pk):
    """Who: the primary assessor of this assignment. Add an answer found by a search of the collection (the docid
    of the opened result, the answer string typed or selected): judged correct at once."""
    assignment = my_assignment(request, pk)
    post = request.POST
    try:
        question = question_of(assignment, params.integer(post.get("question"), "question"))
        item = instance_judging.add_found_answer(
            request.user, question, params.text(post.get("docid"), "docid"), params.text(post.get("text"), "text")
        )
    except params.BadParameter as bad:
        return render(request, "qa/_search_found_result.html", {"error": str(bad)}, status=400)
    except JudgingError as refused:
        return render(request, "qa/_search_found_result.html", {"error": str(refused)}, status=refused.status)
    return render(request, "qa/_search_found_result.html", {"item": item, "question": question})
