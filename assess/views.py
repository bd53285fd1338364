from django.shortcuts import render

from assess.models import Assignment
from config.roles import assessor_required


@assessor_required
def my_assignments(request):
    """Who: assessors. Their home page: the series assigned to them, and nothing of anyone else's."""
    assignments = Assignment.objects.filter(assessor=request.user).select_related("evaluation", "topic")
    return render(request, "assess/my_assignments.html", {"assignments": assignments})
