from django.shortcuts import get_object_or_404, render

from config.roles import organizer_required
from pooling.models import Evaluation
from scoring.models import Score


@organizer_required
def scoreboard(request, slug):
    """Who: organizers only (participants see released per-run reports, never the board)."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    scores = (
        Score.objects.filter(run__evaluation=evaluation, scope=Score.RUN)
        .select_related("run", "run__team")
        .order_by("measure", "-value")
    )
    return render(request, "scoring/scoreboard.html", {"evaluation": evaluation, "scores": scores})
