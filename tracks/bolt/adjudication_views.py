"""BOLT adjudication pages: the queue of citations two assessors judged differently, and one disagreement at a
time with the topic, the passage in its thread, both judgments and the decision. Thin: the work is in
tracks.bolt.adjudication; the decision is a plain form post (keys in static/js/bolt_adjudication.js).

Kept apart from the QA queue (assess.organizer_views.adjudication): a QA row is one label, a BOLT decision is
relevance, translation, source checked and the relevant part of the passage, shown against the topic's rules.
"""

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from assess import adjudication as shared
from assess import judging as generic
from assess import keymap
from config import params
from config.roles import ASSESSOR, ORGANIZER, role_required
from corpus import viewer
from tracks.bolt import adjudication, judging
from tracks.bolt.views import REL_KEYS, TRANS_KEYS

# The judging page's keys (y/m/n, 1/2/3, c) mean the same here: all from the one key map.
SPAN_KEYS = (
    ("whole", keymap.key("part-whole"), "the whole passage"),
    ("primary", keymap.key("part-primary"), "as the primary marked"),
    ("secondary", keymap.key("part-second"), "as the second marked"),
)
TRANS_LABELS = {"accept": "acceptable", "problematic": "problematic", "notaccept": "not acceptable", "na": "n/a"}


@role_required(ORGANIZER, ASSESSOR)
def queue_page(request, slug):
    """Who: organizers and the adjudicators they invited; topics they judged themselves are left out. Every BOLT
    citation the two assessors judged differently, both relevance judgments and the decision."""
    return shared.queue_page(
        request,
        slug,
        track=judging.TRACK,
        queue=adjudication.adjudication_queue,
        template="bolt/adjudication.html",
        decide="bolt:adjudicate",
    )


def _judgment_view(judgment, text):
    if judgment is None:
        return None
    value = judgment.value
    return {
        "judgment": judgment,
        "rel": value.get("rel"),
        "trans": TRANS_LABELS.get(value.get("trans"), "n/a"),
        "chksrc": value.get("chksrc"),
        "relspans": value.get("relspans") or [],
        "segments": adjudication.passage_segments(text, value.get("relspans")),
    }


def _form_defaults(primary, secondary, decided):
    """The decision form starts at the decision, else at whatever the two assessors agree on (never at a
    relevance: that is what is disputed)."""
    if decided is not None:
        value = decided.value
        spans = "whole"
        for side, j in (("primary", primary), ("secondary", secondary)):
            if value.get("relspans") and value.get("relspans") == j.value.get("relspans"):
                spans = side
                break
        return {"rel": value.get("rel"), "trans": value.get("trans"), "chksrc": value.get("chksrc"), "spans": spans}
    a, b = primary.value, secondary.value
    same_spans = (a.get("relspans") or []) == (b.get("relspans") or [])
    return {
        "rel": None,
        "trans": a.get("trans") if a.get("trans") == b.get("trans") else None,
        "chksrc": a.get("chksrc") if a.get("chksrc") == b.get("chksrc") else False,
        "spans": "primary" if same_spans and a.get("relspans") else "whole",
    }


@role_required(ORGANIZER, ASSESSOR)
@require_http_methods(["GET", "POST"])
def decide_page(request, slug, item_id):
    """Who: organizers and invited adjudicators who did not judge the citation's topic. One disagreement: the
    topic's query and rules, the passage in its thread, both judgments, and the decision, which is saved as the
    adjudicated judgment (it then counts in the scores)."""
    evaluation = shared.adjudicator_evaluation(request.user, slug, judging.TRACK)
    rows = adjudication.adjudication_queue(evaluation, user=request.user)
    at = next((n for n, row in enumerate(rows) if row[0].pk == item_id), None)
    if at is None:
        raise Http404("no such disagreement among those you may adjudicate")
    item, primary, secondary, decided = rows[at]
    item.evaluation = evaluation
    error, status = None, 200
    if request.method == "POST":
        try:
            version = params.version(request.POST.get("version"))
            value = adjudication.decision_value(request.POST, primary, secondary)
            saved = adjudication.adjudicate_citation(request.user, item, value, version)
            return redirect(reverse("bolt:adjudicate", args=[slug, item.pk]) + f"?decided={saved.judgment.version}")
        except params.BadParameter as bad:
            status, error = 400, str(bad)
        except generic.StaleJudgment as refused:
            status, error, decided = refused.status, str(refused), refused.current or decided
        except generic.JudgingError as refused:
            status, error = refused.status, str(refused)

    def url(n):
        return reverse("bolt:adjudicate", args=[slug, rows[n][0].pk]) if n is not None else ""

    later = list(range(at + 1, len(rows))) + list(range(at))
    next_open = next((n for n in later if rows[n][3] is None), None)
    collection = judging.collection_of(evaluation)
    frame = None
    if collection is not None:
        frame = viewer.frame_url(
            collection.name, item.docid, spans=[(item.data["post"], item.data["offset"], item.data["length"])]
        )
    topic = item.topic
    return render(
        request,
        "bolt/adjudicate.html",
        {
            "evaluation": evaluation,
            "item": item,
            "topic": topic,
            "assessor_fields": topic.data.get("assessor") or {},
            "language_target": topic.data.get("language_target", "none"),
            "frame_url": frame,
            "primary": _judgment_view(primary, item.text),
            "secondary": _judgment_view(secondary, item.text),
            "decided": _judgment_view(decided, item.text),
            "version": decided.version if decided else 0,
            "changes": list(decided.changes.select_related("changed_by")) if decided else [],
            "form": _form_defaults(primary, secondary, decided),
            "error": error,
            "just_decided": request.GET.get("decided") if not error else None,
            "number": at + 1,
            "count": len(rows),
            "prev_url": url(at - 1 if at else None),
            "next_url": url(at + 1 if at + 1 < len(rows) else None),
            "next_open_url": url(next_open),
            "rel_keys": REL_KEYS,
            "trans_keys": TRANS_KEYS,
            "span_keys": SPAN_KEYS,
        },
        status=status,
    )
