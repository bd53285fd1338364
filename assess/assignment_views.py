"""The organizer's page assigning series to assessors."""

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404, redirect, render

from assess.assignments import assign, unassign
from assess.models import Assignment
from config.roles import ASSESSOR, organizer_required
from pooling.loading import LoadError
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
                if data["assessor"]:
                    assign(evaluation, data["series"], data["assessor"], data["second"])
                else:
                    unassign(evaluation, data["series"], data["second"])
            except LoadError as exc:
                problems = exc.problems
            else:
                messages.success(request, f"Series {data['series']} updated.")
                return redirect("assess:assignments", slug)
    current = {}
    for a in Assignment.objects.filter(evaluation=evaluation).select_related("assessor"):
        current.setdefault(a.topic_id, {})[a.role] = a.assessor.username
    series = list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))
    for s in series:
        s.primary = current.get(s.pk, {}).get(Assignment.PRIMARY, "")
        s.second = current.get(s.pk, {}).get(Assignment.SECONDARY, "")
    assessors = get_user_model().objects.filter(groups__name=ASSESSOR).order_by("username")
    return render(
        request,
        "assess/assignments.html",
        {"evaluation": evaluation, "series": series, "assessors": assessors, "problems": problems},
        status=400 if problems else 200,
    )
