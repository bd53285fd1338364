"""Nugget questions (Other, squishy list, ciQA): the primary's workspace to build the nugget list from all answer
strings, vote vital/okay and mark which nuggets each pool item holds; and the voting page of invited voters, who
see the series' questions and nuggets but never the responses. Writes go through tracks.qa.nugget_judging."""

from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from assess import assist_nuggets, fastsave, judging
from assess.models import Assignment, Judgment, Nugget
from assess.official import REVOTE, VOTE
from config import params
from config.auth import read_with_session, session_companion
from config.roles import ASSESSOR, ORGANIZER, assessor_required, role_required
from pooling.models import Topic
from tracks.qa import nugget_judging, questions
from tracks.qa.access import my_assignment, question_of
from tracks.qa.panels import attach_match, attach_suggestion, votes_by_nugget, workspace_context
from tracks.qa.permissions import may_vote, revote_asked


def _nugget_question(request, pk, qid):
    assignment = my_assignment(request, pk)
    if assignment.role != Assignment.PRIMARY:
        raise Http404("nugget questions are the primary assessor's")
    question = question_of(assignment, qid)
    if not questions.is_nugget_question(question):
        raise Http404("this question is judged instance by instance")
    return assignment, question


@assessor_required
def workspace(request, pk, qid):
    """Who: the primary assessor of this assignment. The nugget workspace partial."""
    assignment, question = _nugget_question(request, pk, qid)
    return render(request, "qa/_nugget_workspace.html", workspace_context(request, assignment, question))


def _workspace(request, assignment, question, message=None, error=None, status=200):
    return render(
        request,
        "qa/_nugget_workspace.html",
        workspace_context(request, assignment, question, message, error),
        status=status,
    )


@assessor_required
@require_POST
def nugget_create(request, pk, qid):
    """Who: the primary assessor of this assignment. A nugget typed or taken from selected answer text."""
    assignment, question = _nugget_question(request, pk, qid)
    try:
        nugget = nugget_judging.create_nugget(request.user, question, params.text(request.POST.get("text"), "text"))
    except params.BadParameter as bad:
        return _workspace(request, assignment, question, error=str(bad), status=400)
    except judging.JudgingError as refused:
        return _workspace(request, assignment, question, error=str(refused), status=refused.status)
    return _workspace(request, assignment, question, message=f"added nugget “{nugget.text[:60]}”")


@assessor_required
@require_POST
def nugget_order(request, pk, qid):
    """Who: the primary assessor of this assignment. Put the nuggets in the posted order."""
    assignment, question = _nugget_question(request, pk, qid)
    try:
        nugget_judging.reorder_nuggets(request.user, question, params.integers(request.POST.getlist("order"), "order"))
    except (judging.JudgingError, params.BadParameter) as refused:
        return _workspace(request, assignment, question, error=str(refused), status=400)
    return _workspace(request, assignment, question, message="reordered")


@assessor_required
@require_POST
def nugget_action(request, pk, qid, nugget_id, action):
    """Who: the primary assessor of this assignment. Edit, move, merge or delete (confirmed) a nugget."""
    assignment, question = _nugget_question(request, pk, qid)
    nugget = get_object_or_404(Nugget, pk=nugget_id, topic=question)
    nugget.topic = question
    try:
        if action == "edit":
            nugget_judging.edit_nugget(request.user, nugget, params.text(request.POST.get("text"), "text"))
            message = "nugget edited"
        elif action in ("up", "down"):
            order = list(Nugget.objects.filter(topic=question).order_by("position", "id").values_list("pk", flat=True))
            i = order.index(nugget.pk)
            j = i - 1 if action == "up" else i + 1
            if 0 <= j < len(order):
                order[i], order[j] = order[j], order[i]
                nugget_judging.reorder_nuggets(request.user, question, order)
            message = "moved"
        elif action == "merge":
            ids = params.integers(request.POST.getlist("sources"), "sources")
            sources = list(Nugget.objects.filter(topic=question, pk__in=ids))
            if not sources:
                raise judging.JudgingError("choose the nugget to merge into this one")
            nugget_judging.merge_nuggets(request.user, nugget, sources)
            message = f"merged into “{nugget.text[:60]}”"
        elif action == "delete":
            nugget_judging.delete_nugget(request.user, nugget, confirmed=request.POST.get("confirm") == "yes")
            message = "nugget deleted with its matches"
        else:
            raise Http404("unknown nugget action")
    except params.BadParameter as bad:
        return _workspace(request, assignment, question, error=str(bad), status=400)
    except judging.JudgingError as refused:
        return _workspace(request, assignment, question, error=str(refused), status=refused.status)
    return _workspace(request, assignment, question, message=message)


@assessor_required
@require_POST
def nuggets_done(request, pk, qid):
    """Who: the primary assessor of this assignment. Mark their own nugget list done: under *reveal after* the
    model server's nugget proposals are shown from then on (assess.assist_nuggets)."""
    assignment, question = _nugget_question(request, pk, qid)
    try:
        new = assist_nuggets.mark_list_done(request.user, question)
    except judging.JudgingError as refused:
        return _workspace(request, assignment, question, error=str(refused), status=refused.status)
    return _workspace(request, assignment, question, message="your own list is marked done" if new else None)


@assessor_required
@require_POST
def proposal(request, pk, qid, suggestion_id, index, action):
    """Who: the primary assessor of this assignment, while the model server's proposals are shown to them. Accept
    proposed nugget `index` (1-based; `text` and `importance` as edited) or reject it."""
    assignment, question = _nugget_question(request, pk, qid)
    try:
        if action == "accept":
            nugget = nugget_judging.accept_proposal(
                request.user,
                question,
                suggestion_id,
                index - 1,
                params.text(request.POST.get("text"), "text") or None,
                params.text(request.POST.get("importance"), "importance") or None,
            )
            message = f"added nugget “{nugget.text[:60]}” from the proposals"
        elif action == "reject":
            nugget_judging.reject_proposal(request.user, question, suggestion_id, index - 1)
            message = "proposal rejected"
        else:
            raise Http404("unknown proposal action")
    except params.BadParameter as bad:
        return _workspace(request, assignment, question, error=str(bad), status=400)
    except judging.JudgingError as refused:
        return _workspace(request, assignment, question, error=str(refused), status=refused.status)
    return _workspace(request, assignment, question, message=message)


@read_with_session(fastsave.ITEM_WITH_SESSION, "item_id")  # the item is read in the session's statement
@assessor_required
@require_POST
def match(request, item_id):
    """Who: the primary assessor of the item's series. Which nuggets this [docid, answer-string] holds."""
    item = judging.item_to_save(request, item_id)  # (any QA track: the role below says whose it is)
    if item.my_role is None:
        raise Http404("no such pool item among your assignments")
    nuggets = list(Nugget.objects.filter(topic=item.topic).order_by("position", "id"))
    for i, n in enumerate(nuggets, start=1):
        n.index = i
    status, message, error = 200, "saved", None
    try:
        version = params.version(request.POST.get("version"))
        wanted = params.integers(request.POST.getlist("nuggets"), "nuggets")
        saved = nugget_judging.match(request.user, item, wanted, version, nuggets=nuggets)
        judgment = saved.judgment
    except params.BadParameter as bad:
        judgment, status, error = None, 400, str(bad)
    except judging.StaleJudgment as stale:
        judgment, status, error = stale.current, 409, str(stale)
    except judging.JudgingError as refused:
        judgment = Judgment.objects.filter(kind="nugget_match", item=item, assessor=request.user).first()
        status, error = refused.status, str(refused)
    attach_match(item, judgment, nuggets)
    attach_suggestion(request.user, item, nuggets)  # after the save: a *reveal after* suggestion may now be shown
    # the workspace's "N matched" comes along out of band, so it counts this save without a reload
    matched = Judgment.objects.filter(topic=item.topic, kind="nugget_match", assessor=request.user).count()
    return render(
        request,
        "qa/_match_row.html",
        {"item": item, "message": message if not error else None, "error": error, "matched_oob": matched},
        status=status,
    )


@read_with_session(fastsave.NUGGET_WITH_SESSION, "nugget_id")  # the nugget and who may vote, with the session
@role_required(ASSESSOR, ORGANIZER)
@require_POST
def vote(request, nugget_id):
    """Who: the primary assessor of the nugget's series and the voters the organizer invited to it. `set=later`:
    the primary's later vote set, once the organizer asked for it."""
    try:
        nugget = judging.load_nugget(request.user, nugget_id, session_companion(request))
    except Nugget.DoesNotExist:
        raise Http404("no such nugget") from None
    if not may_vote(request.user, nugget.topic, nugget):
        raise Http404("no such nugget among your series")
    later = request.POST.get("set") == "later"
    status, error = 200, None
    try:
        version = params.version(request.POST.get("version"))
        judgment = nugget_judging.vote(
            request.user, nugget, params.text(request.POST.get("vote"), "vote"), version, later=later
        ).judgment
    except params.BadParameter as bad:
        judgment, status, error = None, 400, str(bad)
    except judging.StaleJudgment as stale:
        judgment, status, error = stale.current, 409, str(stale)
    except judging.JudgingError as refused:
        judgment = Judgment.objects.filter(kind=REVOTE if later else VOTE, nugget=nugget, assessor=request.user).first()
        status, error = refused.status, str(refused)
    nugget.my_vote = judgment
    return render(
        request,
        "qa/_vote.html",
        {"nugget": nugget, "error": error, "saved": not error, "later": later},
        status=status,
    )


@role_required(ASSESSOR, ORGANIZER)
def vote_series(request, series_id):
    """Who: voters invited to this series (and its primary assessor). The series' questions and their nuggets —
    not the responses — with vital/okay buttons. A primary the organizer asked to vote again votes their later
    set here, shown apart from (and without) their first votes."""
    series = get_object_or_404(Topic.objects.select_related("evaluation"), pk=series_id)
    if not may_vote(request.user, series):
        raise Http404("you are not a voter on this series")
    later = revote_asked(request.user, series)
    primary = later or judging.assignment_role(request.user, series) == Assignment.PRIMARY
    qs = list(Topic.objects.filter(parent=series).order_by("position")) or [series]
    nugget_qs = [q for q in qs if questions.is_nugget_question(q)]
    nuggets = list(Nugget.objects.filter(topic__in=nugget_qs))
    votes = votes_by_nugget(request.user, [n.pk for n in nuggets], REVOTE if later else VOTE)
    for q in nugget_qs:
        q.nugget_list = [n for n in nuggets if n.topic_id == q.pk]
        for i, n in enumerate(q.nugget_list, start=1):
            n.index, n.my_vote = i, votes.get(n.pk)
    return render(
        request,
        "qa/vote_series.html",
        {"series": series, "questions": qs, "later": later, "primary": primary, "nugget_questions": nugget_qs},
    )
