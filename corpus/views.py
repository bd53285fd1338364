from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.csp import CSP, build_policy
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_GET

from config import params
from config.roles import ASSESSOR, ORGANIZER, organizer_required, role_required
from corpus import viewer
from corpus.access import readable_condition, readable_documents
from corpus.models import Collection, Document

PAGE_SIZE = 50


@organizer_required
def collection_list(request):
    """Who: organizers. The loaded collections and their sizes, and a docno search across them."""
    collections = Collection.objects.annotate(size=Count("documents"))
    q = params.text(request.GET.get("q"), "q").strip()
    hits = None
    if q:
        hits = list(
            Document.objects.filter(docno__icontains=q)
            .select_related("collection")
            .only("docno", "charset", "collection__name")
            .order_by("collection__name", "docno")[:PAGE_SIZE]
        )
    return render(request, "corpus/collection_list.html", {"collections": collections, "q": q, "hits": hits})


@organizer_required
def collection_detail(request, name):
    """Who: organizers. One collection's documents, a page at a time, searchable by docno."""
    collection = get_object_or_404(Collection, name=name)
    docs = collection.documents.only("docno", "charset", "meta").order_by("docno")
    q = params.text(request.GET.get("q"), "q").strip()
    if q:
        docs = docs.filter(docno__icontains=q)
    page = Paginator(docs, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "corpus/collection_detail.html", {"collection": collection, "page": page, "q": q})


@role_required(ORGANIZER, ASSESSOR)
def document_view(request, name, docno):
    """Who: organizers; assessors, documents of collections they may read (corpus.access: the evaluations they
    are assigned to or invited into). Any other document is "not found", whether it exists or not.
    A document's metadata around the sandboxed frame that shows it."""
    doc = get_object_or_404(
        readable_documents(request.user, Document.objects.select_related("collection").defer("raw", "text")),
        collection__name=name,
        docno=docno,
    )
    marks = request.GET.getlist("m")
    spans = viewer.parse_spans(request.GET.getlist("s"))
    url = viewer.frame_url(name, docno, marks=marks, spans=spans)
    return render(request, "corpus/document.html", {"doc": doc, "frame_url": url, "marks": marks, "spans": spans})


_FRAME_READ = (
    "SELECT d.id, d.docno, d.raw, d.charset, d.meta, c.id, c.name, c.format FROM corpus_document d "
    "JOIN corpus_collection c ON c.id = d.collection_id WHERE c.name = %s AND d.docno = %s"
)


def _readable_document(user, name, docno):
    """The document `docno` of collection `name` (its text deferred, its collection's name and format read) if
    `user` may read it (corpus.access), else None. One statement written by hand: building it as a QuerySet, the
    access check's subqueries with it, was 0.5 ms of a frame's ~4 ms of CPU (issue 32)."""
    sql, params = _FRAME_READ, [name, docno]
    condition = readable_condition(user, "d.collection_id")
    if condition is not None:
        sql += f" AND {condition[0]}"
        params += condition[1]
    with connection.cursor() as cur:
        cur.execute(sql + " LIMIT 1", params)  # (a docno is unique in its collection)
        row = cur.fetchone()
    if row is None:
        return None
    pk, docno, raw, charset, meta, collection_id, collection_name, collection_format = row
    meta = Document._meta.get_field("meta").from_db_value(meta, None, connection)
    doc = Document.from_db(
        connection.alias,
        ["id", "collection_id", "docno", "raw", "charset", "meta"],
        [pk, collection_id, docno, raw, charset, meta],
    )
    doc.collection = Collection.from_db(
        connection.alias, ["id", "name", "format"], [collection_id, collection_name, collection_format]
    )
    return doc


@require_GET
@role_required(ORGANIZER, ASSESSOR)
@xframe_options_sameorigin
@csp_override(viewer.FRAME_CSP)
def frame(request, name, docno):
    """Who: organizers; assessors, documents of collections they may read (as document_view; others are 404).
    The rendered document alone, for an <iframe sandbox> on our own pages.

    Served with its own Content-Security-Policy (nothing loads or runs; images only with a valid img= token)."""
    doc = _readable_document(request.user, name, docno)
    if doc is None:
        raise Http404("no such document")
    allow_images = viewer.images_allowed(name, docno, request.GET.get("img"))
    body, _ = viewer.frame_html(
        doc,
        marks=request.GET.getlist("m"),
        spans=viewer.parse_spans(request.GET.getlist("s")),
        allow_images=allow_images,
    )
    response = HttpResponse(body, content_type="text/html; charset=utf-8")
    if allow_images:  # the decorator's policy applies after this view returns; a header set here wins
        response.headers[str(CSP.HEADER_ENFORCE)] = build_policy(viewer.FRAME_CSP_IMAGES)
    response["Referrer-Policy"] = "no-referrer"
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=300"
    return response
