"""TREC RAG pages: an assigned topic with its work, support judged batched by segment, relevance one segment at a
time, the nugget list with the machine's suggestions, nugget assignment per answer (all keyboard first, JSON
saves; moving between segments or answers swaps the panel in, assess.item_nav), the organizer's overview, and the
adjudication queue with one decision page. Thin: the work is in tracks.rag.judging; segments only through the
corpus viewer's sandboxed frame."""

from collections import Counter

from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from assess import adjudication as shared
from assess import assist_nuggets, fastsave, item_nav, progress
from assess import judging as generic
from assess.assignments import own_assignment
from assess.models import Judgment, Nugget
from config import params
from config.auth import read_with_session
from config.roles import ASSESSOR, ORGANIZER, assessor_required, organizer_required, role_required
from corpus import viewer
from pooling.evaluations import LoadError, read_upload
from pooling.models import Evaluation, PoolItem, Topic
from tracks.rag import judging
from tracks.rag.labels import ASSIGNMENTS, IMPORTANCE_KIND, KIND, TEXT, item_kind, labels_for
from tracks.rag.suggestions import SuggestionError, load_suggestions

# the number keys' order of each kind's labels: relevance 1-4 are grades 0-3
CHOICES = {kind: [(n, label, TEXT[label]) for n, label in enumerate(labels_for(kind), start=1)] for kind in
           ("relevance", "support")}  # fmt: skip
ASSIGN_CHOICES = [(n, a, TEXT[a]) for n, a in enumerate(ASSIGNMENTS, start=1)]


def _frame(evaluation, docid):
    collection = evaluation.collections.order_by("name").first()
    return viewer.frame_url(collection.name, docid) if collection and docid else ""


def _state(item, judgment):
    return {
        "judge_url": reverse("rag:judge", args=[item.pk]),
        "version": judgment.version if judgment else 0,
        "value": judgment.value if judgment else None,
    }


@assessor_required
def topic_page(request, pk):
    """Who: the assessor the topic is assigned to. The topic, and its relevance, support, nugget and assignment
    work with how much of each is judged."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    topic = assignment.topic
    items = judging.topic_items(topic)
    mine = judging.my_judgments(request.user, items)
    counts, done = Counter(), Counter()
    for i in items:
        counts[item_kind(i.key)] += 1
        done[item_kind(i.key)] += i.pk in mine
    batches = judging.support_batches(topic)
    rows = [
        {"number": n, "segment": segid, "sentences": len(b), "judged": sum(1 for i in b if i.pk in mine)}
        for n, (segid, b) in enumerate(batches, start=1)
    ]
    first_open = next((r["number"] for r in rows if r["judged"] < r["sentences"]), None)
    seconds = (progress.my_time(request.user).get(topic.pk) or {}).get("per_item")
    return render(
        request,
        "rag/topic.html",
        {
            "assignment": assignment,
            "topic": topic,
            "batches": rows,
            "first_open": first_open,
            "counts": counts,
            "done": done,
            "progress": progress.Progress(len(mine), len(items)),
            "seconds_per_item": seconds,
            "relevance": [i for i in items if item_kind(i.key) == "relevance"],
            "answers": [i for i in items if item_kind(i.key) == "answer"],
            "mine": mine,
            "nuggets": judging.nuggets_of(topic),
            "suggestions": len(judging.suggestions_for(request.user, topic)),
            "primary": assignment.role == "primary",
            "closed": generic.is_closed(topic),
        },
    )


@assessor_required
def support_page(request, pk, number):
    """Who: the assessor the topic is assigned to. One cited segment (in the sandboxed frame) beside every
    sentence of every run that cites it, each judged full, partial or no support with one key."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    batches = judging.support_batches(assignment.topic)
    if not 1 <= number <= len(batches):
        raise Http404("no such segment batch in this topic")
    segid, items = batches[number - 1]
    every = [i for _, b in batches for i in b]
    mine = judging.my_judgments(request.user, every)
    later = list(range(number + 1, len(batches) + 1)) + list(range(1, number))
    unjudged = next((n for n in later if any(i.pk not in mine for i in batches[n - 1][1])), None)

    def url(n):
        return reverse("rag:support", args=[assignment.pk, n]) if n else ""

    rows = [{"item": i, "judgment": mine.get(i.pk), "state": _state(i, mine.get(i.pk))} for i in items]
    return item_nav.render_item(
        request,
        "rag/support.html",
        "rag/_support_panel.html",
        {
            "assignment": assignment,
            "topic": assignment.topic,
            "segment": segid,
            "rows": rows,
            "choices": CHOICES["support"],
            "frame_url": _frame(assignment.evaluation, segid),
            "number": number,
            "count": len(batches),
            "judged": sum(1 for i in items if i.pk in mine),
            "prev_url": url(number - 1 if number > 1 else None),
            "next_url": url(number + 1 if number < len(batches) else None),
            "unjudged_url": url(unjudged),
        },
    )


def _neighbours(items, at, mine, name, assignment):
    ids = [i.pk for i in items]
    later = ids[at + 1 :] + ids[:at]

    def url(other):
        return reverse(name, args=[assignment.pk, other]) if other else ""

    return {
        "prev_url": url(ids[at - 1] if at > 0 else None),
        "next_url": url(ids[at + 1] if at + 1 < len(ids) else None),
        "unjudged_url": url(next((i for i in later if i not in mine), None)),
    }


@assessor_required
def relevance_page(request, pk, item_id):
    """Who: the assessor the topic is assigned to. One cited or pooled segment beside the topic, graded 0-3 with
    one key (then the next unjudged segment)."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    items = judging.topic_items(assignment.topic, "relevance")
    at = next((n for n, i in enumerate(items) if i.pk == item_id), None)
    if at is None:
        raise Http404("no such segment in this topic's relevance pool")
    mine = judging.my_judgments(request.user, items)
    item = items[at]
    return item_nav.render_item(
        request,
        "rag/relevance.html",
        "rag/_relevance_panel.html",
        {
            "assignment": assignment,
            "topic": assignment.topic,
            "item": item,
            "judgment": mine.get(item.pk),
            "state": _state(item, mine.get(item.pk)),
            "choices": CHOICES["relevance"],
            "frame_url": _frame(assignment.evaluation, item.docid),
            "number": at + 1,
            "count": len(items),
            "judged": len(mine),
            **_neighbours(items, at, mine, "rag:relevance", assignment),
        },
    )


@assessor_required
def assign_page(request, pk, item_id):
    """Who: the assessor the topic is assigned to. One answer beside the topic's nuggets, each nugget assigned
    support, partial support or no support with one key."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    items = judging.topic_items(assignment.topic, "answer")
    at = next((n for n, i in enumerate(items) if i.pk == item_id), None)
    if at is None:
        raise Http404("no such answer in this topic")
    mine = judging.my_judgments(request.user, items)
    nuggets = judging.nuggets_of(assignment.topic)
    full = {
        pk for pk, j in mine.items() if all(str(n.pk) in (j.value.get("nuggets") or {}) for n, _ in nuggets)
    }  # answers with every nugget assigned
    item = items[at]
    judgment = mine.get(item.pk)
    held = (judgment.value.get("nuggets") or {}) if judgment else {}
    return item_nav.render_item(
        request,
        "rag/assign.html",
        "rag/_assign_panel.html",
        {
            "assignment": assignment,
            "topic": assignment.topic,
            "item": item,
            "rows": [{"nugget": n, "importance": imp, "assigned": held.get(str(n.pk))} for n, imp in nuggets],
            "state": _state(item, judgment),
            "choices": ASSIGN_CHOICES,
            "number": at + 1,
            "count": len(items),
            "judged": len(full),
            **_neighbours(items, at, full, "rag:assign", assignment),
        },
    )


@assessor_required
def nuggets_page(request, pk):
    """Who: the assessor the topic is assigned to (only its primary assessor changes the list). The topic's
    nuggets (vital/okay) and the machine's suggestions to accept, edit or reject."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    topic = assignment.topic
    at = params.integer(request.GET.get("at", "0"), "at", maximum=10_000)
    versions = dict(  # the user's own importance judgments: the version a change is made against
        Judgment.objects.filter(topic=topic, kind=IMPORTANCE_KIND, assessor=request.user).values_list(
            "nugget_id", "version"
        )
    )
    files = assist_nuggets.file_suggestions_state(request.user, topic)  # a nuggetizer file's, as the condition allows
    suggestions = list(enumerate(judging.suggestions(topic))) if files in ("open", "shown") else []
    proposals = assist_nuggets.visible(request.user, topic)  # the model server's, as its condition allows
    waiting = proposals.state == "waiting" or (files == "waiting" and bool(judging.suggestions(topic)))
    return render(
        request,
        "rag/nuggets.html",
        {
            "assignment": assignment,
            "topic": topic,
            "nuggets": [(n, importance, versions.get(n.pk, 0)) for n, importance in judging.nuggets_of(topic)],
            "suggestions": suggestions,
            "proposals": proposals,
            "waiting": waiting,
            "suggested_count": len(suggestions) + len(proposals.pending),
            "at": at,
            "primary": assignment.role == "primary",
            "relevant": _relevant(request.user, topic),
        },
    )


def _relevant(user, topic):
    """The segments the user graded highly or perfectly relevant: where the topic's nuggets are read from."""
    items = judging.topic_items(topic, "relevance")
    mine = judging.my_judgments(user, items)
    return [i.docid for i in items if i.pk in mine and mine[i.pk].value.get("label") in ("2", "3")]


def _json_body(request):
    try:
        return params.json_object(request.body)
    except params.BadParameter as bad:
        raise generic.JudgingError(str(bad)) from None


def _version(body):
    version = body.get("version")
    if type(version) is not int or not 0 <= version <= params.INT_MAX:
        raise generic.JudgingError("the request did not say which version you saw; reload the page")
    return version


def _refused(exc):
    if isinstance(exc, generic.StaleJudgment):
        current = exc.current
        return JsonResponse(
            {"error": str(exc), "version": current.version if current else 0, "value": current and current.value},
            status=409,
        )
    return JsonResponse({"error": str(exc)}, status=exc.status)


@read_with_session(fastsave.ITEM_WITH_SESSION, "item_id")  # the item is read in the session's statement
@require_POST
@assessor_required
def judge(request, item_id):
    """Who: the assessor the item's topic is assigned to. Save a judgment: JSON {version, value: {label,
    nuggets}} in, the saved version and value out; 409 with the newer judgment when it changed elsewhere."""
    item = generic.item_to_save(request, item_id, judging.TRACK, "RAG")
    try:
        body = _json_body(request)
        value = body.get("value")
        if isinstance(value, dict):
            value = {"label": value.get("label"), "nuggets": value.get("nuggets") or {}}
        saved = judging.judge_item(request.user, item, value, _version(body))
    except generic.JudgingError as exc:
        return _refused(exc)
    return JsonResponse({"ok": True, "version": saved.judgment.version, "value": saved.judgment.value})


def _own_topic(request, pk):
    return own_assignment(request.user, pk, judging.TRACK).topic


@require_POST
@assessor_required
def nugget_create(request, pk):
    """Who: the topic's primary assessor. A new nugget: JSON {text, importance} in, its id out."""
    topic = _own_topic(request, pk)
    try:
        body = _json_body(request)
        nugget = judging.create_nugget(
            request.user, topic, params.text(body.get("text"), "text"), body.get("importance")
        )
    except generic.JudgingError as exc:
        return _refused(exc)
    return JsonResponse({"ok": True, "id": nugget.pk})


@require_POST
@assessor_required
def nugget_change(request, pk, nugget_id):
    """Who: the topic's primary assessor. JSON {action: "edit", text} | {action: "importance", importance,
    version} | {action: "delete"}."""
    topic = _own_topic(request, pk)
    nugget = get_object_or_404(Nugget, pk=nugget_id, topic=topic)
    try:
        body = _json_body(request)
        action = body.get("action")
        if action == "edit":
            judging.edit_nugget(request.user, nugget, params.text(body.get("text"), "text"))
        elif action == "importance":
            saved = judging.set_importance(request.user, nugget, body.get("importance"), _version(body))
            return JsonResponse({"ok": True, "version": saved.judgment.version, "value": saved.judgment.value})
        elif action == "delete":
            judging.delete_nugget(request.user, nugget)
        else:
            raise judging.RagError("action is edit, importance or delete")
    except generic.JudgingError as exc:
        return _refused(exc)
    return JsonResponse({"ok": True})


@require_POST
@assessor_required
def suggestion(request, pk, index):
    """Who: the topic's primary assessor. JSON {action: "accept", text, importance} | {action: "reject"} on
    suggestion `index` (1-based, as the page numbers them)."""
    return _accept_or_reject(
        request,
        pk,
        lambda topic, text, importance: judging.accept_suggestion(request.user, topic, index - 1, text, importance),
        lambda topic: judging.reject_suggestion(request.user, topic, index - 1),
    )


@require_POST
@assessor_required
def proposal(request, pk, suggestion_id, index):
    """Who: the topic's primary assessor, while the model server's proposals are shown to them. JSON {action:
    "accept", text, importance} | {action: "reject"} on proposed nugget `index` (1-based)."""
    return _accept_or_reject(
        request,
        pk,
        lambda topic, text, importance: judging.accept_proposal(
            request.user, topic, suggestion_id, index - 1, text, importance
        ),
        lambda topic: judging.reject_proposal(request.user, topic, suggestion_id, index - 1),
    )


def _accept_or_reject(request, pk, accept, reject):
    """A suggested nugget (a file's or a model server's) accepted as edited, or rejected."""
    topic = _own_topic(request, pk)
    try:
        body = _json_body(request)
        action = body.get("action")
        if action == "accept":
            text = body.get("text")
            nugget = accept(topic, None if text is None else params.text(text, "text"), body.get("importance"))
            return JsonResponse({"ok": True, "id": nugget.pk})
        if action == "reject":
            reject(topic)
            return JsonResponse({"ok": True})
        raise judging.RagError("action is accept or reject")
    except generic.JudgingError as exc:
        return _refused(exc)


@require_POST
@assessor_required
def nuggets_done(request, pk):
    """Who: the topic's primary assessor. Mark their own nugget list done (under *reveal after*, the model
    server's proposals are shown only from then on), then back to the nugget page."""
    topic = _own_topic(request, pk)
    try:
        assist_nuggets.mark_list_done(request.user, topic)
    except generic.JudgingError as exc:
        return _refused(exc)
    return redirect("rag:nuggets", pk)


@organizer_required
def overview_page(request, slug):
    """Who: organizers. Per topic, the pool by item kind and how much is judged, the nuggets and suggestions;
    the adjudication queue and the exports."""
    evaluation = get_object_or_404(Evaluation, slug=slug, track=judging.TRACK)
    topics = list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))
    counts = Counter()
    for tid, key in PoolItem.objects.filter(evaluation=evaluation).values_list("topic_id", "key"):
        counts[(tid, item_kind(key))] += 1
    judged = Counter(
        tid
        for tid, _ in Judgment.objects.filter(evaluation=evaluation, kind=KIND)
        .values_list("topic_id", "item_id")
        .distinct()
        .order_by()
    )
    nuggets = Counter(Nugget.objects.filter(topic__evaluation=evaluation).values_list("topic_id", flat=True))
    rows = [
        {
            "topic": t,
            "relevance": counts[(t.pk, "relevance")],
            "support": counts[(t.pk, "support")],
            "answers": counts[(t.pk, "answer")],
            "judged": judged[t.pk],
            "nuggets": nuggets[t.pk],
            "suggestions": len(judging.suggestions(t)),
        }
        for t in topics
    ]
    queue = judging.adjudication_queue(evaluation)
    return render(
        request,
        "rag/overview.html",
        {"evaluation": evaluation, "rows": rows, "open": sum(1 for r in queue if r[3] is None), "disputed": len(queue)},
    )


@require_POST
@organizer_required
def suggestions_upload(request, slug):
    """Who: organizers. Load a nuggetizer nuggets file as the topics' suggested nuggets (as `manage.py
    rag_suggestions`); a refused file is named line by line and nothing is stored."""
    evaluation = get_object_or_404(Evaluation, slug=slug, track=judging.TRACK)
    upload = request.FILES.get("file")
    if upload is None:
        raise params.BadParameter("file: choose a nuggetizer nuggets file")
    try:
        topics, count = load_suggestions(evaluation, read_upload(upload, "topics"), upload.name, request.user)
    except (SuggestionError, LoadError) as exc:
        problems = exc.problems if isinstance(exc, LoadError) else str(exc).splitlines()
        return render(request, "rag/suggestions_refused.html", {"evaluation": evaluation, "problems": problems},
                      status=400)  # fmt: skip
    messages.success(request, f"{count} suggested nuggets loaded for {topics} topics.")
    return redirect("rag:overview", slug)


@role_required(ORGANIZER, ASSESSOR)
def queue_page(request, slug):
    """Who: organizers and the adjudicators they invited; topics they judged themselves are left out. Every item
    the two assessors judged differently, both judgments and the decision."""
    return shared.queue_page(
        request,
        slug,
        track=judging.TRACK,
        queue=judging.adjudication_queue,
        template="rag/adjudication.html",
        decide="rag:adjudicate",
    )


def _named(value, names):
    return [(names.get(int(k), f"nugget {k}"), a) for k, a in (value.get("nuggets") or {}).items()]


@role_required(ORGANIZER, ASSESSOR)
def decide_page(request, slug, item_id):
    """Who: organizers and invited adjudicators (not the topic's assessors). One disputed item, both judgments
    and the decision, one key each."""
    evaluation = shared.adjudicator_evaluation(request.user, slug, judging.TRACK)
    rows, at = shared.queue_row(judging.adjudication_queue, evaluation, request.user, item_id)
    item, primary, secondary, decided = rows[at]
    later = rows[at + 1 :] + rows[:at]
    next_open = next((r[0] for r in later if r[3] is None), None)

    def url(row):
        return reverse("rag:adjudicate", args=[slug, row[0].pk]) if row else ""

    kind = item_kind(item.key)
    names = dict(Nugget.objects.filter(topic_id=item.topic_id).values_list("id", "text"))
    return render(
        request,
        "rag/decide.html",
        {
            "evaluation": evaluation,
            "item": item,
            "topic": item.topic,
            "kind": kind,
            "primary": primary,
            "secondary": secondary,
            "decided": decided,
            "primary_nuggets": _named(primary.value, names),
            "secondary_nuggets": _named(secondary.value, names),
            "choices": CHOICES.get(kind, []),
            "frame_url": _frame(evaluation, item.docid) if kind != "answer" else "",
            "prev_url": url(rows[at - 1] if at > 0 else None),
            "next_url": url(rows[at + 1] if at + 1 < len(rows) else None),
            "open_url": reverse("rag:adjudicate", args=[slug, next_open.pk]) if next_open else "",
            "number": at + 1,
            "count": len(rows),
        },
    )


@require_POST
@role_required(ORGANIZER, ASSESSOR)
def decide(request, slug, item_id):
    """Who: organizers and invited adjudicators (not the topic's assessors). Save the decision (a plain form:
    label, or adopt=primary/secondary, and the version seen), then go to the next open disagreement."""
    return shared.decide_form(
        request,
        slug,
        item_id,
        track=judging.TRACK,
        queue=judging.adjudication_queue,
        adjudicate=judging.adjudicate,
        typed_value=_typed_decision,
        namespace="rag",
    )


def _typed_decision(label, item, primary):
    """A typed label's value (a grade or support label; an answer's assignments are decided by adopting a side)."""
    return {"label": label, "nuggets": {}}
