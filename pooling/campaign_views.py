"""A participant's side of an evaluation: the rules and the window, checking and submitting a run with a receipt,
and the files the team may download. The work is in pooling.campaign and pooling.runs."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_http_methods

from config import params
from config.roles import organizer_required, participant_required
from pooling import campaign, forms
from pooling.campaign_rules import submission_closed
from pooling.evaluations import LoadError, read_upload
from pooling.models import Evaluation, Submission
from pooling.runs import check_run_file, load_run_files, run_file_from_form


def _team(request):
    source = request.POST if request.method == "POST" else request.GET
    name = params.text(source.get("team"), "team") if source.get("team") else ""
    team = campaign.team_of(request.user, name)
    if team is None:
        raise Http404("Choose one of your teams.")
    return team


def _attachment(filename, data, content_type="application/octet-stream"):
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)  # quotes, newlines, non-ASCII
    return response


@participant_required
def participate(request, slug):
    """Who: participants (for a team they belong to). The evaluation's rules and the team's window, files and
    receipts; POST checks a run file ("check") or checks and stores it ("submit"), within the rules."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    team = _team(request)
    others = campaign.other_submissions(evaluation)
    form = forms.SubmissionForm(
        request.POST or None, request.FILES or None, other_kinds=[(o.kind, o.label) for o in others.values()]
    )
    problems, parsed, checked, status = [], None, False, 200
    if request.method == "POST" and form.is_valid() and form.cleaned_data["kind"] in others:
        # a file of the track's that is not a run (ciQA's URL files): the track checks and stores it
        problems, parsed, receipt = campaign.submit_other(
            others[form.cleaned_data["kind"]],
            evaluation,
            team,
            form.cleaned_data["file"],
            request.user,
            store=request.POST.get("action") == "submit",
        )
        if receipt is not None:
            messages.success(request, f"{receipt.form.get('kind', 'File')} {receipt.tag} received.")
            return redirect("pooling:receipt", receipt.pk)
        checked, status = True, 400 if problems else 200
    elif request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        upload = data["file"]
        checked = True
        submit = request.POST.get("action") == "submit"
        # Frozen (judging started) or out of the window: refused before the file is even read.
        closed = submission_closed(evaluation, team) if submit else []
        try:
            if closed:
                raise LoadError([b.format(upload.name) for b in closed])
            fields = data | {"whole_collection": not data["partial_collection"]}  # the page asks it the other way
            run_file = run_file_from_form(upload.name, read_upload(upload, "runs"), team.name, fields)
        except LoadError as exc:
            problems = exc.problems
        else:
            if submit:
                [result] = load_run_files(evaluation, [run_file], by=request.user)
                if not result.problems:
                    messages.success(request, f"Run {result.run.tag} received.")
                    return redirect("pooling:receipt", result.submission.pk)
                problems = result.problems
            else:
                problems, parsed = check_run_file(evaluation, run_file.data, run_file.filename, submission=run_file)
        status = 400 if problems else 200
    elif request.method == "POST":
        status = 400
    rules = evaluation.track_spec.submission_rules
    return render(
        request,
        "pooling/participate.html",
        {
            "evaluation": evaluation,
            "team": team,
            "teams": campaign.teams_of(request.user),
            "rules": rules.describe(),
            "ask_whole_collection": rules.ask_whole_collection,
            "clock_days": rules.days_after_first_download,
            "pairs": rules.initial_final_pairs,
            "status": campaign.team_status(evaluation, team),
            "files": campaign.visible_files(evaluation, team),
            "extra": campaign.extra_downloads(evaluation, team),
            "form": form,
            "problems": problems,
            "parsed": parsed,
            "checked": checked,
        },
        status=status,
    )


@participant_required
@require_http_methods(["GET", "POST"])
def team_file(request, slug, kind):
    """Who: participants (for a team they belong to). One of the files the team may have now (test questions,
    top documents, test set, topics; the full topics once released); the download is recorded. A download that
    starts the team's deadline clock (QA4MRE) is a POST: GET shows what it starts and the button."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    team = _team(request)
    if request.method == "GET" and campaign.starts_clock(evaluation, team, kind):
        days = evaluation.track_spec.submission_rules.days_after_first_download
        return render(
            request,
            "pooling/start_clock.html",
            {
                "evaluation": evaluation,
                "team": team,
                "kind": kind,
                "days": days,
                "multiple": len(campaign.teams_of(request.user)) > 1,
            },
        )
    found = campaign.file_for_team(evaluation, team, kind, request.user)
    if found is None:
        raise Http404("No such file for your team.")
    return _attachment(*found)


@participant_required
def receipt(request, pk):
    """Who: participants, for a submission of a team they belong to. The receipt on screen (?download=1: as a
    text file)."""
    submission = get_object_or_404(
        Submission.objects.select_related("evaluation", "team", "user"), pk=pk, team__members=request.user
    )
    text = campaign.receipt_text(submission)
    if request.GET.get("download"):
        return _attachment(f"receipt-{submission.tag}.txt", text, "text/plain; charset=utf-8")
    return render(request, "pooling/receipt.html", {"submission": submission, "text": text})


@organizer_required
def teams(request, slug):
    """Who: organizers. The teams of an evaluation: team IDs (POST sets one), first test-data download, due time,
    runs and receipts."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    if request.method == "POST":
        team = params.text(request.POST.get("team"), "team").strip()
        ident = params.text(request.POST.get("ident"), "ident").strip()
        if not team or len(team) > 100 or len(ident) > 100:
            messages.error(request, "Give a team name and an ID of at most 100 characters.")
        else:
            campaign.set_team_id(evaluation, team, ident, by=request.user)
            messages.success(request, f"{team}: team ID {ident or '(none)'}.")
        return redirect("pooling:teams", slug)
    return render(
        request,
        "pooling/teams.html",
        {
            "evaluation": evaluation,
            "rows": campaign.teams_overview(evaluation),
            "submissions": evaluation.submissions.select_related("team", "user")[:100],
        },
    )
