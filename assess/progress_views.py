"""The judging-progress section of the evaluation page (pooling's), served from here: pooling comes before assess
and must not import it, so the evaluation page asks for this partial with htmx once it has loaded."""

from django.shortcuts import get_object_or_404, render

from assess import progress
from config.roles import organizer_required
from pooling.models import Evaluation


@organizer_required
def evaluation_progress(request, slug):
    """Who: organizers. Judging progress per question, assessor and run, with bars (a partial of the evaluation
    page)."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    return render(
        request,
        "assess/_evaluation_progress.html",
        {"evaluation": evaluation, **progress.evaluation_progress(evaluation)},
    )
