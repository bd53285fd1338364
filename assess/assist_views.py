"""Assisted judging's pages (issue 30): the panel a judging page reloads after each save, and the organizer's page
of the experiment (its design, the suggestions' sources and errors, the report with its CSV). Thin: the rules are
in assess.assist, the numbers in assess.assist_report."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from assess import assist, assist_client, assist_report
from assess.formats.suggestion_files import SuggestionFileError, parse_grades
from assess.models import Assignment, AssistDesign, Suggestion
from assess.tasks import suggest_topic
from assess.templatetags.assist import panel_context
from config import params
from config.celery import run_here_or_send
from config.roles import assessor_required, organizer_required
from pooling.evaluations import LoadError, read_upload
from pooling.models import Evaluation, PoolItem, Topic


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
    if request.GET.get("format") == "facts":
        response = HttpResponse(
            assist_report.facts_csv(assist_report.facts(evaluation, kind), kind), content_type="text/csv"
        )
        response["Content-Disposition"] = f'attachment; filename="{evaluation.slug}-assist-{kind}-judgments.csv"'
        return response
    rows = assist_report.report(evaluation, kind) if kind else []
    if request.GET.get("format") == "csv":
        response = HttpResponse(assist_report.as_csv(rows, kind), content_type="text/csv; charset=utf-8")
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
            "pass_kinds": _pass_kinds(evaluation),
            "rows": rows,
            "columns": assist_report.columns(kind),
            "official": assist_report.official_value(evaluation),
            "good": suggestions.filter(error="").count(),
            "errors": list(suggestions.exclude(error="").order_by("-id")[:20]),
            "error_count": suggestions.exclude(error="").count(),
            "model_on": _model_on(evaluation),
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


@require_POST
@organizer_required
def load_file(request, slug):
    """Who: organizers. Load suggestions from a file (as manage.py load_suggestions): all or nothing."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    upload = request.FILES.get("file")
    fmt = params.text(request.POST.get("format"), "format", default="jsonl")
    try:
        if upload is None:
            raise assist.AssistError(["choose a file"])
        grades_text = params.text(request.POST.get("grades"), "grades")
        grades = parse_grades(grades_text) if grades_text else None
        kind = params.text(request.POST.get("kind"), "kind") or None
        stored = assist.load_suggestions(
            evaluation, fmt, read_upload(upload, "judgments"), upload.name, kind=kind, grades=grades, by=request.user
        )
        messages.success(request, f"{len(stored)} suggestions stored from {upload.name}.")
    except SuggestionFileError as e:
        messages.error(request, "; ".join(e.problems))
    except LoadError as e:  # AssistError too
        messages.error(request, "; ".join(e.problems[:20]))
    return redirect("assess:assist", slug=slug)


@require_POST
@organizer_required
def run_pass(request, slug):
    """Who: organizers. Ask the model server for one kind on every item of one topic (a Celery task, as manage.py
    suggest_topic and the API's assist/pass/); the rows appear on this page as they are stored."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    ident = params.text(request.POST.get("topic"), "topic")
    kind = params.text(request.POST.get("kind"), "kind")
    topic = Topic.objects.filter(evaluation=evaluation, ident=ident[:50]).first()
    try:
        assist_client.settings_of(evaluation)
        if topic is None:
            raise assist_client.Off(f"{evaluation.slug} has no topic {ident!r}")
        if kind not in _pass_kinds(evaluation):
            raise assist_client.Off(f"kind must be one of {', '.join(_pass_kinds(evaluation))}")
    except assist_client.Off as e:
        messages.error(request, str(e))
        return redirect("assess:assist", slug=slug)
    run_here_or_send(suggest_topic, evaluation.pk, topic.pk, kind, request.user.pk)
    messages.success(request, f"A suggestion pass over topic {topic.ident} ({kind}) was started.")
    return redirect("assess:assist", slug=slug)


def _pass_kinds(evaluation):
    """What a model pass may ask for: the assisted kinds, and a topic's nugget proposals where the track has them."""
    kinds = assist_report.assisted_kinds(evaluation)
    proposals = [
        k
        for k in assist_client.suggestible_kinds(evaluation)
        if k not in evaluation.track_spec.judgment_kinds and k not in kinds  # listed once proposals exist
    ]
    return kinds + proposals


def _model_on(evaluation):
    try:
        assist_client.settings_of(evaluation)
    except assist_client.Off:
        return False
    return True
