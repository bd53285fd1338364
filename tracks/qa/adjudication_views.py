"""QA adjudication pages: the queue of instance labels the two assessors of a series disagree on, both labels side
by side, and the decision (tracks.qa.adjudication). Organizers and the adjudicators they invited work through it."""

from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from assess import documents, judging
from assess.models import AnswerClass, Judgment
from config import params
from config.roles import ASSESSOR, ORGANIZER, role_required
from pooling.models import Evaluation, PoolItem
from tracks.qa import adjudication as decisions
from tracks.qa import questions
from tracks.qa.instance_judging import KEEP


@role_required(ORGANIZER, ASSESSOR)
def adjudication(request, slug):
    """Who: organizers and the adjudicators they invited, for series they did not judge themselves. Each
    disagreement with both labels side by side, and the decision."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    if not judging.may_adjudicate(request.user, evaluation):
        raise Http404("you are not an adjudicator of this evaluation")
    rows = decisions.adjudication_queue(evaluation, user=request.user)
    labels = questions.instance_labels(evaluation)
    classes = {}
    for item, *_ in rows:
        if questions.is_list_question(item.topic) and item.topic_id not in classes:
            classes[item.topic_id] = list(AnswerClass.objects.filter(topic_id=item.topic_id))
    entries = [
        _entry(evaluation, item, first, second, decided, classes.get(item.topic_id))
        for item, first, second, decided in rows
    ]
    return render(
        request,
        "qa/adjudication.html",
        {
            "evaluation": evaluation,
            "entries": entries,
            "labels": labels,
            "open": sum(1 for e in entries if e["decided"] is None),
        },
    )


def _entry(evaluation, item, first, second, decided, classes, error=None):
    item.evaluation = evaluation
    return {
        "item": item,
        "primary": first,
        "secondary": second,
        "decided": decided,
        "classes": classes,
        "frame_url": documents.frame_url(evaluation, item.docid, marks=(item.text,)),
        "labels": questions.labels_for(item, evaluation),
        "version": decided.version if decided else 0,
        "error": error,
    }


@role_required(ORGANIZER, ASSESSOR)
@require_POST
def adjudicate(request, item_id):
    """Who: organizers and invited adjudicators who did not judge the item's series. Decide one disagreement."""
    item = get_object_or_404(PoolItem.objects.select_related("topic", "evaluation"), pk=item_id)
    if not judging.may_adjudicate(request.user, item.evaluation):
        raise Http404("you are not an adjudicator of this evaluation")
    status, error = 200, None
    try:
        answer_class = params.optional_integer(request.POST.get("answer_class"), "answer_class")
        version = params.version(request.POST.get("version"))
        decisions.adjudicate(
            request.user,
            item,
            params.text(request.POST.get("label"), "label"),
            version,
            answer_class=KEEP if answer_class is None else answer_class,
        )
    except params.BadParameter as bad:
        status, error = 400, str(bad)
    except judging.JudgingError as refused:
        status, error = refused.status, str(refused)
    judgments = {j.role: j for j in Judgment.objects.filter(kind="instance", item=item).select_related("assessor")}
    classes = list(AnswerClass.objects.filter(topic=item.topic)) if questions.is_list_question(item.topic) else None
    entry = _entry(
        item.evaluation,
        item,
        judgments.get(Judgment.PRIMARY),
        judgments.get(Judgment.SECONDARY),
        judgments.get(Judgment.ADJUDICATED),
        classes,
        error,
    )
    return render(request, "qa/_adjudication_row.html", {"e": entry}, status=status)
