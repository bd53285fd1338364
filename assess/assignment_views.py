"""The organizer's page assigning series to assessors."""

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404, redirect, render

from assess.assignments import CONFLICTS_SETTING, REFUSE, WARN, assign, conflict_message, pooled_teams, unassign
from assess.models import Assignment
from config.roles import ASSESSOR, organizer_required
from pooling.loading import LoadError
from pooling.models import Evaluation, Team, Topic


class AssignForm(forms.Form):
    series = forms.CharField(max_length=50)
    assessor = forms.CharField(max_length=150, required=False)
    second = forms.BooleanField(required=False)


@organizer_required
def assignments(request, slug):
    """Who: organizers. Assign each series a primary assessor and, for double judging, a second one."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    problems = []
    if request.method == "POST":
        form = AssignForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                warnings = []
                if data["assessor"]:
                    warnings = assign(evaluation, data["series"], data["assessor"], data["second"]).warnings
                else:
                    unassign(evaluation, data["series"], data["second"])
            except LoadError as exc:
                problems = exc.problems
            else:
                messages.success(request, f"Series {data['series']} updated.")
                for warning in warnings:
                    messages.warning(request, f"Warning: {warning}.")
                return redirect("assess:assignments", slug)
    current = {}
    for a in Assignment.objects.filter(evaluation=evaluation).select_related("assessor"):
        current.setdefault(a.topic_id, {})[a.role] = a.assessor.username
    series = list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))
    assessors = list(get_user_model().objects.filter(groups__name=ASSESSOR).order_by("username"))
    # Which assessors belong to a team with runs in each series' pool: marked in the choices, and said beside
    # an assignment already made.
    team_names = dict(Team.objects.filter(members__in=assessors).values_list("pk", "name"))
    teams_of = {}
    for user_id, team_id in Team.members.through.objects.filter(user__in=assessors).values_list("user_id", "team_id"):
        teams_of.setdefault(user_id, set()).add(team_id)
    pooled = pooled_teams(evaluation) if teams_of else {}
    for s in series:
        s.primary = current.get(s.pk, {}).get(Assignment.PRIMARY, "")
        s.second = current.get(s.pk, {}).get(Assignment.SECONDARY, "")
        s.clashes = {
            u.username: sorted(team_names[t] for t in teams_of.get(u.pk, set()) & pooled.get(s.pk, set()))
            for u in assessors
        }
        s.choices = [(u.username, s.clashes[u.username]) for u in assessors]
        s.warnings = [
            conflict_message(name, s.clashes[name], s.ident) for name in (s.primary, s.second) if s.clashes.get(name)
        ]
    return render(
        request,
        "assess/assignments.html",
        {
            "evaluation": evaluation,
            "series": series,
            "problems": problems,
            "refuse": evaluation.setting(CONFLICTS_SETTING, WARN) == REFUSE,
        },
        status=400 if problems else 200,
    )
