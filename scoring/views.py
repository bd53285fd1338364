"""Scoring pages. Views only read stored scores; the work lives in scoring.results, reports, rescore, release."""

from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from accounts.models import Team
from config import params
from config.roles import ORGANIZER, PARTICIPANT, organizer_required, role_required
from core import extension_points as ep
from pooling.models import Evaluation, Run
from scoring import rankings
from scoring.judgments_jsonl import export_jsonl
from scoring.measures.randomization import MAX_PERMUTATIONS
from scoring.registry import get_exports, measure_label
from scoring.release import ReleaseRefused, release, release_summary, released_for, withdraw
from scoring.reports import build_report, comparison_words
from scoring.rescore import freshness
from scoring.results import (
    UnknownGroup,
    can_see_run_scores,
    component_measures,
    evaluation_judging,
    nothing_judged,
    ranked_runs,
    significance_of,
)


def _board_context(evaluation):
    ranked = ranked_runs(evaluation)
    names = component_measures(evaluation, [m for _, m in ranked])
    rows, unranked = [], []
    for run, measures in ranked:
        row = {"run": run, "values": [measures.get(m) for m in names], "judged": measures.get("judged")}
        (unranked if nothing_judged(measures) else rows).append(row)
    for position, row in enumerate(rows, start=1):
        row["rank"] = position
    teams = sorted({run.team for run, _ in ranked}, key=lambda t: t.name)
    return {
        "evaluation": evaluation,
        "columns": [(m, measure_label(m, evaluation.track)) for m in names],
        "rows": rows,
        "unranked": unranked,
        "width": len(names) + 5,
        "fresh": freshness(evaluation),
        "teams": teams,
        "rankings": rankings.present(evaluation),
    }


@organizer_required
def scoreboard(request, slug):
    """Who: organizers only (participants see released per-run reports, never the board)."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    context = _board_context(evaluation)
    # what each team has been released and on which terms (not in the polled partial: it changes on a POST)
    context.update(release=release_summary(evaluation, context["teams"]), judging=evaluation_judging(evaluation))
    context["exports"], context["exports_note"] = get_exports(evaluation)
    return render(request, "scoring/scoreboard.html", context)


@organizer_required
def board(request, slug):
    """Who: organizers. The board's table and freshness line alone, polled by htmx while judging goes on."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    return render(request, "scoring/_board.html", _board_context(evaluation))


@organizer_required
def robustness(request, slug):
    """Who: organizers. Each run's score and rank under every reading of the judgments, its rank interval, bounds
    for unjudged answers, and the rankings' correlation per measure, as the rescoring worker last stored them."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    return render(
        request, "scoring/robustness.html", {"evaluation": evaluation, "rankings": rankings.present(evaluation)}
    )


@organizer_required
def significance(request, slug):
    """Who: organizers. Two-way ANOVA of per-series scores of the judged runs (?runs=best: the best judged run
    of each team), Tukey HSD letter table, and the paired randomization test of every pair of them
    (?permutations=&seed=), with a warning while judging is incomplete."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    try:
        permutations = params.optional_integer(
            request.GET.get("permutations"), "permutations", minimum=1, maximum=MAX_PERMUTATIONS
        )
        seed = params.optional_integer(request.GET.get("seed"), "seed")
    except params.BadParameter as e:  # Django's own 400 page would not say which parameter
        return HttpResponse(str(e), status=400, content_type="text/plain; charset=utf-8")
    try:
        analysis = significance_of(
            evaluation,
            best_per_team=request.GET.get("runs") == "best",
            permutations=permutations,
            seed=seed,
            group=request.GET.get("group"),
        )
    except UnknownGroup as e:
        return HttpResponse(str(e), status=400, content_type="text/plain; charset=utf-8")
    return render(
        request,
        "scoring/significance.html",
        {"evaluation": evaluation, "analysis": analysis, "result": analysis.result, "teams": analysis.teams},
    )


@organizer_required
@require_POST
def release_view(request, slug):
    """Who: organizers. Releases (or withdraws) the reports of the evaluation, or of one team ("team" = its id);
    a release may be "final" (refused while judging is incomplete) and freeze the comparison ("comparison" =
    "frozen"), else runs loaded later join best/median/worst."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    team = None
    if request.POST.get("team"):
        # distinct: the join yields the team once per run it has in the evaluation
        team = get_object_or_404(
            Team.objects.filter(runs__evaluation=evaluation).distinct(), pk=params.integer(request.POST["team"], "team")
        )
    who = f"team {team.name}" if team else "every team"
    if request.POST.get("action") == "withdraw":
        withdraw(evaluation, team, by=request.user.username)
        messages.info(request, f"Reports withdrawn for {who}.")
        return redirect("scoring:scoreboard", slug=slug)
    final = request.POST.get("final") == "1"
    try:
        record = release(
            evaluation, team, final=final, freeze=request.POST.get("comparison") == "frozen", by=request.user.username
        )
    except ReleaseRefused as e:
        messages.error(request, f"Not released as final: {e}.")
        return redirect("scoring:scoreboard", slug=slug)
    how = (
        "best/median/worst frozen at this release"
        if record["comparison"] == "frozen"
        else "runs loaded later join best/median/worst"
    )
    messages.info(
        request,
        f"Reports released to {who} as {'final' if final else 'provisional'} scores ({how}); "
        "each team sees only its own runs.",
    )
    return redirect("scoring:scoreboard", slug=slug)


@organizer_required
@require_POST
def rescore_view(request, slug):
    """Who: organizers. Queues a full rescoring of the evaluation (one task)."""
    from config.celery import run_here_or_send
    from scoring.tasks import rescore_evaluation

    evaluation = get_object_or_404(Evaluation, slug=slug)
    try:
        run_here_or_send(rescore_evaluation, evaluation.id)
        messages.info(request, "Full rescoring queued.")
    except Exception:
        messages.error(
            request, f"The task queue is unreachable; run `python manage.py rescore {evaluation.slug}` on the server."
        )
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
    return render(
        request,
        "scoring/run_report.html",
        {
            "run": run,
            "evaluation": run.evaluation,
            "report": report,
            "plot": mark_safe(report.plot_svg),
            "status": report.status,
            "comparison": comparison_words(report.status["comparison"]),
            "judged_label": measure_label("judged", run.evaluation.track),
        },
    )


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
    """Who: organizers. Judgments in Assay's lossless JSON Lines, or in a format of the track's own (QA: NIST's)."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    exports = {e.kind: e for e in get_exports(evaluation)[0]}
    writers = {"jsonl": export_jsonl} | {k: e.writer for k, e in exports.items()}
    if kind not in writers:
        raise Http404("Unknown export.")
    body = "".join(writers[kind](evaluation))
    ext = "jsonl" if kind == "jsonl" else exports[kind].ext
    response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-{kind}.{ext}"'
    return response


@organizer_required
def results_file(request, slug, shape):
    """Who: organizers. The stored scores as an IR tool's result file (trec_eval -q, ir_measures, 4-column)."""
    from scoring.formats.trec import RESULT_SHAPES, write_results
    from scoring.results import result_rows

    evaluation = get_object_or_404(Evaluation, slug=slug)
    if shape not in RESULT_SHAPES:
        raise Http404("Unknown result file.")
    response = HttpResponse(
        "".join(write_results(result_rows(evaluation), shape)), content_type="text/plain; charset=utf-8"
    )
    response["Content-Disposition"] = content_disposition_header(True, f"{slug}-{shape}.txt")
    return response


@role_required(PARTICIPANT)
def team_judgments(request, slug, kind):
    """Who: participants, for a team they belong to, once its results are released. The judgments of the team's
    own runs: "own" (tab-separated, every kind) or one of the track's official formats, other teams' lines left
    out. Before release, or for another team, the same 404 as for a file that does not exist."""
    from pooling.campaign import team_of
    from scoring.team_downloads import OWN, official_export, own_judgments

    evaluation = get_object_or_404(Evaluation, slug=slug)
    team = team_of(request.user, params.text(request.GET.get("team"), "team"))
    if team is None or not released_for(evaluation, team.pk) or not evaluation.track_spec.human_judging:
        raise Http404("No judgments for your team here.")
    lines = own_judgments(evaluation, team) if kind == OWN else official_export(evaluation, team, kind)
    if lines is None:
        raise Http404("Unknown export.")
    ext = "txt" if kind == OWN else {e.kind: e.ext for e in get_exports(evaluation)[0]}[kind]
    response = HttpResponse("".join(lines), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"{slug}-{team.pk}-{kind}.{ext}")
    return response


@role_required(PARTICIPANT, ORGANIZER)
def team_run_judgments(request, slug, tag):
    """Who: participants, for their own team's run once its results are released; organizers, any run. The run's
    judgments in the track's official form (BOLT: the assessed citations in the seed's DTD form)."""
    run = _visible_run(request, slug, tag)  # the same 404 for another team's run or one not released
    writer = ep.run_judgments.get(run.evaluation.track)
    found = writer(run) if writer is not None else None
    if found is None:
        raise Http404("No judgments file for this run.")
    filename, data = found
    response = HttpResponse(data, content_type="application/xml" if filename.endswith(".xml") else "text/plain")
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response
