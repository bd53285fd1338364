"""The organizer's page of NIL answers: every factoid question of an evaluation, how its NIL stands, and the
decision to mark its answer NIL, not NIL, or back to the judgments (tracks.qa.nil_answers)."""

from django.contrib import messages
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render

from config import params
from config.roles import organizer_required
from pooling.models import Evaluation
from tracks.qa import nil_answers


@organizer_required
def nil_page(request, slug):
    """Who: organizers. GET lists the factoid questions; POST (qid, decision, reason) records one decision."""
    evaluation = get_object_or_404(Evaluation, slug=slug)
    if not nil_answers.nil_allowed(evaluation):
        raise Http404("this evaluation's track allows no NIL responses")
    if request.method == "POST":
        try:
            qid, decision = (
                params.text(request.POST.get("qid"), "qid"),
                params.text(request.POST.get("decision"), "decision"),
            )
            reason = params.text(request.POST.get("reason"), "reason")
        except params.BadParameter as bad:
            return HttpResponseBadRequest(str(bad))
        question = evaluation.topics.filter(ident=qid).first()
        if question is None:
            raise Http404("no such question")
        try:
            changed = nil_answers.set_answer_is_nil(request.user, question, decision, reason)
        except nil_answers.NilError as exc:
            messages.error(request, str(exc))
        else:
            if changed:
                messages.success(request, f"{question.ident}: recorded; its scores are being recomputed.")
        return redirect(request.path + f"#q-{question.ident}")
    return render(
        request,
        "qa/nil_answers.html",
        {"evaluation": evaluation, "rows": nil_answers.nil_rows(evaluation)},
    )
