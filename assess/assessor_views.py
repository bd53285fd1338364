"""The assessor's pages of every track: their assignments and invitations, and the history of their judgments
(organizers see everyone's). A track's own judging pages hang off these (Track.assignment_page)."""

from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from assess import assist, judging, preferences, progress
from assess.models import AnswerClass, Assignment, Invitation, JudgmentChange, Nugget, StructureChange
from config.roles import ASSESSOR, ORGANIZER, assessor_required, has_role, role_required
from pooling.models import PoolItem, Topic


@assessor_required
def my_assignments(request):
    """Who: assessors. Their home page: the series assigned to them, and nothing of anyone else's."""
    assignments = list(Assignment.objects.filter(assessor=request.user).select_related("evaluation", "topic"))
    done = progress.assignment_progress(assignments)
    times = progress.my_time(request.user)
    overall = progress.Progress()
    for a in assignments:
        a.judged, a.total = done[a.pk]
        a.progress = progress.Progress(*done[a.pk], (times.get(a.topic_id) or {}).get("per_item"))
        overall += a.progress
    overall.seconds_per_item = (times.get(None) or {}).get("per_item")
    invitations = list(Invitation.objects.filter(user=request.user).select_related("evaluation", "topic"))
    primary_of = {a.topic_id for a in assignments if a.role == Assignment.PRIMARY}
    for inv in invitations:
        inv.revote = inv.kind == Invitation.VOTER and inv.topic_id in primary_of  # the primary's later vote set
    return render(
        request,
        "assess/my_assignments.html",
        {"assignments": assignments, "invitations": invitations, "overall": overall},
    )


@role_required(ASSESSOR, ORGANIZER)
def item_history(request, item_id):
    """Who: the assessor who judged the item sees the history of their own judgments; organizers see all."""
    item = get_object_or_404(PoolItem.objects.select_related("topic"), pk=item_id)
    changes = JudgmentChange.objects.filter(judgment__item=item).select_related("judgment", "changed_by")
    if not has_role(request.user, ORGANIZER):
        if judging.assignment_role(request.user, item.topic) is None:
            raise Http404("no such pool item among your assignments")
        changes = changes.filter(judgment__assessor=request.user)
    changes = list(changes.order_by("-changed_at", "-id"))
    shown = assist.shown_versions(item)  # a save after a suggestion was shown is marked (issue 30)
    for c in changes:
        line = shown.get((c.judgment.assessor_id, c.judgment.kind))
        c.assisted = line is not None and c.version > line
    return render(request, "assess/_history.html", {"item": item, "changes": changes, "names": _names(item.topic_id)})


def _names(topic_id):
    """What the history names values by (assess.kinds.in_words): the question's answer classes and nuggets."""
    return {
        "answer_class": dict(AnswerClass.objects.filter(topic_id=topic_id).values_list("pk", "label")),
        "nuggets": dict(Nugget.objects.filter(topic_id=topic_id).values_list("pk", "text")),
    }


@role_required(ASSESSOR, ORGANIZER)
def question_history(request, qid):
    """Who: the question's assessors (their own judgments) and organizers (everything, structure changes too)."""
    question = get_object_or_404(Topic.objects.select_related("evaluation", "parent"), pk=qid)
    changes = JudgmentChange.objects.filter(judgment__topic=question).select_related(
        "judgment", "judgment__item", "judgment__nugget", "changed_by"
    )
    structure = StructureChange.objects.filter(topic=question).select_related("actor")
    if not has_role(request.user, ORGANIZER):
        role = judging.assignment_role(request.user, question)
        if role is None:
            raise Http404("no such question among your assignments")
        changes = changes.filter(judgment__assessor=request.user)
        if role != Assignment.PRIMARY:
            structure = structure.none()
    return render(
        request,
        "assess/history.html",
        {
            "question": question,
            "changes": changes.order_by("-changed_at", "-id")[:500],
            "structure": structure.order_by("-at", "-id")[:500],
            "names": _names(question.pk),
        },
    )


@assessor_required
@require_POST
def auto_advance(request):
    """Who: assessors, their own preference only. Turn auto-advance on (auto_advance=1) or off (0) for every
    judging page and browser; answers JSON with the stored setting (the checkbox beside the key list posts it)."""
    value = request.POST.get("auto_advance")
    if value not in ("0", "1"):
        return JsonResponse({"error": f"auto_advance must be 1 (on) or 0 (off), not {value!r}"}, status=400)
    preferences.set_auto_advance(request.user, value == "1")
    return JsonResponse({"auto_advance": value == "1"})
