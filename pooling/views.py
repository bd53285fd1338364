from django.shortcuts import get_object_or_404, render

from config.roles import organizer_required, participant_required
from pooling.models import Evaluation, Run


@organizer_required
def evaluation_list(request):
    """Who: organizers. Their home page: every evaluation with its track and state."""
    evaluations = Evaluation.objects.all()
    return render(request, "pooling/evaluation_list.html", {"evaluations": evaluations})


@organizer_required
def evaluation_detail(request, slug):
    """Who: organizers."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    return render(request, "pooling/evaluation_detail.html", {"evaluation": evaluation})


@participant_required
def my_runs(request):
    """Who: participants. Their home page: the runs of their own teams only."""
    runs = Run.objects.filter(team__members=request.user).select_related("evaluation", "team")
    return render(request, "pooling/my_runs.html", {"runs": runs, "teams": request.user.teams.all()})
