"""QA4MRE 2012 pages: the organizer's overview, per-question view and reading tests; per-run reports.

Pages only read what was stored (topics, run entries, the Score rows scoring wrote); nothing is computed here beyond
ranking stored values. Document text is untrusted: it is shown through the corpus viewer when there is one, and
otherwise as auto-escaped text.
"""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from config import params
from config.roles import ASSESSOR, ORGANIZER, PARTICIPANT, has_role, organizer_required, role_required
from corpus import viewer
from pooling.evaluations import LoadError, read_upload
from pooling.models import Evaluation, Run, RunEntry, Topic
from scoring.models import Score
from tracks.qa4mre.loading import TRACK, docs_collection_name, has_gold, load_gold
from tracks.qa4mre.report import LABELS, report_rows, results_csv


def _evaluation(slug):
    evaluation = get_object_or_404(Evaluation, slug=slug)
    if evaluation.track != TRACK:
        raise Http404("not a QA4MRE evaluation")
    return evaluation


def document_frame_url(evaluation, test, user):
    """The sandboxed corpus viewer's URL for a reading test's document, or None where the page shows the escaped
    text instead: for users the viewer does not serve (participants) or a test without a document."""
    docno = (test.data or {}).get("docno")
    if not docno or not has_role(user, ORGANIZER, ASSESSOR):
        return None
    return viewer.frame_url(docs_collection_name(evaluation), docno)


def _reading_tests(evaluation):
    """[(reading-test Topic, [question Topic])] in file order, with each test's topic as `test.parent`."""
    topics = list(Topic.objects.filter(evaluation=evaluation).select_related("parent").order_by("position"))
    tests = [t for t in topics if t.kind == "reading-test"]
    questions = {}
    for q in topics:
        if q.kind == "question":
            questions.setdefault(q.parent_id, []).append(q)
    return [(t, questions.get(t.pk, [])) for t in tests]


def _run_scores(evaluation):
    """{run pk: {measure: value}} of run-scope scores, plus each run's counts under "detail"."""
    scores = {}
    for run_id, measure, value, detail in Score.objects.filter(run__evaluation=evaluation, scope=Score.RUN).values_list(
        "run_id", "measure", "value", "detail"
    ):
        scores.setdefault(run_id, {})[measure] = value
        scores[run_id]["detail"] = detail
    return scores


@organizer_required
def overview(request, slug):
    """Who: organizers. Test set, gold status and every run's c@1, with links to questions and reports."""
    evaluation = _evaluation(slug)
    runs = list(Run.objects.filter(evaluation=evaluation).select_related("team"))
    scores = _run_scores(evaluation)
    for run in runs:
        run.qa4mre = scores.get(run.pk, {})
    runs.sort(key=lambda r: (r.qa4mre.get("c_at_1") is None, -(r.qa4mre.get("c_at_1") or 0), r.tag))
    return render(
        request,
        "qa4mre/overview.html",
        {
            "evaluation": evaluation,
            "tests": _reading_tests(evaluation),
            "runs": runs,
            "gold_loaded": has_gold(evaluation),
            "labels": LABELS,
            "gold_problems": request.session.pop("qa4mre_gold_problems", []),
        },
    )


@organizer_required
@require_POST
def upload_gold(request, slug):
    """Who: organizers. Loads the gold standard (as `manage.py load_gold`) and rescores every run."""
    evaluation = _evaluation(slug)
    upload = request.FILES.get("gold")
    if upload is None:
        messages.error(request, "Choose a gold-standard file.")
        return redirect("qa4mre:overview", slug=slug)
    try:
        reason = params.text(request.POST.get("reason"), "reason")
        questions, without = load_gold(
            evaluation, read_upload(upload, "gold"), upload.name, by=request.user, reason=reason
        )
    except LoadError as exc:
        request.session["qa4mre_gold_problems"] = exc.problems[:200]
        messages.error(request, f"{upload.name} was not loaded: {len(exc.problems)} problem(s).")
    else:
        messages.info(
            request,
            f"Gold answers of {questions} questions loaded ({without} without a correct answer); every run rescored.",
        )
    return redirect("qa4mre:overview", slug=slug)


@organizer_required
def results(request, slug):
    """Who: organizers. Every run's c@1, accuracy and self-validation per run, topic and reading test, as CSV."""
    evaluation = _evaluation(slug)
    response = HttpResponse(results_csv(evaluation), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-results.csv"'
    return response


@organizer_required
def questions(request, slug):
    """Who: organizers. Every question with its gold answer and what each run answered."""
    evaluation = _evaluation(slug)
    runs = list(Run.objects.filter(evaluation=evaluation).select_related("team").order_by("tag"))
    responses = {
        (run_id, topic_id): data
        for run_id, topic_id, data in RunEntry.objects.filter(run__evaluation=evaluation).values_list(
            "run_id", "topic_id", "data"
        )
    }
    tests = []
    for test, qs in _reading_tests(evaluation):
        rows = []
        for q in qs:
            gold = (q.data or {}).get("correct")
            cells = [_cell(responses.get((run.pk, q.pk)), gold, "correct" in (q.data or {})) for run in runs]
            rows.append(
                {"question": q, "gold": gold, "cells": cells, "right": sum(1 for c in cells if c["status"] == "right")}
            )
        tests.append({"test": test, "rows": rows})
    return render(
        request,
        "qa4mre/questions.html",
        {
            "evaluation": evaluation,
            "runs": runs,
            "tests": tests,
            "gold_loaded": has_gold(evaluation),
        },
    )


def _cell(response, gold, gold_known):
    """What a run answered to one question, and how it fared against the gold standard."""
    if response is None:
        return {"text": "–", "status": "missing"}
    a_id = response.get("a_id")
    if response.get("answered"):
        status = ("right" if a_id == gold and gold is not None else "wrong") if gold_known else "unknown"
        return {"text": f"{a_id}", "status": status}
    if a_id is None:
        return {"text": "NO", "status": "unanswered"}
    status = (
        ("candidate-right" if a_id == gold and gold is not None else "candidate-wrong") if gold_known else "unanswered"
    )
    return {"text": f"NO ({a_id})", "status": status}


@organizer_required
def reading_test(request, slug, ident):
    """Who: organizers. A reading test's document (through the viewer) and its questions with the gold answers."""
    evaluation = _evaluation(slug)
    test = get_object_or_404(Topic, evaluation=evaluation, ident=ident, kind="reading-test")
    qs = list(Topic.objects.filter(parent=test, kind="question").order_by("position"))
    return render(
        request,
        "qa4mre/reading_test.html",
        {
            "evaluation": evaluation,
            "test": test,
            "questions": qs,
            "show_gold": True,
            "frame_url": document_frame_url(evaluation, test, request.user),
        },
    )


@role_required(ORGANIZER, PARTICIPANT)
def run_report(request, slug, tag):
    """Who: organizers, any run at any time; participants, their own teams' runs once the evaluation's scores
    are released."""
    evaluation = _evaluation(slug)
    run = get_object_or_404(Run.objects.select_related("team", "evaluation"), evaluation=evaluation, tag=tag)
    # The same answer for another team's run and an unreleased one, so nothing leaks about other teams' runs
    # (as scoring's own run reports do).
    if not has_role(request.user, ORGANIZER) and (
        evaluation.state != Evaluation.RELEASED or not run.team.members.filter(pk=request.user.pk).exists()
    ):
        raise Http404("No report for this run.")
    rows = report_rows(run)
    responses = {topic_id: data for topic_id, data in run.entries.values_list("topic_id", "data")}
    tests = []
    for test, qs in _reading_tests(evaluation):
        items = [
            {
                "question": q,
                "cell": _cell(responses.get(q.pk), (q.data or {}).get("correct"), "correct" in (q.data or {})),
            }
            for q in qs
        ]
        tests.append({"test": test, "items": items, "frame_url": document_frame_url(evaluation, test, request.user)})
    return render(
        request,
        "qa4mre/report.html",
        {
            "evaluation": evaluation,
            "run": run,
            "rows": rows,
            "tests": tests,
            "labels": LABELS,
        },
    )
