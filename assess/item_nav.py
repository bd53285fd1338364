"""Moving between the items of a judging page without a page load: one URL, two shapes.

The page's item links carry `hx-get` (htmx swaps the item's panel in and pushes the URL) and a plain `href` (a page
without JavaScript, a new tab, a reload). So an htmx request gets the panel only; a direct load, or htmx restoring
history (back/forward: the page's history element has hx-history="false", so no stale panel comes from a cache),
gets the whole page. Both shapes come from the one view, with its access checks, so the panel is refused exactly
as the page is. Used by BOLT's citations, BioGen's items and TREC RAG's relevance, support and assignment pages;
the client side of the move is static/js/item_nav.js.
"""

from django.shortcuts import render
from django.utils.cache import patch_vary_headers


def is_panel_request(request):
    """True when the request asks for the panel only: htmx moving between items, not restoring history."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request


def render_item(request, page_template, panel_template, context):
    """The whole page, or only the item's panel (`partial` True in its context, so it carries its <title>)."""
    partial = is_panel_request(request)
    response = render(request, panel_template if partial else page_template, context | {"partial": partial})
    patch_vary_headers(response, ["HX-Request", "HX-History-Restore-Request"])  # a cache must keep both shapes
    return response
