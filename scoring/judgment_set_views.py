"""Judgment set pages (issue 29): the organizer's sets, loading, release, promotion and agreement (stored by the
rescoring worker: scoring.agreement_store) with the confusion matrices and the disagreeing items one click away;
a team's judge runs. Thin: the work is in scoring.judgment_sets and scoring.agreement_store. Nothing here is linked
from or shown on an assessor's page."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_POST

from config import params
from config.celery import run_here_or_send
from config.roles import ORGANIZER, PARTICIPANT, organizer_required, role_required, roles_of
from pooling.evaluations import LoadError, read_upload
from pooling.models import Evaluation, PoolItem, Topic
from scoring import agreement_store, judge_runs, judgment_sets
from scoring.models import JudgmentSet
from scoring.tasks import refresh_agreement


def _evaluation(slug):
    return get_object_or_404(Evaluation, slug=slug)


def _provenance(post):
    return {k: params.text(post.get(k), k) for k in judgment_sets.PROVENANCE_KEYS if post.get(k)}


@organizer_required
def judgment_sets_page(request, slug):
    """Who: organizers. The evaluation's judgment sets (provenance, origin, team, released or not), the form that
    loads one, and the agreement of each with the official judgments and of the second assessors with the
    primary, as stored by the rescoring worker ("as of")."""
    evaluation = _evaluation(slug)
    problems = []
    if request.method == "POST":
        upload = request.FILES.get("file")
        try:
            if upload is None:
                raise LoadError(["choose a file"])
            made = judgment_sets.load_set(
                evaluation,
                read_upload(upload, "judgments"),
                upload.name,
                params.text(request.POST.get("format"), "format"),
                params.text(request.POST.get("name"), "name"),
                by=request.user,
                provenance=_provenance(request.POST),
            )
        except LoadError as error:
            problems = error.problems
        else:
            run_here_or_send(refresh_agreement, evaluation.id)
            messages.success(
                request, f"{made.name}: {made.loaded_count} judgments loaded ({made.skipped} lines skipped)."
            )
            return redirect("scoring:judgment_sets", slug)
    sets = JudgmentSet.objects.filter(evaluation=evaluation).select_related("team", "created_by")
    return render(
        request,
        "scoring/judgment_sets.html",
        {
            "evaluation": evaluation,
            "sets": [(s, s.judgments.count()) for s in sets],
            "formats": judgment_sets.FORMATS,
            "provenance_keys": judgment_sets.PROVENANCE_KEYS,
            "agreement": agreement_store.table(evaluation),
            "as_of": agreement_store.as_of(evaluation),
            "problems": problems,
            "compared": bool(judgment_sets.scales(evaluation)),
        },
    )


def _comparison(evaluation, pk):
    if pk is None:
        return None
    return get_object_or_404(JudgmentSet, evaluation=evaluation, pk=pk)


def _subjects(evaluation, found):
    """The disagreeing units with their topic, item (escaped by the template) and nugget for the page."""
    items = PoolItem.objects.in_bulk([d["item_id"] for d in found if d["item_id"]])
    topics = Topic.objects.in_bulk({d["topic_id"] for d in found})
    from assess.models import Nugget

    nuggets = Nugget.objects.in_bulk([d["nugget_id"] for d in found if d["nugget_id"]])
    return [
        d | {"topic": topics[d["topic_id"]], "item": items.get(d["item_id"]), "nugget": nuggets.get(d["nugget_id"])}
        for d in found
    ]


@organizer_required
def judgment_set_detail(request, slug, pk=None):
    """Who: organizers. One comparison (a set against the official judgments; without a set, the second
    assessors against the primary): per kind the confusion matrix, each cell a link to its items, and per topic
    the numbers; ?kind=&first=&second= lists the items of one cell (?kind= alone: every disagreement)."""
    evaluation = _evaluation(slug)
    judgment_set = _comparison(evaluation, pk)
    rows = agreement_store.table(evaluation, judgment_set, per_topic=True)
    kind = params.text(request.GET.get("kind"), "kind")
    listed = None
    if kind:
        cell = None
        if "first" in request.GET or "second" in request.GET:
            cell = (params.text(request.GET.get("first"), "first"), params.text(request.GET.get("second"), "second"))
        topic = None
        ident = params.text(request.GET.get("topic"), "topic")
        if ident:
            topic = get_object_or_404(Topic, evaluation=evaluation, ident=ident)
        found = agreement_store.disagreements(evaluation, judgment_set, kind, topic, cell)
        listed = {"kind": kind, "cell": cell, "topic": ident, "rows": _subjects(evaluation, found[:500])}
        listed["more"] = max(0, len(found) - 500)
    totals = [r for r in rows if r["topic"] == "all"]
    for r in totals:
        r["matrix"] = list(zip(r["labels"] or [], r["confusion"] or [], strict=False))
    return render(
        request,
        "scoring/judgment_set.html",
        {
            "evaluation": evaluation,
            "judgment_set": judgment_set,
            "first": "official" if judgment_set else "primary",
            "second": judgment_set.name if judgment_set else "second assessor",
            "totals": totals,
            "per_topic": [r for r in rows if r["topic"] != "all"],
            "listed": listed,
            "as_of": agreement_store.as_of(evaluation),
        },
    )


@organizer_required
@require_POST
def judgment_set_action(request, slug, pk):
    """Who: organizers. Release a set to the teams or withdraw it, delete it, or promote its values to the official
    judgments (a reason required; ?only_unjudged); each audited."""
    evaluation = _evaluation(slug)
    judgment_set = _comparison(evaluation, pk)
    action = params.text(request.POST.get("action"), "action")
    try:
        if action in ("release", "withdraw"):
            judgment_sets.set_release(judgment_set, action == "release", by=request.user)
            messages.success(
                request, f"{judgment_set.name}: {'released to' if action == 'release' else 'withdrawn from'} the teams."
            )
        elif action == "delete":
            judgment_sets.delete_set(judgment_set, by=request.user)
            run_here_or_send(refresh_agreement, evaluation.id)
            messages.success(request, f"{judgment_set.name}: deleted.")
        elif action == "promote":
            counts = judgment_sets.promote(
                judgment_set,
                by=request.user,
                reason=params.text(request.POST.get("reason"), "reason"),
                only_unjudged=bool(request.POST.get("only_unjudged")),
            )
            messages.success(
                request,
                f"{judgment_set.name}: {counts['promoted']} judgments made official ({counts['unchanged']} already "
                f"the same, {counts['skipped_judged']} left as judged, {counts['votes_left']} votes not promoted); "
                "rescoring follows.",
            )
        else:
            raise params.BadParameter(f"action: unknown action {action!r}")
    except LoadError as error:
        for problem in error.problems:
            messages.error(request, problem)
    return redirect("scoring:judgment_sets", slug)


@role_required(PARTICIPANT, ORGANIZER)
def judgment_set_download(request, slug, pk):
    """Who: organizers, any set; participants, a set the organizer released (else the same 404 as for no set).
    The set's judgments as Assay JSON Lines judgment records (which load back as a set)."""
    evaluation = _evaluation(slug)
    judgment_set = _comparison(evaluation, pk)
    if ORGANIZER not in roles_of(request.user) and not judgment_set.released:
        raise Http404("No such judgment set.")
    lines = judgment_sets.as_jsonl(judgment_set)
    response = HttpResponse("".join(lines), content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"{slug}-set-{judgment_set.pk}.jsonl")
    return response


def _rankings(evaluation, team):
    found = judge_runs.rankings_for(evaluation, team)
    if found is None:
        return None
    rows, as_of = found
    names = dict(judge_runs.of_team(evaluation, team).values_list("id", "name"))
    return {"rows": [(names[pk], row) for pk, row in rows.items()], "as_of": as_of}


@role_required(PARTICIPANT)
def judge_runs_page(request, slug):
    """Who: participants, for a team they belong to (?team= when several). The team's judge runs (judgment sets
    submitted as runs, within the campaign's rules: judge_runs.refusals), the form to submit one, the sets the
    organizer released, and, once the evaluation's results are released to the team, each judge run's agreement
    with the official judgments."""
    from pooling.campaign import team_of

    evaluation = _evaluation(slug)
    team = team_of(request.user, params.text(request.GET.get("team") or request.POST.get("team"), "team"))
    if team is None:
        raise Http404("Not a team of yours.")
    problems = []
    if request.method == "POST":
        upload = request.FILES.get("file")
        try:
            if upload is None:
                raise LoadError(["choose a file"])
            made = judge_runs.submit(
                evaluation,
                team,
                read_upload(upload, "judgments"),
                upload.name,
                params.text(request.POST.get("format"), "format"),
                params.text(request.POST.get("name"), "name"),
                by=request.user,
                provenance=_provenance(request.POST),
            )
        except LoadError as error:
            problems = error.problems
        else:
            run_here_or_send(refresh_agreement, evaluation.id)
            messages.success(
                request, f"Judge run {made.name} received: {made.loaded_count} judgments, {made.sha256[:12]}."
            )
            return redirect(f"{request.path}?team={team.name}")
    return render(
        request,
        "scoring/judge_runs.html",
        {
            "evaluation": evaluation,
            "team": team,
            "mine": judge_runs.of_team(evaluation, team),
            "released_sets": JudgmentSet.objects.filter(evaluation=evaluation, released=True).exclude(team=team),
            "agreement": judge_runs.agreement_for(evaluation, team),
            "rankings": _rankings(evaluation, team),
            "closed": judge_runs.refusals(evaluation, team),
            "formats": judgment_sets.FORMATS,
            "provenance_keys": judgment_sets.PROVENANCE_KEYS,
            "problems": problems,
            "ranking_note": judge_runs.RANKING_NOTE,
        },
    )
