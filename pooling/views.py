from django.contrib import messages
from django.db.models import Count
from django.http import HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from config import params
from config import uploads as uploads_limits
from config.roles import (
    ORGANIZER,
    PARTICIPANT,
    has_role,
    organizer_required,
    participant_required,
    role_required,
)
from pooling import forms
from pooling.evaluations import (
    LoadError,
    create_evaluation,
    effective_settings,
    read_upload,
    set_state,
    update_settings,
)
from pooling.models import Evaluation, PoolItem, Run, Topic
from pooling.pools import item_sources, pool_sizes, pools_out_of_date, start_pool_build
from pooling.runs import RunFile, check_run_report, load_run_files, parse_manifest
from pooling.topics import load_top_docs, load_topics


@organizer_required
def evaluation_list(request):
    """Who: organizers. Their home page: every evaluation with its track and state."""
    evaluations = Evaluation.objects.annotate(run_count=Count("runs"))
    return render(request, "pooling/evaluation_list.html", {"evaluations": evaluations})


@organizer_required
def evaluation_create(request):
    """Who: organizers. Create an evaluation of a track over collections (settings from the track's defaults)."""
    form = forms.EvaluationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            evaluation = create_evaluation(
                data["slug"], data["track"], [c.name for c in data["collections"]], data["title"]
            )
        except LoadError as exc:
            for problem in exc.problems:
                form.add_error(None, problem)
        else:
            messages.success(request, f"Evaluation {evaluation.slug} created.")
            return redirect("pooling:evaluation_detail", evaluation.slug)
    return render(request, "pooling/evaluation_form.html", {"form": form})


def _detail_context(evaluation):
    settings = effective_settings(evaluation)
    return {
        "evaluation": evaluation,
        "settings": settings,
        "state_form": forms.StateForm(initial={"state": evaluation.state}),
        "settings_form": forms.SettingsForm(
            initial={
                "judged_priorities": ",".join(str(p) for p in settings.get("judged_priorities") or []),
                "max_answer_chars": settings.get("max_answer_chars"),
                "allow_nil": settings.get("allow_nil", False),
                "submission_opens": settings.get("submission_opens"),
                "submission_closes": settings.get("submission_closes"),
                "assessor_conflicts": settings.get("assessor_conflicts", "warn"),
            }
        ),
        "series_count": evaluation.topics.filter(parent__isnull=True).count(),
        "question_count": evaluation.topics.filter(parent__isnull=False).count(),
        "runs": evaluation.runs.select_related("team").annotate(lines=Count("entries")),
        "build": evaluation.pool_builds.first(),
        "pool_size": evaluation.pool_items.count(),
        "out_of_date": pools_out_of_date(evaluation),
    }


@organizer_required
def evaluation_detail(request, slug):
    """Who: organizers. One evaluation: state, settings, questions, runs, pools and assignments."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    return render(request, "pooling/evaluation_detail.html", _detail_context(evaluation))


@organizer_required
@require_POST
def evaluation_state(request, slug):
    """Who: organizers. Move the evaluation between open for runs, judging and scores released."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    form = forms.StateForm(request.POST)
    if form.is_valid():
        set_state(evaluation, form.cleaned_data["state"], by=request.user)
        messages.success(request, f"State: {evaluation.get_state_display()}.")
    else:
        messages.error(request, "Unknown state.")
    return redirect("pooling:evaluation_detail", slug)


@organizer_required
def evaluation_settings(request, slug):
    """Who: organizers. Change judged priorities, the answer-length limit and whether NIL is allowed."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    form = forms.SettingsForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        update_settings(
            evaluation,
            {
                "judged_priorities": data["judged_priorities"],
                "max_answer_chars": data["max_answer_chars"] or None,
                "allow_nil": data["allow_nil"],
                "submission_opens": data["submission_opens"].isoformat() if data["submission_opens"] else None,
                "submission_closes": data["submission_closes"].isoformat() if data["submission_closes"] else None,
                "assessor_conflicts": data["assessor_conflicts"]
                or effective_settings(evaluation).get("assessor_conflicts", "warn"),
            },
            by=request.user,
        )
        messages.success(request, "Settings saved.")
        return redirect("pooling:evaluation_detail", slug)
    context = _detail_context(evaluation) | {"settings_form": form}
    return render(request, "pooling/evaluation_detail.html", context, status=400)


@organizer_required
def topics(request, slug):
    """Who: organizers. Upload the question file or the top-documents lists; see the series and questions."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    form = forms.TopicFileForm(evaluation, request.POST or None, request.FILES or None)
    problems = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        loader = load_top_docs if form.cleaned_data["kind"] == "top_docs" else load_topics
        try:
            data = read_upload(upload, "top_docs" if loader is load_top_docs else "topics")
            n = loader(evaluation, data, upload.name)
        except LoadError as exc:
            problems = exc.problems
        else:
            what = "ranked documents" if loader is load_top_docs else "series and questions"
            messages.success(request, f"{upload.name}: {n} {what} loaded.")
            return redirect("pooling:topics", slug)
    series = (
        Topic.objects.filter(evaluation=evaluation, parent__isnull=True)
        .prefetch_related("children")
        .order_by("position")
    )
    return render(
        request,
        "pooling/topics.html",
        {"evaluation": evaluation, "form": form, "problems": problems, "series": series},
        status=400 if problems or form.errors else 200,
    )


@organizer_required
def runs_upload(request, slug):
    """Who: organizers. Upload many run files at once; each is checked, and loaded only when it passes."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    form = forms.RunUploadForm(request.POST or None, request.FILES or None)
    results, problems = [], []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        uploads = request.FILES.getlist("files")
        rows = {}
        if not uploads:
            problems.append("choose one or more run files")
        problems += [m for m in (uploads_limits.oversized(u, "runs") for u in uploads) if m]
        manifest_too_big = data["manifest"] and uploads_limits.oversized(data["manifest"], "manifest")
        if manifest_too_big:
            problems.append(manifest_too_big)
        elif data["manifest"]:
            try:
                rows = parse_manifest(read_upload(data["manifest"], "manifest"), data["manifest"].name)
            except LoadError as exc:
                problems += exc.problems
            problems += [f"{u.name} is not in the manifest" for u in uploads if u.name not in rows]
        team = (data["new_team"] or "").strip() or (data["team"].name if data["team"] else "")
        if not rows and not problems and not team:
            problems.append("choose a team (or give a manifest)")
        if not problems:
            default = {
                "team": team,
                "priority": data["priority"],
                "manual": data["manual"],
                "whole_collection": not data["partial_collection"],
            }
            try:
                files = [
                    RunFile(
                        u.name, read_upload(u, "runs"), description=data["description"], **rows.get(u.name, default)
                    )
                    for u in uploads
                ]
            except LoadError as exc:  # a file larger than its size said
                problems += exc.problems
            else:
                results = load_run_files(evaluation, files, by=request.user, override_reason=data["override_reason"])
    return render(
        request,
        "pooling/runs_upload.html",
        {
            "evaluation": evaluation,
            "rules": evaluation.track_spec.submission_rules.describe(),
            "form": form,
            "results": results,
            "problems": problems,
            "failed": any(r.problems for r in results),
        },
        status=400 if problems or any(r.problems for r in results) else 200,
    )


@role_required(PARTICIPANT, ORGANIZER)
def run_check(request):
    """Who: participants and organizers. Check a run file before sending it; nothing is stored. Opened from an
    evaluation (?evaluation=SLUG), that evaluation is chosen; otherwise the organizer or participant chooses. A
    participant of one team has the submission rules checked for that team too."""
    evaluations = Evaluation.objects.exclude(state=Evaluation.RELEASED).order_by("title")
    chosen, problems, notes, parsed, filename = None, [], [], None, ""
    if request.method == "GET" and "evaluation" in request.GET:
        chosen = evaluations.filter(slug=params.text(request.GET.get("evaluation"), "evaluation")).first()
    if request.method == "POST":
        chosen = evaluations.filter(slug=params.text(request.POST.get("evaluation"), "evaluation")).first()
        upload = request.FILES.get("file")
        if chosen is None:
            problems = ["choose an evaluation"]
        elif upload is None:
            problems = ["choose a run file"]
        else:
            try:
                filename, data = upload.name, read_upload(upload, "runs")
            except LoadError as exc:
                problems = exc.problems
            else:
                # A participant of one team is checked against the submission rules too, as their team.
                teams = list(request.user.teams.all()[:2]) if has_role(request.user, PARTICIPANT) else []
                submission = RunFile(filename, data, teams[0].name) if len(teams) == 1 else None
                problems, notes, parsed = check_run_report(chosen, data, filename, submission=submission)
    return render(
        request,
        "pooling/run_check.html",
        {
            "evaluations": evaluations,
            "chosen": chosen,
            "problems": problems,
            "notes": notes,
            "parsed": parsed,
            "checked": request.method == "POST",
            "filename": filename,
        },
    )


def _pool_context(evaluation, build):
    """The pools page's progress partial, with the pool sizes once the build is over (swapped in out of band, so
    the page shows the new counts the moment its polling sees the build end)."""
    context = {"evaluation": evaluation, "build": build, "sizes": True}
    if build is None or not build.active:
        context |= {"topics": pool_sizes(evaluation), "out_of_date": pools_out_of_date(evaluation)}
    return context


@organizer_required
def pools(request, slug):
    """Who: organizers. Pool sizes per question (or per topic) and the build progress; POST starts a (re)build."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    if request.method == "POST":
        build = start_pool_build(evaluation, request.user)
        if request.headers.get("HX-Request"):
            context = _pool_context(evaluation, build) | {"oob": True}
            return render(request, "pooling/_pool_progress.html", context)
        messages.success(request, "Pool build queued.")
        return redirect("pooling:pools", slug)
    build = evaluation.pool_builds.first()
    context = {"evaluation": evaluation, "build": build, "sizes": True, "topics": pool_sizes(evaluation)}
    return render(request, "pooling/pools.html", context | {"out_of_date": pools_out_of_date(evaluation)})


@organizer_required
def pool_progress(request, slug):
    """Who: organizers. The progress partial of the latest pool build (polled by htmx while it runs); with
    ?sizes=1 (the pools page), also the pool sizes once the build is over."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    build = evaluation.pool_builds.first()
    if request.GET.get("sizes"):
        context = _pool_context(evaluation, build) | {"oob": True}
    else:
        context = {"evaluation": evaluation, "build": build}
    return render(request, "pooling/_pool_progress.html", context)


@organizer_required
def pool_question(request, slug, ident):
    """Who: organizers. The pool of one question: each item with the runs and lines that returned it."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    question = get_object_or_404(Topic, evaluation=evaluation, ident=ident)
    items = list(PoolItem.objects.filter(topic=question).order_by("position"))
    sources = item_sources(evaluation, items)
    for item in items:
        item.run_lines = sources[item.pk]
    return render(
        request, "pooling/pool_question.html", {"evaluation": evaluation, "question": question, "items": items}
    )


@participant_required
def my_runs(request):
    """Who: participants. Their home page: the runs of their own teams only."""
    runs = Run.objects.filter(team__members=request.user).select_related("evaluation", "team")
    teams = request.user.teams.all()
    evaluations = Evaluation.objects.order_by("title") if teams else Evaluation.objects.none()
    return render(request, "pooling/my_runs.html", {"runs": runs, "teams": teams, "evaluations": evaluations})
