"""The search panel's two partials: the results of a search (logged) and a result opened (logged) with the
track's form for adding it as an assessor-found item. See assess.search_panel."""

from django.http import Http404
from django.shortcuts import get_object_or_404, render

from assess import documents
from assess.models import Assignment, SearchLog
from assess.search_panel import current_item, current_topic, log_open, log_search
from config import params
from config.roles import assessor_required
from core import extension_points as ep
from corpus import search_query, search_views
from corpus.models import Document


def _assignment(request, pk):
    return get_object_or_404(Assignment.objects.select_related("evaluation", "topic"), pk=pk, assessor=request.user)


@assessor_required
def search(request, pk):
    """Who: the assessor of this assignment only. Search the evaluation's collections from the judging page;
    each search is logged with the topic and item being judged."""
    assignment = _assignment(request, pk)
    form = search_views.read_form(request.GET, assignment.evaluation.collections.all())
    results, error = search_views.run(form)
    log = None
    if results is not None:
        topic = current_topic(assignment, params.optional_integer(request.GET.get("topic"), "topic"))
        item = current_item(topic, params.optional_integer(request.GET.get("item"), "item"))
        log = log_search(request.user, assignment, topic, item, form, len(results.hits))
    return render(
        request,
        "assess/_search_results.html",
        {"results": results, "error": error, "log": log, "form": form},
        status=400 if error else 200,
    )


@assessor_required
def open_result(request, log_id):
    """Who: the assessor who ran this search only. One result in the viewer with the query's words marked, and
    the track's form to add it as an assessor-found item; the opening is logged."""
    log = get_object_or_404(SearchLog.objects.select_related("topic", "evaluation"), pk=log_id, assessor=request.user)
    collection = params.text(request.GET.get("collection"), "collection")
    docno = params.text(request.GET.get("docno"), "docno")
    document = (
        Document.objects.filter(collection__evaluations=log.evaluation, collection__name=collection, docno=docno)
        .select_related("collection")
        .defer("raw", "text")
        .first()
    )
    if document is None:
        raise Http404("no such document in this evaluation's collections")
    assignment = (
        Assignment.objects.filter(assessor=request.user, topic_id__in=[log.topic_id, log.topic.parent_id])
        .select_related("evaluation", "topic")
        .first()
    )
    if assignment is None:
        raise Http404("this search's topic is no longer assigned to you")
    log_open(log, collection, docno)
    marks = search_query.marks(search_query.parse(log.query))
    context = {
        "log": log,
        "document": document,
        "frame_url": documents.frame_url(log.evaluation, docno, marks=marks),
        "viewer_url": search_views.viewer_url(collection, docno, marks),
        "found": None,
    }
    found = ep.search_found.get(log.evaluation.track)
    if found is not None:
        context["found"], extra = found(request, assignment, log.topic, document)
        context |= extra
    return render(request, "assess/_search_open.html", context)
