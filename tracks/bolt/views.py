"""BOLT IR judging pages: citations (yes/maybe/no, translation, source checked, relspans), citations the assessor
finds in a thread, grouping views, and the organizer's agreement page. Thin: the work is in tracks.bolt.judging.

Moving between citations swaps the citation panel in as an htmx partial (same URL, pushed to history); saves are
JSON posts answered with JSON (static/js/bolt.js), one at a time per page, so answers given while a save is in
flight go out with the version it returns. Every write goes through assess.judging via tracks.bolt.judging, with
the version the page last saw.
"""

import html

from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from assess import fastsave, item_nav, keymap
from assess import judging as generic
from assess.assignments import own_assignment
from assess.models import Judgment
from config import params
from config.auth import read_with_session
from config.roles import ORGANIZER, PARTICIPANT, assessor_required, role_required
from corpus import viewer
from corpus.formats import bolt_forum
from corpus.models import Document
from pooling.models import Evaluation, PoolItem
from tracks.bolt import judging, overview
from tracks.bolt.formats.topics import team_view
from tracks.bolt.measures import MEASURES
from tracks.bolt.scorer import GROUP_MEASURES

# Keys from the one key map: y/m/n are the relevance actions, translation grades are numbered choices.
REL_KEYS = tuple((rel, keymap.key(rel)) for rel in ("yes", "maybe", "no"))
TRANS_KEYS = tuple(
    (trans, keymap.number(n), label)
    for n, (trans, label) in enumerate(
        (("accept", "acceptable"), ("problematic", "problematic"), ("notaccept", "not acceptable")), start=1
    )
)


GROUP_LABELS = {m.name: m.label for m in MEASURES if m.name in GROUP_MEASURES}


def _topic_context(assignment):
    topic = assignment.topic
    return {
        "assignment": assignment,
        "topic": topic,
        "assessor_fields": topic.data.get("assessor") or {},
        "language_target": topic.data.get("language_target", "none"),
    }


@assessor_required
def topic_page(request, pk):
    """Who: the assessor the topic is assigned to. The topic (query, description, rules) and its citations."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    items = judging.citation_items(assignment.topic)
    mine = judging.my_judgments(request.user, items)
    rows = [{"item": i, "judgment": mine.get(i.pk)} for i in items]
    views = judging.grouping_views(assignment.topic)
    first_open = next((r["item"] for r in rows if not r["judgment"]), None)  # where u goes
    return render(
        request,
        "bolt/topic.html",
        _topic_context(assignment)
        | {"rows": rows, "judged": sum(1 for r in rows if r["judgment"]), "views": views, "first_open": first_open},
    )


def _neighbours(items, item, mine):
    ids = [i.pk for i in items]
    at = ids.index(item.pk)
    prev_id = ids[at - 1] if at > 0 else None
    next_id = ids[at + 1] if at + 1 < len(ids) else None
    later = ids[at + 1 :] + ids[:at]
    unjudged = next((i for i in later if i not in mine), None)
    return prev_id, next_id, unjudged, at + 1


@assessor_required
def item_page(request, pk, item_id):
    """Who: the assessor the topic is assigned to. One citation: passage, its span in the thread, the judgment.
    An htmx request (moving between citations) gets the citation panel only; a direct load or htmx restoring
    history gets the whole page."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    items = judging.citation_items(assignment.topic)
    item = next((i for i in items if i.pk == item_id), None)
    if item is None:
        raise Http404("no such citation in this topic")
    context = _topic_context(assignment) | _citation_panel_context(request.user, assignment, items, item)
    return item_nav.render_item(request, "bolt/item.html", "bolt/_citation_panel.html", context)


def _citation_panel_context(user, assignment, items, item):
    mine = judging.my_judgments(user, items)
    judgment = mine.get(item.pk)
    prev_id, next_id, unjudged, number = _neighbours(items, item, mine)
    collection = judging.collection_of(assignment.evaluation)
    frame = None
    if collection is not None:
        frame = viewer.frame_url(
            collection.name, item.docid, spans=[(item.data["post"], item.data["offset"], item.data["length"])]
        )
    value = judgment.value if judgment else None
    state = {
        "item": item.pk,
        "passage": item.text,
        "version": judgment.version if judgment else 0,
        "value": value,
        "judge_url": reverse("bolt:judge", args=[item.pk]),
    }

    def url(other):
        return reverse("bolt:item", args=[assignment.pk, other]) if other else ""

    return {
        "item": item,
        "frame_url": frame,
        "state": state,
        "value": value or {},
        "number": number,
        "count": len(items),
        "judged": len(mine),
        "prev_url": url(prev_id),
        "next_url": url(next_id),
        "unjudged_url": url(unjudged),
        "rel_keys": REL_KEYS,
        "trans_keys": TRANS_KEYS,
    }


def _json_body(request):
    try:
        return params.json_object(request.body)
    except params.BadParameter as bad:
        raise generic.JudgingError(str(bad)) from None


def _json_text(body, name, default=""):
    """A string field of a JSON body (NUL-free: it is stored or looked up in text columns)."""
    try:
        return params.text(body.get(name), name, default)
    except params.BadParameter as bad:
        raise generic.JudgingError(str(bad)) from None


def _judgment_json(judgment):
    return {"version": judgment.version, "value": judgment.value} if judgment else {"version": 0, "value": None}


def _version(body):
    """The version the page last saw; required, so no client can skip the check against a newer save."""
    version = body.get("version")
    if type(version) is not int or not 0 <= version <= params.INT_MAX:  # an integer column
        raise generic.JudgingError("the request did not say which version you saw; reload the page")
    return version


@read_with_session(fastsave.ITEM_WITH_SESSION, "item_id")  # the item is read in the session's statement
@require_POST
@assessor_required
def judge(request, item_id):
    """Who: the assessor the item's topic is assigned to. Save a citation judgment (JSON in, JSON out)."""
    item = generic.item_to_save(request, item_id, judging.TRACK, "BOLT")
    return _json_save(
        request, lambda body: judging.judge_citation(request.user, item, _citation_value(body), _version(body))
    )


def _citation_value(body):
    value = body.get("value") or {}
    if not isinstance(value, dict):
        raise generic.JudgingError("value must be a JSON object: rel, trans, chksrc and relspans")
    return value


def _json_save(request, save):
    """Run `save(body)` on the request's JSON and answer as static/js/bolt.js expects: the saved version and
    value, or the error with the newer judgment (409) or the refusal's status."""
    try:
        saved = save(_json_body(request))
    except generic.StaleJudgment as exc:
        return JsonResponse({"error": str(exc), **_judgment_json(exc.current)}, status=409)
    except generic.JudgingError as exc:
        return JsonResponse({"error": str(exc)}, status=exc.status)
    return JsonResponse({"ok": True, **_judgment_json(saved.judgment)})


# --- citations the assessor finds -------------------------------------------------------------------------------


def post_segments(raw_post):
    """A post's raw XML text as display segments carrying raw offsets, so a selection maps back exactly:
    [(kind, text shown, raw offset, raw length)], kind "text", "entity" or "tag" (tags shown as markers)."""
    out, pos = [], 0
    for token in bolt_forum.TOKEN.findall(raw_post):
        if token.startswith("<") and len(token) > 1:
            if token.startswith("<quote"):
                author = bolt_forum.attributes(token[6:-1]).get("orig_author", "")
                out.append(("tag", f"[quote{' from ' + author if author else ''}] ", pos, len(token)))
            elif token.startswith("</quote"):
                out.append(("tag", " [end of quote] ", pos, len(token)))
            else:
                out.append(("tag", "", pos, len(token)))
        elif token.startswith("&") and len(token) > 1:
            out.append(("entity", html.unescape(token), pos, len(token)))
        else:
            out.append(("text", token, pos, len(token)))
        pos += len(token)
    return out


@assessor_required
def find_page(request, pk):
    """Who: the assessor the topic is assigned to. A thread to select a citation from (the threads the pool
    cites are listed; any thread of the collection can be opened by its id)."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    citations = judging.citation_items(assignment.topic)
    threads = sorted({i.docid for i in citations})
    thread = params.text(request.GET.get("thread"), "thread") or (threads[0] if threads else "")
    doc = None
    if thread:
        doc = Document.objects.filter(collection__in=assignment.evaluation.collections.all(), docno=thread).first()
    posts = []
    if doc is not None:
        raw = bytes(doc.raw)
        for p in doc.meta.get("posts", ()):
            posts.append(
                {
                    "id": p["id"],
                    "author": p["author"],
                    "datetime": p["datetime"],
                    "segments": post_segments(bolt_forum.post_raw_text(raw, doc.meta, p["id"]) or ""),
                }
            )
    found = [i for i in citations if i.origin == PoolItem.ASSESSOR]
    return render(
        request,
        "bolt/find.html",
        _topic_context(assignment)
        | {
            "threads": threads,
            "thread": thread,
            "doc": doc,
            "posts": posts,
            "found": found,
            "add_url": reverse("bolt:add_found", args=[pk]),
        },
    )


@require_POST
@assessor_required
def add_found(request, pk):
    """Who: the assessor the topic is assigned to. Add the selected span of a post as a citation they found."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    try:
        body = _json_body(request)
        offset, length = params.integer(body.get("offset"), "offset"), params.integer(body.get("length"), "length")
        item, saved = judging.add_found_citation(
            request.user,
            assignment.topic,
            _json_text(body, "thread"),
            _json_text(body, "post"),
            offset,
            length,
            _json_text(body, "passage"),
            _json_text(body, "rel", "yes"),
        )
    except params.BadParameter as bad:
        return JsonResponse({"error": str(bad)}, status=400)
    except generic.JudgingError as exc:
        return JsonResponse({"error": str(exc)}, status=exc.status)
    return JsonResponse(
        {"ok": True, "pool_id": item.pool_id, "passage": item.text, "url": reverse("bolt:item", args=[pk, item.pk])}
    )


# --- grouping -------------------------------------------------------------------------------------------------


@assessor_required
def view_page(request, pk, item_id):
    """Who: the assessor the topic is assigned to. Judge one grouping view: the view, each group, each member.
    Each answer is saved as it is given (view_answer, static/js/bolt.js); posting the whole form is the fallback
    without script."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    item = get_object_or_404(PoolItem, pk=item_id, topic=assignment.topic, data__bolt="view")
    judgment = Judgment.objects.filter(item=item, assessor=request.user, kind="grouping").first()
    error = None
    if request.method == "POST":
        value = {"relevant": request.POST.get("view-relevant"), "useful": request.POST.get("view-useful"), "groups": {}}
        for g in judging.view_structure(item):
            n = g["number"]
            value["groups"][n] = {name: request.POST.get(f"g{n}-{name}") for name in ("relevant", "cohesive", "scope")}
            value["groups"][n]["members"] = {
                c["key"]: request.POST.get(f"g{n}-m{i}") for i, c in enumerate(g["citations"])
            }
        try:
            judging.judge_view(request.user, item, value, params.version(request.POST.get("version", "0")))
            return redirect(reverse("bolt:view", args=[pk, item.pk]) + "?saved=1")
        except (generic.JudgingError, params.BadParameter) as exc:
            error = str(exc)
            judgment = Judgment.objects.filter(item=item, assessor=request.user, kind="grouping").first()
    value = judgment.value if judgment else {}
    groups, questions = view_questions(judging.view_structure(item), value)
    state = {
        "version": judgment.version if judgment else 0,
        "answer_url": reverse("bolt:view_answer", args=[pk, item.pk]),
    }
    return render(
        request,
        "bolt/view.html",
        _topic_context(assignment)
        | {
            "item": item,
            "groups": groups,
            "view_questions": questions[:2],
            "state": state,
            "answered": sum(1 for q in questions if q["answer"] is not None),
            "total": len(questions),
            "version": state["version"],
            "saved": request.GET.get("saved") and not error,
            "error": error,
        },
    )


def view_questions(structure, value):
    """The yes/no questions of a view in the order they are asked, each with the field it answers and its
    current answer; returns (groups with their questions, all questions). The miscellaneous group asks none."""
    questions = [
        {
            "group": "",
            "name": name,
            "member": "",
            "form_name": f"view-{name}",
            "label": label,
            "answer": value.get(name),
        }
        for name, label in judging.VIEW_LABELS.items()
    ]
    groups = []
    for g in structure:
        judged = (value.get("groups") or {}).get(g["number"], {})
        asked = []
        if not g["misc"]:
            asked = [
                {
                    "group": g["number"],
                    "name": name,
                    "member": "",
                    "form_name": f"g{g['number']}-{name}",
                    "label": label,
                    "answer": judged.get(name),
                }
                for name, label in judging.GROUP_LABELS.items()
            ]
            members = judged.get("members") or {}
            for i, c in enumerate(g["citations"]):
                c["question"] = {
                    "group": g["number"],
                    "name": "belongs",
                    "member": c["key"],
                    "form_name": f"g{g['number']}-m{i}",
                    "label": "",
                    "answer": members.get(c["key"]),
                }
                asked.append(c["question"])
        questions += asked
        groups.append(g | {"questions": asked[:3]})
    for n, q in enumerate(questions):
        q["index"] = n
    return groups, questions


@require_POST
@assessor_required
def view_answer(request, pk, item_id):
    """Who: the assessor the topic is assigned to. Save one yes/no answer of a grouping view (JSON in, JSON out;
    409 with the newer judgment when the page's version is old)."""
    assignment = own_assignment(request.user, pk, judging.TRACK)
    item = get_object_or_404(PoolItem, pk=item_id, topic=assignment.topic, data__bolt="view")

    def save(body):
        group = body.get("group")
        group = str(group) if type(group) is int else _json_text(body, "group")  # numbers are JSON ints or strings
        return judging.judge_view_field(
            request.user,
            item,
            group,
            _json_text(body, "name"),
            _json_text(body, "member"),
            body.get("answer"),
            _version(body),
        )

    return _json_save(request, save)


# --- organizer ------------------------------------------------------------------------------------------------


@role_required(ORGANIZER)
def agreement_page(request, slug):
    """Who: organizers. Agreement of the two assessors on double-judged BOLT topics."""
    evaluation = get_object_or_404(Evaluation, slug=slug, track=judging.TRACK)
    return render(
        request,
        "bolt/agreement.html",
        {"evaluation": evaluation, "result": judging.agreement(evaluation), "runs": judging.runs_of(evaluation)},
    )


@role_required(ORGANIZER)
def near_duplicates_page(request, slug):
    """Who: organizers. Each citation run's near-duplicates (counts), and one run's classes (?run=TAG; the first
    run with any by default): the pooled leader with its judgment and the citations that take it."""
    evaluation = get_object_or_404(Evaluation, slug=slug, track=judging.TRACK)
    counts = overview.near_duplicate_counts(evaluation)
    tag = params.text(request.GET.get("run"), "run") if "run" in request.GET else None
    if tag is not None:
        run = next((r for r, *_ in counts if r.tag == tag), None)
        if run is None:
            raise Http404("no such citation run")
    else:
        run = next((r for r, _, dups, _ in counts if dups), None)
    return render(
        request,
        "bolt/near_duplicates.html",
        {
            "evaluation": evaluation,
            "counts": counts,
            "run": run,
            "classes": overview.near_duplicate_classes(run) if run is not None else [],
            "threshold": evaluation.setting("near_dup_percent", 95),
        },
    )


@role_required(ORGANIZER)
def groupings_page(request, slug):
    """Who: organizers. Each grouping run's view precision, group precision and group skew: per run and topic
    as scored, per view and group as judged now."""
    evaluation = get_object_or_404(Evaluation, slug=slug, track=judging.TRACK)
    return render(
        request,
        "bolt/groupings.html",
        {"evaluation": evaluation, "runs": overview.grouping_overview(evaluation), "labels": GROUP_LABELS},
    )


@role_required(ORGANIZER, PARTICIPANT)
def team_topics_page(request, slug):
    """Who: participants and organizers. The topics as teams receive them: number, query and language target
    (description, properties, rules and LDC citations are the assessors' until the judgments are released)."""
    evaluation = get_object_or_404(Evaluation, slug=slug, track=judging.TRACK)
    topics = [{"ident": t.ident, "query": t.text, **team_view(t.data)} for t in judging.bolt_topics(evaluation)]
    return render(request, "bolt/team_topics.html", {"evaluation": evaluation, "topics": topics})


@role_required(ORGANIZER)
def export_view(request, slug, tag):
    """Who: organizers. A citation run's assessed citations in the seed's DTD form, validated before download."""
    from django.http import HttpResponse

    from tracks.bolt.formats.export import validate_export

    evaluation = get_object_or_404(Evaluation, slug=slug, track=judging.TRACK)
    run = next((r for r in judging.runs_of(evaluation) if r.tag == tag), None)
    if run is None:
        raise Http404("no such citation run")
    xml = judging.export_run(run)
    problems = validate_export(xml)
    if problems:  # never hand out a file that does not match the DTD
        return HttpResponse(
            "\n".join(p.format(f"{tag}.xml") for p in problems), status=500, content_type="text/plain; charset=utf-8"
        )
    response = HttpResponse(xml, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{tag}.xml"'
    return response
