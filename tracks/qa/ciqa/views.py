"""ciQA pages (URL names qa:ciqa_*, under /assess/ciqa/): the organizer's page (topics, runs and their pairing,
URL files, screenshots, sessions, questionnaire) and board (scores, recall by length, initial versus final); the
assessor's sessions, the timed session page, the baseline's sentence page and the exit questionnaire. Thin: the
work is in tracks.qa.ciqa's modules, which the commands call too."""

from django.contrib import messages
from django.db.models import Q
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from config import params
from config.roles import ASSESSOR, ORGANIZER, assessor_required, has_role, organizer_required, role_required
from pooling.evaluations import LoadError, read_upload
from pooling.models import Evaluation, Run, Topic
from tracks.qa.ciqa import baseline, questionnaire, results, sessions, submissions
from tracks.qa.ciqa.models import InteractionSession, Screenshot, UrlFile
from tracks.qa.formats.ciqa_questionnaire import as_text
from tracks.qa.formats.ciqa_topics import KIND, TRAINING_KIND


def _evaluation(slug):
    evaluation = get_object_or_404(Evaluation, slug=slug)
    if evaluation.track != submissions.TRACK:
        raise Http404("not a ciQA evaluation")
    return evaluation


def _problems(request, exc):
    for problem in exc.problems:
        messages.error(request, problem)


def _topics(evaluation):
    return list(Topic.objects.filter(evaluation=evaluation, kind__in=(KIND, TRAINING_KIND)).order_by("position"))


# ---------------------------------------------------------------- organizer


@organizer_required
def overview(request, slug):
    """Who: organizers. Topics with their templates, runs with stage and pairing, URL files with screenshots,
    the upload forms, the interaction sessions' progress per assessor and the questionnaire's links."""
    evaluation = _evaluation(slug)
    runs = list(Run.objects.filter(evaluation=evaluation).select_related("team").order_by("team__name", "tag"))
    for run in runs:
        run.stage, run.initial = results.stage_of(run), (run.data or {}).get(submissions.INITIAL_TAG, "")
    return render(
        request,
        "qa/ciqa/overview.html",
        {
            "evaluation": evaluation,
            "topics": _topics(evaluation),
            "runs": runs,
            "url_files": UrlFile.objects.filter(evaluation=evaluation)
            .select_related("team", "baseline_run")
            .prefetch_related(questionnaire.SCREENSHOTS),
            "progress": sessions.progress_by_assessor(evaluation),
            "seconds": sessions.allowed_seconds(evaluation),
            "questionnaire_text": as_text(questionnaire.definition(evaluation)),
            "initial_runs": [r for r in runs if r.stage == "initial"],
        },
    )


def _upload(request, kind):
    upload = request.FILES.get("file")
    if upload is None:
        raise LoadError(["choose a file"])
    return upload.name, read_upload(upload, kind)


def _act(request, slug, action):
    """An organizer's form on the overview: `action(evaluation)` returns the success message; a LoadError's
    problems are shown instead (nothing was stored). Back to the overview either way."""
    evaluation = _evaluation(slug)
    try:
        message = action(evaluation)
    except LoadError as exc:
        _problems(request, exc)
    else:
        messages.success(request, message)
    return redirect("qa:ciqa_overview", slug)


@organizer_required
@require_POST
def upload_run(request, slug):
    """Who: organizers. Load a ciQA run as an initial or a final run (naming its initial run)."""

    def load(evaluation):
        name, data = _upload(request, "runs")
        run, replaced = submissions.load_run(
            evaluation,
            data,
            name,
            params.text(request.POST.get("team"), "team"),
            params.text(request.POST.get("stage"), "stage"),
            params.text(request.POST.get("initial"), "initial"),
            manual=request.POST.get("manual") == "on",
            by=request.user,
        )
        return f"{'Replaced' if replaced else 'Loaded'} {results.stage_of(run)} run {run.tag}."

    return _act(request, slug, load)


@organizer_required
@require_POST
def upload_urls(request, slug):
    """Who: organizers. Load a team's URL file (one URL per topic, screenshots' pointers)."""

    def load(evaluation):
        name, data = _upload(request, "urls")
        url_file, replaced = submissions.load_url_file(
            evaluation,
            data,
            name,
            params.text(request.POST.get("team"), "team"),
            manual=request.POST.get("manual") == "on",
            by=request.user,
        )
        return f"{'Replaced' if replaced else 'Loaded'} URL file {url_file.tag}."

    return _act(request, slug, load)


@organizer_required
@require_POST
def upload_screenshot(request, slug, pk):
    """Who: organizers. Add a screenshot image (PNG, JPEG, GIF) to a URL file."""

    def add(evaluation):
        url_file = get_object_or_404(UrlFile, pk=pk, evaluation=evaluation)
        name, data = _upload(request, "images")
        submissions.add_screenshot(url_file, data, name)
        return f"Screenshot added to {url_file.tag}."

    return _act(request, slug, add)


@organizer_required
@require_POST
def make_baseline(request, slug):
    """Who: organizers. Make a run the sentence-retrieval baseline, whose interaction is Assay's sentence page."""
    evaluation = _evaluation(slug)
    run = get_object_or_404(Run, evaluation=evaluation, tag=params.text(request.POST.get("run"), "run"))
    url_file = baseline.baseline_interaction(evaluation, run)
    messages.success(request, f"{run.tag} is the baseline; its interaction is {url_file.tag}.")
    return redirect("qa:ciqa_overview", slug)


@organizer_required
@require_POST
def plan(request, slug):
    """Who: organizers. Plan (or update) every assessor's sessions from the primary assignments and the URL
    files; optionally change the time allowed per interaction."""

    def plan_all(evaluation):
        seconds = request.POST.get("seconds", "").strip()
        if seconds:
            sessions.set_interaction_seconds(
                evaluation, params.integer(seconds, "seconds", maximum=3600), by=request.user
            )
        created, removed = sessions.plan_sessions(evaluation)
        return f"Sessions planned: {created} added, {removed} removed."

    return _act(request, slug, plan_all)


@organizer_required
@require_POST
def define_questionnaire(request, slug):
    """Who: organizers. Define the exit questionnaire (5-point scales with labelled ends, free-text questions)."""

    def define(evaluation):
        text = params.text(request.POST.get("definition"), "definition")
        questionnaire.set_definition(evaluation, text, by=request.user)
        return "Questionnaire saved."

    return _act(request, slug, define)


@organizer_required
def questionnaire_csv(request, slug):
    """Who: organizers. Every current questionnaire answer as CSV (assessor, team, interaction, question)."""
    evaluation = _evaluation(slug)
    response = HttpResponse(questionnaire.csv_text(evaluation), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{evaluation.slug}-questionnaire.csv"'
    return response


@organizer_required
def questionnaire_summary(request, slug):
    """Who: organizers. Mean ratings per interaction and scale question (as the overview's Figure 4), with the
    free-text answers."""
    evaluation = _evaluation(slug)
    scales, rows = questionnaire.summary(evaluation)
    table = [(u, [means.get(q["id"]) for q in scales]) for u, means in rows]
    texts = [a for a in questionnaire.current_answers(evaluation).values() if a.value and not a.value.isdigit()]
    return render(
        request,
        "qa/ciqa/summary.html",
        {"evaluation": evaluation, "scales": scales, "table": table, "texts": texts},
    )


@organizer_required
def board(request, slug):
    """Who: organizers. Pyramid F per run, recall by length of every run, the initial-versus-final table and
    scatter plot (points above y = x: the interaction helped)."""
    evaluation = _evaluation(slug)
    return render(request, "qa/ciqa/board.html", {"evaluation": evaluation, **results.board(evaluation)})


@role_required(ORGANIZER, ASSESSOR)
def screenshot(request, pk):
    """Who: organizers; assessors with a session on the screenshot's system. The image, as uploaded."""
    shot = get_object_or_404(Screenshot.objects.select_related("url_file"), pk=pk)
    if (
        not has_role(request.user, ORGANIZER)
        and not InteractionSession.objects.filter(assessor=request.user, url_file=shot.url_file).exists()
    ):
        raise Http404("no such screenshot")
    response = HttpResponse(bytes(shot.image), content_type=shot.content_type)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Disposition"] = "inline"
    return response


# ---------------------------------------------------------------- assessor


def _my_session(request, pk):
    return get_object_or_404(
        InteractionSession.objects.select_related("evaluation", "topic", "url_file", "url_file__team"),
        pk=pk,
        assessor=request.user,
    )


@assessor_required
def my_sessions(request, slug):
    """Who: assessors, their own sessions only. The interactions to do, in order (training topic first), with
    progress, and the exit questionnaire once all are done."""
    evaluation = _evaluation(slug)
    mine = [sessions.expire(s) for s in sessions.sessions_of(evaluation, request.user)]
    done = sum(1 for s in mine if s.done)
    return render(
        request,
        "qa/ciqa/sessions.html",
        {
            "evaluation": evaluation,
            "sessions": mine,
            "done": done,
            "next": sessions.next_session(mine),
            "questionnaire_open": bool(mine) and done == len(mine),
        },
    )


def _system_url(request, session):
    if session.url_file.baseline_run_id:
        return reverse("qa:ciqa_sentences", args=[session.pk])
    return session.url_file.urls.get(session.topic.ident, "")


@assessor_required
def session_page(request, pk):
    """Who: the session's assessor only. The topic, the button that opens the team's system in a new window and
    starts the count-down, stop early, and skip (with a reason) when the system cannot be reached."""
    session = sessions.expire(_my_session(request, pk))
    mine = sessions.sessions_of(session.evaluation, request.user)
    return render(
        request,
        "qa/ciqa/session.html",
        {
            "session": session,
            "topic": session.topic,
            "system_url": _system_url(request, session),
            "remaining": sessions.remaining_seconds(session),
            "next": sessions.next_session([s for s in mine if s.pk != session.pk]),
            "position": next((i for i, s in enumerate(mine, start=1) if s.pk == session.pk), 0),
            "total": len(mine),
        },
    )


def _session_state(session):
    return {
        "status": session.status,
        "remaining": sessions.remaining_seconds(session),
        "started_at": session.started_at.isoformat() if session.started_at else None,
        "ended_at": session.ended_at.isoformat() if session.ended_at else None,
    }


@assessor_required
@require_POST
def session_start(request, pk):
    """Who: the session's assessor only. Start the clock (again: the same deadline); answers the state as JSON."""
    session = _my_session(request, pk)
    try:
        session = sessions.start(session)
    except LoadError as exc:
        return JsonResponse({"error": "; ".join(exc.problems)}, status=409)
    return JsonResponse(_session_state(session))


@assessor_required
@require_POST
def session_end(request, pk):
    """Who: the session's assessor only. End the session: time up, or stopped early (early=1)."""
    session = _my_session(request, pk)
    try:
        session = sessions.end(session, early=request.POST.get("early") == "1")
    except LoadError as exc:
        if request.headers.get("Accept", "").startswith("application/json"):
            return JsonResponse({"error": "; ".join(exc.problems)}, status=409)
        _problems(request, exc)
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse(_session_state(session))
    return redirect("qa:ciqa_session", session.pk)


@assessor_required
@require_POST
def session_skip(request, pk):
    """Who: the session's assessor only. Skip a system that cannot be reached, with the reason."""
    session = _my_session(request, pk)
    try:
        sessions.skip(session, params.text(request.POST.get("reason"), "reason"))
    except LoadError as exc:
        _problems(request, exc)
    return redirect("qa:ciqa_session", session.pk)


@assessor_required
def sentences(request, pk):
    """Who: the session's assessor only. The baseline interaction: each sentence of the baseline run with
    relevant / not relevant / no opinion; opening it starts the session's clock, as opening a team's system does."""
    session = sessions.expire(_my_session(request, pk))
    if not session.url_file.baseline_run_id:
        raise Http404("not the baseline interaction")
    if request.method == "POST":
        labels = {}
        for key, value in request.POST.items():
            if key.startswith("s-"):
                labels[params.integer(key[2:], key)] = params.text(value, key)
        try:
            saved = baseline.save_labels(session, request.user, labels)
        except LoadError as exc:
            _problems(request, exc)
        else:
            messages.success(request, f"Saved {saved} judgment{'s' if saved != 1 else ''}.")
        return redirect("qa:ciqa_sentences", session.pk)
    if session.started_at is None and not session.done:
        session = sessions.start(session)  # opening the baseline's page is opening its system: the clock runs
    return render(
        request,
        "qa/ciqa/sentences.html",
        {"session": session, "sentences": baseline.sentences(session), "labels": baseline.LABELS},
    )


@assessor_required
def exit_questionnaire(request, slug):
    """Who: assessors, once all their sessions are done. Rate each interaction met (screenshots in random order)
    and answer the overall questions; saving again keeps the earlier answers as history."""
    evaluation = _evaluation(slug)
    if not questionnaire.is_open_to(evaluation, request.user):
        return render(request, "qa/ciqa/questionnaire_closed.html", {"evaluation": evaluation}, status=403)
    definition = questionnaire.definition(evaluation)
    interactions = questionnaire.interactions_for(evaluation, request.user)
    if request.method == "POST":
        values = {}
        for u in [None, *interactions]:
            section = "overall" if u is None else "interaction"
            for q in definition.get(section, []):
                name = f"{u.pk if u else 'all'}-{q['id']}"
                if name in request.POST:
                    values[(u.pk if u else None, q["id"])] = params.text(request.POST[name], name).strip()
        try:
            saved = questionnaire.save_answers(evaluation, request.user, values)
        except LoadError as exc:
            _problems(request, exc)
        else:
            messages.success(request, f"Saved ({saved} answer{'s' if saved != 1 else ''} changed).")
        return redirect("qa:ciqa_questionnaire", slug)
    answers = {(f, q): a.value for (_, f, q), a in questionnaire.current_answers(evaluation, request.user).items()}
    blocks = []
    for u in interactions:
        qs = [
            dict(q, name=f"{u.pk}-{q['id']}", value=answers.get((u.pk, q["id"]), "")) for q in definition["interaction"]
        ]
        blocks.append((u, qs))
    overall = [
        dict(q, name=f"all-{q['id']}", value=answers.get((None, q["id"]), "")) for q in definition.get("overall", [])
    ]
    return render(
        request,
        "qa/ciqa/questionnaire.html",
        {"evaluation": evaluation, "blocks": blocks, "overall": overall, "points": range(1, 6)},
    )


@role_required(ORGANIZER, ASSESSOR)
def demo_system(request, ident):
    """Who: organizers and assessors. The demo's stand-in for a team's interactive system: a small page about one
    topic (URL files of the demo point here)."""
    topic = Topic.objects.filter(Q(kind=KIND) | Q(kind=TRAINING_KIND), ident=ident).first()
    return render(
        request, "qa/ciqa/demo_system.html", {"ident": ident, "topic": topic, "team": request.GET.get("team", "")}
    )
