"""The assisted-judging panel every judging page includes beside its item (issue 30; assess/assist.py keeps the
rule of what may be shown):

    {% load assist %}{% assist_panel item "instance" %}

It renders nothing for an item judged without assistance, a placeholder for a *reveal after* item not yet judged
by this assessor (nothing of the suggestion in it), and once allowed the suggestion, its rationale and where it
came from, an accept button (key `g`, action "accept-suggestion") and the mark of a judgment made with it visible.
static/js/assist.js reloads the panel after each save and makes accept press the page's own button for the
suggested label, so the page's save protocol is the one used."""

import json

from django import template

from assess import assist
from assess.kinds import in_words
from assess.models import Judgment

register = template.Library()


def panel_context(user, item, kind):
    seen = assist.visible(user, item, kind)
    context = {"item": item, "kind": kind, "state": seen.state, "condition": seen.condition}
    if seen.state != "shown":
        return context
    suggestion = seen.suggestion
    key = assist.label_key(kind)
    mine = Judgment.objects.filter(item_id=item.pk, kind=kind, assessor=user).first()
    own_before = None
    if mine is not None and seen.shown_version:
        change = mine.changes.filter(version=seen.shown_version).first()
        own_before = in_words(kind, change.after) if change else None
    whole = bool(suggestion.value.get("nuggets"))
    context |= {
        "suggestion": suggestion,
        # a value with more than its label (TREC RAG's answer: a nugget per assignment) is said whole, and carried
        # whole for a page that accepts it whole (assay:assist-accept, static/js/assist.js)
        "words": suggestion.value.get(key) if key and not whole else in_words(kind, suggestion.value),
        "accept_label": suggestion.value.get(key) if key else "",
        "accept_value": json.dumps(suggestion.value) if whole else "",
        "judged": mine is not None,
        "own_before": own_before,
        "with_suggestion": mine is not None and mine.version > seen.shown_version,
    }
    return context


@register.inclusion_tag("assess/_assist_panel.html", takes_context=True)
def assist_panel(context, item, kind):
    request = context.get("request")
    user = getattr(request, "user", None) or context.get("user")
    if item is None or user is None or not user.is_authenticated:
        return {"state": "off"}
    return panel_context(user, item, kind)
