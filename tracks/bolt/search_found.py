"""BOLT's part of the judging pages' search panel (assess.search_panel): a thread opened from a search is shown as
the find page shows it (posts as segments carrying raw offsets), and the span the assessor selects in one post is
added as an assessor-found citation by judging.add_found_citation, through the find page's own endpoint
(views.add_found), without leaving the citation page."""

from django.urls import reverse

from corpus.formats import bolt_forum
from corpus.models import Document


def context(request, assignment, topic, document):
    from tracks.bolt.views import post_segments  # the find page's segmentation, so offsets map back alike

    doc = Document.objects.only("raw", "meta", "docno").get(pk=document.pk)
    raw = bytes(doc.raw)
    posts = [
        {
            "id": p["id"],
            "author": p["author"],
            "datetime": p["datetime"],
            "segments": post_segments(bolt_forum.post_raw_text(raw, doc.meta, p["id"]) or ""),
        }
        for p in doc.meta.get("posts", ())
    ]
    return {"thread_doc": doc, "posts": posts, "add_url": reverse("bolt:add_found", args=[assignment.pk])}


def found(request, assignment, topic, document):
    """What a search result can become (core.extension_points.search_found): (template, context)."""
    return "bolt/_search_found.html", context(request, assignment, topic, document)
