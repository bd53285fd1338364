"""Assisted judging's pages (issue 30): the panel a judging page reloads after each save, and the organizer's page
of the experiment (its design, the suggestions' sources and errors, the report with its CSV). Thin: the rules are
in assess.assist, the numbers in assess.assist_report."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from assess import assist, assist_report
from assess.models import Assignment, AssistDesign, Suggestion
from assess.templatetags.assist import panel_context
from config import params
from config.roles import assessor_required, organizer_required
from pooling.models import Evaluation, PoolItem


@assessor_required
def panel(request, item_id, kind):
    """Who: an assessor assigned to the item's topic (anyone else: 404). The assisted-judging panel of one item,
    as assess.assist.visible allows: nothing, a placeholder, or the suggestion."""
    item = PoolItem.objects.select_related("topic").filter(pk=item_id).first()
    if (
        item is None
        or not Assignment.objects.filter(
            assessor=request.user, topic_id__in={item.topic_id, item.topic.parent_id or item.topic_id}
        ).exists()
    ):
        raise Http404("no such item among your assignments")
    if kind not in item.evaluation.track_spec.judgment_kinds:
        raise Http404("no such judgment kind")
    return render(request, "assess/_assist_panel.html", panel_context(request.user, item, kind))


def _kind(request, evaluation):
    kinds = assist_report.assisted_kinds(evaluation)
    kind = params.text(request.GET.get("kind"), "kind", default=kinds[0] if kinds else "")
    if kind not in kinds:
        raise params.BadParameter(f"kind must be one of {', '.join(kinds) or 'none'}, not {kind!r}")
    return kind, kinds


@organizer_required
def overview(request, slug):
    """Who: organizers. The assisted-judging experiment of an evaluation: its design (conditions, unit, seed, the
    split), where the suggestions came from and which calls failed, and the report per condition and assessor
    (?format=csv: the report as CSV)."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    kind, kinds = _kind(request, evaluation)
    rows = assist_report.report(evaluation, kind) if kind else []
    if request.GET.get("format") == "csv":
        response = HttpResponse(assist_report.as_csv(rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{evaluation.slug}-assist-{kind}.csv"'
        return response
    suggestions = Suggestion.objects.filter(evaluation=evaluation)
    return render(
        request,
        "assess/assist.html",
        {
            "evaluation": evaluation,
            "design": AssistDesign.objects.filter(evaluation=evaluation).select_related("created_by").first(),
            "split": assist.split_counts(evaluation),
            "conditions": assist.CONDITIONS,
            "kind": kind,
            "kinds": kinds,
            "rows": rows,
            "columns": assist_report.COLUMNS,
            "good": suggestions.filter(error="").count(),
            "errors": list(suggestions.exclude(error="").order_by("-id")[:20]),
            "error_count": suggestions.exclude(error="").count(),
        },
    )


@require_POST
@organizer_required
def design(request, slug):
    """Who: organizers. Draw the conditions (before any judgment exists): unit, conditions, seed (empty: a new
    random seed, recorded)."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    seed = params.optional_integer(request.POST.get("seed") or None, "seed", maximum=2**63 - 1)
    unit = params.text(request.POST.get("unit"), "unit", default="item")
    chosen = [c for c in request.POST.getlist("conditions") if c in assist.CONDITIONS]
    try:
        made = assist.set_design(evaluation, unit=unit, conditions=chosen, seed=seed, by=request.user)
        messages.success(request, f"Conditions drawn per {made.unit} with seed {made.seed}.")
    except assist.AssistError as e:
        messages.error(request, "; ".join(e.problems))
    return redirect("assess:assist", slug=slug)
