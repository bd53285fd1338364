"""The search page (/corpus/search/) and the reading of a search form, which the judging workspace's search panel
(assess.search_panel) shares."""

from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode

from django.shortcuts import render
from django.urls import reverse

from config import params
from config.roles import ASSESSOR, ORGANIZER, role_required
from corpus.access import readable_collections
from corpus.models import Collection
from corpus.search import SearchError, search, unindexed_count

MAX_PAGE = 500


@dataclass
class SearchForm:
    query: str
    collections: list  # the chosen ones, among those offered
    offered: list
    since: date | None
    until: date | None
    page: int

    def chosen_names(self):
        return {c.name for c in self.collections}


def _date(value, name):
    value = params.text(value, name).strip()
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise params.BadParameter(f"{name} must be a date as YYYY-MM-DD, not {value[:40]!r}") from None


def read_form(get, offered):
    """The search form from a GET QueryDict: q, collection (repeated; none chosen: all offered), from, to, page.
    A collection not offered is a 400 naming it."""
    offered = list(offered)
    by_name = {c.name: c for c in offered}
    names = [params.text(n, "collection") for n in get.getlist("collection") if n]
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise params.BadParameter(f"collection {unknown[0][:100]!r} is not one you may search")
    return SearchForm(
        query=params.text(get.get("q"), "q").strip(),
        collections=[by_name[n] for n in names] or offered,
        offered=offered,
        since=_date(get.get("from"), "from"),
        until=_date(get.get("to"), "to"),
        page=max(1, params.optional_integer(get.get("page"), "page", maximum=MAX_PAGE) or 1),
    )


def run(form):
    """(results or None, error message or "") for a form."""
    if not form.query:
        return None, ""
    try:
        return search(form.query, form.collections, form.since, form.until, form.page), ""
    except SearchError as e:
        return None, str(e)


def viewer_url(collection, docno, marks):
    """The document page with the query's words marked (the viewer's m= strings)."""
    url = reverse("corpus:document", args=[collection, docno])
    return url + ("?" + urlencode([("m", m) for m in marks]) if marks else "")


@role_required(ORGANIZER, ASSESSOR)
def search_page(request):
    """Who: organizers (every collection); assessors (the collections of the evaluations they judge, as the
    viewer). Full-text search: ranked documents with snippets, filters by collection and date; a result opens in
    the viewer with the query's words marked."""
    form = read_form(request.GET, readable_collections(request.user, Collection.objects.all()))
    results, error = run(form)
    hits = [(h, viewer_url(h.collection, h.docno, results.marks)) for h in results.hits] if results else []
    page_query = request.GET.copy()
    page_query.pop("page", None)
    return render(
        request,
        "corpus/search.html",
        {
            "form": form,
            "results": results,
            "hits": hits,
            "error": error,
            "unindexed": unindexed_count(form.collections),
            "page_query": page_query.urlencode(),
        },
        status=400 if error else 200,
    )
