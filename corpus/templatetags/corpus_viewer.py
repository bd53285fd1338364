"""{% document_frame url %} emits the sandboxed iframe for a corpus.viewer.frame_url(...) URL (`later=True`: inside a
<template> that static/js/frames.js unfolds at DOMContentLoaded, see templates/corpus/_frame.html);
{% frame_url collection docno %} builds such a URL in a template (no marks, no images)."""

from django import template

from corpus import viewer

register = template.Library()


@register.inclusion_tag("corpus/_frame.html")
def document_frame(url, title="Document", css_class="doc-frame", later=False):
    return {"url": url, "title": title, "css_class": css_class, "later": later}


@register.simple_tag
def frame_url(collection_name, docno):
    return viewer.frame_url(collection_name, docno)
