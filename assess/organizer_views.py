"""The organizer's judging pages of every track — progress, time per item, agreement, invitations, double judging,
closing questions — with the size of the track's adjudication queue (core.extension_points.adjudication_queue),
whose page is the track's (Track.adjudication_page)."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from assess import judging, progress
from assess.models import Assignment, Invitation, TopicClosure
from config import params
from config.roles import ASSESSOR, organizer_required
from core import extension_points as ep
from pooling.models import Evaluation, Topic


@organizer_required
def organize_index(request):
    """Who: organizers. The evaluations that have judging, each linked to its judging overview."""
    evaluations = [e for e in Evaluation.objects.all() if e.track_spec.human_judging]
    return render(request, "assess/organize_index.html", {"evaluations": evaluations})


@organizer_required
def overview(request, slug):
    """Who: organizers. Judging progress per assessor and series, time per item, agreement of double judging,
    the adjudication queue's size, invitations and closed questions."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    assignments = list(
        Assignment.objects.filter(evaluation=evaluation)
        .select_related("assessor", "topic")
        .order_by("topic__position", "role")
    )
    done = progress.assignment_progress(assignments)
    times = progress.time_per_assessor(evaluation)
    series_times = progress.time_per_assessor(evaluation, by_series=True)
    for a in assignments:
        a.judged, a.total = done[a.pk]
        a.time = series_times.get((a.assessor_id, a.topic_id))
    per_assessor = {}
    for a in assignments:
        row = per_assessor.setdefault(a.assessor_id, {"user": a.assessor, "judged": 0, "total": 0})
        row["judged"] += a.judged
        row["total"] += a.total
        row["time"] = times.get(a.assessor_id)
    series = list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))
    all_questions = list(Topic.objects.filter(evaluation=evaluation).select_related("parent").order_by("position"))
    closed = set(TopicClosure.objects.filter(topic__evaluation=evaluation).values_list("topic_id", flat=True))
    for q in all_questions:
        q.is_closed, q.closed_by_series = q.pk in closed, q.parent_id in closed
    spec = evaluation.track_spec
    adjudication_queue = ep.adjudication_queue.get(evaluation.track)
    queue = adjudication_queue(evaluation) if adjudication_queue else []
    queue_url = reverse(spec.adjudication_page, args=[slug]) if spec.adjudication_page else ""
    users = get_user_model().objects.filter(groups__name=ASSESSOR).order_by("username")
    return render(
        request,
        "assess/organize.html",
        {
            "evaluation": evaluation,
            "assignments": assignments,
            "per_assessor": per_assessor.values(),
            "agreement": progress.agreement_tables(evaluation),
            "queue_open": sum(1 for r in queue if r[3] is None),
            "queue_total": len(queue),
            "queue_url": queue_url,
            "series": series,
            "questions": all_questions,
            "assessors": users,
            "invitations": _invitations(evaluation, assignments),
            "idle_cap": int(progress.IDLE_CAP),
        },
    )


def _invitations(evaluation, assignments):
    """The evaluation's invitations; a voter invitation of a series' own primary is marked `revote`."""
    primary_of = {(a.topic_id, a.assessor_id) for a in assignments if a.role == Assignment.PRIMARY}
    invitations = list(Invitation.objects.filter(evaluation=evaluation).select_related("user", "topic"))
    for inv in invitations:
        inv.revote = inv.kind == Invitation.VOTER and (inv.topic_id, inv.user_id) in primary_of
    return invitations


def _user(pk):
    return get_object_or_404(get_user_model(), pk=params.integer(pk, "user"), groups__name=ASSESSOR)


def _series(request, evaluation):
    return get_object_or_404(Topic, pk=params.integer(request.POST.get("series"), "series"), evaluation=evaluation)


@organizer_required
@require_POST
def invite(request, slug):
    """Who: organizers. Invite an assessor as nugget voter on a series or as adjudicator."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    kind = request.POST.get("kind")
    if kind not in (Invitation.VOTER, Invitation.ADJUDICATOR):
        raise Http404("unknown invitation kind")
    series = None
    if kind == Invitation.VOTER:
        series = _series(request, evaluation)
    judging.invite(request.user, evaluation, _user(request.POST.get("user")), kind, series)
    return redirect("assess:organize", slug=slug)


@organizer_required
@require_POST
def revote(request, slug):
    """Who: organizers. Ask the primary assessor of a series for a later vital/okay vote set on its nuggets."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    series = _series(request, evaluation)
    try:
        judging.ask_revote(request.user, series)
    except judging.JudgingError as refused:
        messages.error(request, str(refused))
    return redirect("assess:organize", slug=slug)


@organizer_required
@require_POST
def second_assessor(request, slug):
    """Who: organizers. Ask for double judging of a series by a second assessor."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    series = _series(request, evaluation)
    try:
        judging.assign_secondary(request.user, series, _user(request.POST.get("user")))
    except judging.JudgingError as refused:
        messages.error(request, str(refused))
    return redirect("assess:organize", slug=slug)


@organizer_required
@require_POST
def closure(request, topic_id, action):
    """Who: organizers. Close a question or series (judgments can no longer change), or reopen it."""
    topic = get_object_or_404(Topic.objects.select_related("evaluation"), pk=topic_id)
    if action == "close":
        judging.close_question(request.user, topic)
    elif action == "reopen":
        judging.reopen_question(request.user, topic)
    else:
        raise Http404("unknown action")
    return redirect("assess:organize", slug=topic.evaluation.slug)
