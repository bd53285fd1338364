"""BioGen pages: an assigned topic with its items, one item at a time (keyboard first, JSON saves through
tracks.biogen.judging), the organizer's overview, and the adjudication queue with one decision page. Thin: the
work is in tracks.biogen.judging; documents only through the corpus viewer's sandboxed frame."""

from collections import Counter

from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from assess import adjudication as shared
from assess import fastsave, item_nav, progress
from assess import judging as generic
from assess.assignments import own_assignment
from assess.models import Judgment
from config import params
from config.auth import read_with_session
from config.roles import ASSESSOR, ORGANIZER, assessor_required, organizer_required, role_required
from corpus import viewer
from pooling.models import Evaluation, PoolItem, Topic
from tracks.biogen import judging
from tracks.biogen.labels import KIND, TEXT, labels_for

KEY_OF = {"accurate": "y", "not_accurate": "n"}  # other labels: their number


def _choices(item, shape):
    return [
        {"label": label, "text": TEXT[label], "key": KEY_OF.get(label, str(n))}
        for n, label in enumerate(labels_for(item.data.get("kind"), shape), start=1)
    ]


def _frame(evaluation, item, evidence=()):
    if judging.item_kind(item) != "citation":
        return ""
    collection = evaluation.collections.order_by("name").first()
    return viewer.frame_url(collection.name, item.docid, marks=list(evidence)) if collection else ""


@assessor_required
def topic_page(request, pk):
    """Who: the assessor the topic is assigned to. The question, narrative and every item to judge."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    items = judging.topic_items(assignment.topic)
    mine = judging.my_judgments(request.user, items)
    rows = [{"item": i, "judgment": mine.get(i.pk)} for i in items]
    first_open = next((i for i in items if i.pk not in mine), items[0] if items else None)
    seconds = (progress.my_time(request.user).get(assignment.topic_id) or {}).get("per_item")
    return render(
        request,
        "biogen/topic.html",
        {
            "assignment": assignment,
            "topic": assignment.topic,
            "rows": rows,
            "judged": len(mine),
            "progress": progress.Progress(len(mine), len(items)),
            "seconds_per_item": seconds,
            "first_open": first_open,
            "closed": generic.is_closed(assignment.topic),
        },
    )


@assessor_required
def item_page(request, pk, item_id):
    """Who: the assessor the topic is assigned to. One answer, sentence or citation (the sentence beside the
    cited abstract) with its labels, each one key. Moving between items (htmx) gets the item's panel only
    (assess.item_nav)."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    items = judging.topic_items(assignment.topic)
    at = next((n for n, i in enumerate(items) if i.pk == item_id), None)
    if at is None:
        raise Http404("no such item in this topic")
    item = items[at]
    mine = judging.my_judgments(request.user, items)
    judgment = mine.get(item.pk)
    value = judgment.value if judgment else {}
    ids = [i.pk for i in items]
    later = ids[at + 1 :] + ids[:at]
    unjudged = next((i for i in later if i not in mine), None)

    def url(other):
        return reverse("biogen:item", args=[assignment.pk, other]) if other else ""

    shape = judging.run_shape(assignment.evaluation)
    state = {
        "version": judgment.version if judgment else 0,
        "value": judgment.value if judgment else None,
        "judge_url": reverse("biogen:judge", args=[item.pk]),
        "kind": item.data.get("kind"),
    }
    return item_nav.render_item(
        request,
        "biogen/item.html",
        "biogen/_item_panel.html",
        {
            "assignment": assignment,
            "topic": assignment.topic,
            "item": item,
            "kind": item.data.get("kind"),
            "choices": _choices(item, shape),
            "value": value,
            "state": state,
            "frame_url": _frame(assignment.evaluation, item, value.get("evidence") or ()),
            "number": at + 1,
            "count": len(items),
            "judged": len(mine),
            "prev_url": url(ids[at - 1] if at > 0 else None),
            "next_url": url(ids[at + 1] if at + 1 < len(ids) else None),
            "unjudged_url": url(unjudged),
            "cited": _sentence_citations(item),
        },
    )


def _sentence_citations(item):
    return item.data.get("pmids") or []


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


@read_with_session(fastsave.ITEM_WITH_SESSION, "item_id")  # the item is read in the session's statement
@require_POST
@assessor_required
def judge(request, item_id):
    """Who: the assessor the item's topic is assigned to. Save a judgment: JSON {version, value: {label,
    evidence}} in; the saved version and value (and the frame showing the marked words) out; 409 with the newer
    judgment when it changed elsewhere."""
    item = generic.item_to_save(request, item_id, judging.TRACK, "BioGen")
    try:
        body = _json_body(request)
        value = body.get("value")
        if isinstance(value, dict):
            value = {"label": value.get("label"), "evidence": value.get("evidence") or []}
        saved = judging.judge_item(request.user, item, value, _version(body))
    except generic.StaleJudgment as exc:
        current = exc.current
        return JsonResponse(
            {"error": str(exc), "version": current.version if current else 0, "value": current and current.value},
            status=409,
        )
    except generic.JudgingError as exc:
        return JsonResponse({"error": str(exc)}, status=exc.status)
    j = saved.judgment
    return JsonResponse(
        {
            "ok": True,
            "version": j.version,
            "value": j.value,
            # the frame with the supporting words marked; none to mark: the page's frame stays (no lookup)
            "frame_url": _frame(item.evaluation, item, j.value["evidence"]) if j.value.get("evidence") else "",
        }
    )


@organizer_required
def overview_page(request, slug):
    """Who: organizers. Per topic, the pool by item kind and how much of it is judged; the adjudication queue
    and the judgment exports."""
    evaluation = get_object_or_404(Evaluation, slug=slug, track=judging.TRACK)
    topics = list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))
    counts = Counter()
    for tid, data in PoolItem.objects.filter(evaluation=evaluation).values_list("topic_id", "data"):
        counts[(tid, data.get("kind"))] += 1
    judged_items = Counter()
    for tid, _item in (
        Judgment.objects.filter(evaluation=evaluation, kind=KIND)
        .values_list("topic_id", "item_id")
        .distinct()
        .order_by()
    ):
        judged_items[tid] += 1
    rows = [
        {
            "topic": t,
            "answers": counts[(t.pk, "answer")],
            "sentences": counts[(t.pk, "sentence")],
            "citations": counts[(t.pk, "citation")],
            "judged": judged_items[t.pk],
        }
        for t in topics
    ]
    queue = judging.adjudication_queue(evaluation)
    return render(
        request,
        "biogen/overview.html",
        {
            "evaluation": evaluation,
            "rows": rows,
            "shape": judging.run_shape(evaluation),
            "open": sum(1 for r in queue if r[3] is None),
            "disputed": len(queue),
        },
    )


@role_required(ORGANIZER, ASSESSOR)
def queue_page(request, slug):
    """Who: organizers and the adjudicators they invited; topics they judged themselves are left out. Every item
    the two assessors labelled differently, both labels and the decision."""
    return shared.queue_page(
        request,
        slug,
        track=judging.TRACK,
        queue=judging.adjudication_queue,
        template="biogen/adjudication.html",
        decide="biogen:adjudicate",
    )


@role_required(ORGANIZER, ASSESSOR)
def decide_page(request, slug, item_id):
    """Who: organizers and invited adjudicators (not the topic's assessors). One disputed item: the topic, the
    item (a citation beside its abstract), both judgments and the decision, one key each."""
    evaluation = shared.adjudicator_evaluation(request.user, slug, judging.TRACK)
    rows, at = shared.queue_row(judging.adjudication_queue, evaluation, request.user, item_id)
    item, primary, secondary, decided = rows[at]
    later = rows[at + 1 :] + rows[:at]
    next_open = next((r[0] for r in later if r[3] is None), None)

    def url(row):
        return reverse("biogen:adjudicate", args=[slug, row[0].pk]) if row else ""

    shape = judging.run_shape(evaluation)
    return render(
        request,
        "biogen/decide.html",
        {
            "evaluation": evaluation,
            "item": item,
            "topic": item.topic,
            "kind": item.data.get("kind"),
            "primary": primary,
            "secondary": secondary,
            "decided": decided,
            "choices": _choices(item, shape),
            "frame_url": _frame(evaluation, item, (decided or primary).value.get("evidence") or ()),
            "prev_url": url(rows[at - 1] if at > 0 else None),
            "next_url": url(rows[at + 1] if at + 1 < len(rows) else None),
            "open_url": reverse("biogen:adjudicate", args=[slug, next_open.pk]) if next_open else "",
            "number": at + 1,
            "count": len(rows),
        },
    )


@require_POST
@role_required(ORGANIZER, ASSESSOR)
def decide(request, slug, item_id):
    """Who: organizers and invited adjudicators (not the topic's assessors). Save the decision (a plain form:
    label or adopt=primary/secondary, and the version seen), then go to the next open disagreement."""
    return shared.decide_form(
        request,
        slug,
        item_id,
        track=judging.TRACK,
        queue=judging.adjudication_queue,
        adjudicate=judging.adjudicate,
        typed_value=_typed_decision,
        namespace="biogen",
    )


def _typed_decision(label, item, primary):
    """A typed label's value: a citation keeps the primary's supporting words (the adjudicator decides the label)."""
    evidence = list(primary.value.get("evidence") or []) if item.data.get("kind") == "citation" else []
    return {"label": label, "evidence": evidence}
