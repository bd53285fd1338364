"""Scoring pages. Views only read stored scores; the work lives in scoring.results, reports, rescore, release."""
from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from config.roles import ORGANIZER, PARTICIPANT, organizer_required, role_required
from pooling.models import Evaluation, Run, Team
from scoring import exports
from scoring.registry import measure_label
from scoring.release import SETTING, release, withdraw
from scoring.reports import build_report
from scoring.rescore import freshness
from scoring.results import can_see_run_scores, component_measures, ranked_runs, significance_of


def _board_context(evaluation):
    ranked = ranked_runs(evaluation)
    names = component_measures(evaluation, [m for _, m in ranked])
    rows = []
    for position, (run, measures) in enumerate(ranked, start=1):
        judged = measures.get("judged")
        rows.append({"rank": position, "run": run, "values": [measures.get(m) for m in names], "judged": judged})
    teams = sorted({run.team for run, _ in ranked}, key=lambda t: t.name)
    released = set(evaluation.settings.get(SETTING, []))
    return {"evaluation": evaluation, "columns": [(m, measure_label(m)) for m in names], "rows": rows,
            "fresh": freshness(evaluation), "teams": [(t, t.id in released) for t in teams]}


@organizer_required
def scoreboard(request, slug):
    """Who: organizers only (participants see released per-run reports, never the board)."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    return render(request, "scoring/scoreboard.html", _board_context(evaluation))


@organizer_required
def board(request, slug):
    """Who: organizers. The board's table and freshness line alone, polled by htmx while judging goes on."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    return render(request, "scoring/_board.html", _board_context(evaluation))


@organizer_required
def significance(request, slug):
    """Who: organizers. Two-way ANOVA of per-series scores of the judged runs, Tukey HSD letter table."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    result, teams = significance_of(evaluation)
    return render(request, "scoring/significance.html", {"evaluation": evaluation, "result": result,
                                                          "teams": teams})


@organizer_required
@require_POST
def release_view(request, slug):
    """Who: organizers. Releases (or withdraws) the reports of the evaluation, or of one team ("team" = its id)."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    team = None
    if request.POST.get("team"):
        team = get_object_or_404(Team, pk=request.POST["team"], runs__evaluation=evaluation)
    who = f"team {team.name}" if team else "every team"
    if request.POST.get("action") == "withdraw":
        withdraw(evaluation, team)
        messages.info(request, f"Reports withdrawn for {who}.")
    else:
        release(evaluation, team)
        messages.info(request, f"Reports released to {who}: each team sees only its own runs.")
    return redirect("scoring:scoreboard", slug=slug)


@organizer_required
@require_POST
def rescore_view(request, slug):
    """Who: organizers. Queues a full rescoring of the evaluation (one task)."""
    from scoring.tasks import rescore_evaluation

    evaluation = get_object_or_404(Evaluation, slug=slug)
    try:
        rescore_evaluation.apply_async((evaluation.id,), retry=False)
        messages.info(request, "Full rescoring queued.")
    except Exception:
        messages.error(request, "The task queue is unreachable; run `python manage.py rescore "
                                f"{evaluation.slug}` on the server.")
    return redirect("scoring:scoreboard", slug=slug)


def _visible_run(request, slug, tag):
    run = Run.objects.select_related("evaluation", "team").filter(evaluation__slug=slug, tag=tag).first()
    # Same answer for "no such run" and "not yours / not released": nothing leaks about other teams.
    if run is None or not can_see_run_scores(request.user, run):
        raise Http404("No report for this run.")
    return run


@role_required(ORGANIZER, PARTICIPANT)
def run_report(request, slug, tag):
    """Who: organizers (any run, any time); participants, their own team's runs once scores are released."""
    run = _visible_run(request, slug, tag)
    report = build_report(run)
    return render(request, "scoring/run_report.html", {
        "run": run, "evaluation": run.evaluation, "report": report, "plot": mark_safe(report.plot_svg)})


@role_required(ORGANIZER, PARTICIPANT)
def run_report_csv(request, slug, tag):
    """Who: as run_report. The report's numbers as CSV."""
    run = _visible_run(request, slug, tag)
    response = HttpResponse(build_report(run).csv_text(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-{run.tag}.csv"'
    return response


@role_required(ORGANIZER, PARTICIPANT)
def run_report_json(request, slug, tag):
    """Who: as run_report. The report's numbers as JSON."""
    run = _visible_run(request, slug, tag)
    response = JsonResponse(build_report(run).as_dict(), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{slug}-{run.tag}.json"'
    return response


@organizer_required
def export_view(request, slug, kind):
    """Who: organizers. Judgments in NIST's formats, or Assay's lossless JSON Lines."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    writers = {"list": exports.nist_list_judgments, "nuggets": exports.nist_nuggets,
               "matches": exports.nist_nugget_matches, "jsonl": exports.export_jsonl}
    if kind not in writers:
        raise Http404("Unknown export.")
    body = "".join(writers[kind](evaluation))
    ext = "jsonl" if kind == "jsonl" else "txt"
    response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-{kind}.{ext}"'
    return response
