"""The organizer's page assigning series to assessors."""

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404, redirect, render

from assess.assignments import (
    CONFLICTS_SETTING,
    REFUSE,
    WARN,
    assign,
    conflict_message,
    conflicts_by_series,
    unassign,
)
from assess.models import Assignment
from config.roles import ASSESSOR, organizer_required
from pooling.evaluations import LoadError
from pooling.models import Evaluation, Topic


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
    clashes = conflicts_by_series(evaluation, assessors)  # marked in the choices, said beside an assignment
    for s in series:
        s.primary = current.get(s.pk, {}).get(Assignment.PRIMARY, "")
        s.second = current.get(s.pk, {}).get(Assignment.SECONDARY, "")
        mine = clashes.get(s.pk, {})
        s.choices = [(u.username, mine.get(u.username, [])) for u in assessors]
        s.warnings = [conflict_message(name, mine[name], s.ident) for name in (s.primary, s.second) if name in mine]
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
