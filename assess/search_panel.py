"""The search panel of the judging pages (issue 18): any judging page includes it, one key (`/`, action "search")
opens it, and from a result the assessor adds what the track calls an assessor-found item without leaving the
page. Every search is logged per assessor and item (assess.SearchLog), with the documents opened from it.

A judging page includes it with its assignment and says which topic and item are current:

    {% include "assess/_search_panel.html" %}             (context: assignment; search_topic, search_item ids)
    ... data-search-topic="{{ question.pk }}" data-search-item="{{ item.pk }}" on the element swapped per item

(static/js/search_panel.js reads the last two from the page at each search, so a page that swaps its item in by
htmx logs the item shown). The page lists the key with (SEARCH, "...") in its keymap.Page.

A track says what a result can become by registering, in its plugin module (tracks/<name>/plugin.py), a
function `found(request, assignment, topic, document) -> (template name, context)` at
core.extension_points.search_found; the template is rendered under the opened document with that context (the
URL it posts to, etc.). It must save through the track's existing assessor-found function (QA:
instance_judging.add_found_answer, BOLT: judging.add_found_citation), so the search panel adds no second way to
write judgments. A track registering none offers search without adding (BioGen today).
"""

from django.db import transaction
from django.utils import timezone

from assess.keymap import SEARCH  # noqa: F401  (the panel's key, declared with the shared keys)
from assess.models import SearchLog
from pooling.models import PoolItem, Topic


def current_topic(assignment, topic_id):
    """The topic being judged: the assignment's topic or one of its questions (anything else: the assignment's)."""
    if topic_id and topic_id != assignment.topic_id:
        topic = Topic.objects.filter(pk=topic_id, parent_id=assignment.topic_id).first()
        if topic is not None:
            return topic
    return assignment.topic


def current_item(topic, item_id):
    if not item_id:
        return None
    return PoolItem.objects.filter(pk=item_id, topic=topic).first()


def log_search(user, assignment, topic, item, form, hits):
    """Record a search run from the panel; returns the SearchLog."""
    return SearchLog.objects.create(
        evaluation_id=assignment.evaluation_id,
        assessor=user,
        topic=topic,
        item=item,
        query=form.query,
        filters={
            "collections": sorted(form.chosen_names()),
            "from": form.since.isoformat() if form.since else None,
            "to": form.until.isoformat() if form.until else None,
            "page": form.page,
        },
        hits=hits,
    )


def log_open(log, collection, docno):
    """Append an opened document to a search's log (under the row lock: two tabs may open at once)."""
    with transaction.atomic():
        row = SearchLog.objects.select_for_update(of=("self",)).get(pk=log.pk)
        row.opened = [*row.opened, {"collection": collection, "docno": docno, "at": timezone.now().isoformat()}]
        row.save(update_fields=["opened"])
    return row
