"""Nugget proposals under assisted judging's conditions (issue 30; docs/assist.md, "Nugget proposals"): a model
server's list of nuggets for a topic (assess.assist_client.propose_nuggets) is one Suggestion of kind
"nugget_proposals" on the topic (no item), and its nuggets are offered on the track's nugget-building page to
accept, edit or reject, one at a time.

A nugget list is built per topic, so its condition is the topic's (AssistDesign.topics), and *reveal after* means
after the assessor's own list: the primary assessor marks their list done (a StructureChange "nugget.list_done"),
and only then does the server send a proposal. This module is the one gate (`visible`) the pages and the API ask;
the tracks' accept and reject go through `take`, which asks it again, so no proposal leaves the server early
(not even in the answer to a guessed accept).
"""

from dataclasses import dataclass, field

from django.db import IntegrityError, transaction

from assess import assist
from assess.judging import Forbidden, JudgingError, assignment_role, log_structure_change
from assess.models import Assignment, AssistDesign, Nugget, StructureChange, Suggestion, SuggestionShown

KIND = "nugget_proposals"
LIST_DONE = "nugget.list_done"
HANDLED = "nugget_proposals_handled"  # Topic.data: {suggestion id: {index: "accepted" | "rejected"}}


@dataclass
class Proposals:
    condition: str
    state: str  # "off", "waiting" (reveal after: until the list is marked done), "shown"
    suggestion: Suggestion | None = None
    pending: list = field(default_factory=list)  # [(index, {"text", "importance"})] not yet accepted or rejected
    shown_at: object = None
    done: bool = False  # the assessor marked their own list done


def current(topic):
    """The topic's newest good nugget proposals (error rows never count), or None."""
    return Suggestion.objects.filter(topic=topic, kind=KIND, item=None, error="").order_by("-id").first()


def list_done(user, topic):
    return StructureChange.objects.filter(topic=topic, actor=user, action=LIST_DONE).exists()


def mark_list_done(user, topic):
    """The primary assessor says their own nugget list is done (before seeing any proposal under *reveal after*):
    recorded once, with the list as it stood, in the topic's structure log. Returns whether it was new."""
    if assignment_role(user, topic) != Assignment.PRIMARY:
        raise Forbidden(f"only the primary assessor of topic {topic.ident} builds its nugget list")
    if list_done(user, topic):
        return False
    nuggets = list(Nugget.objects.filter(topic=topic).order_by("position", "id").values_list("pk", flat=True))
    log_structure_change(topic, user, LIST_DONE, after={"nuggets": nuggets})
    return True


def visible(user, topic):
    """What `user` may see of the topic's nugget proposals now, recording the first showing. Only the topic's
    primary assessor is ever shown them; *none* never, *suggest first* at once, *reveal after* once their own
    list is marked done."""
    condition = assist.topic_condition(topic)
    done = list_done(user, topic)
    if condition == assist.NONE or assignment_role(user, topic) != Assignment.PRIMARY:
        return Proposals(condition, "off", done=done)
    suggestion = current(topic)
    if suggestion is None:
        return Proposals(condition, "off", done=done)
    if condition == assist.REVEAL_AFTER and not done:
        return Proposals(condition, "waiting", done=done)
    shown = _mark_shown(user, topic, suggestion, condition)
    return Proposals(condition, "shown", suggestion, pending(topic, suggestion), shown.at, done)


def file_suggestions_state(user, topic):
    """What `user` may see of nugget suggestions a track loaded from a file (TREC RAG's nuggetizer nuggets, kept on
    the topic): "open" in an evaluation without an assist design (an unassisted campaign, as before assistance
    existed); under a design, the topic's condition as for model proposals: "shown" to the primary assessor under
    suggest first, or under reveal after once their own list is marked done, "waiting" before that, else "off"."""
    if not AssistDesign.objects.filter(evaluation_id=topic.evaluation_id).exists():
        return "open"
    condition = assist.topic_condition(topic)
    if condition == assist.NONE or assignment_role(user, topic) != Assignment.PRIMARY:
        return "off"
    if condition == assist.REVEAL_AFTER and not list_done(user, topic):
        return "waiting"
    return "shown"


def _mark_shown(user, topic, suggestion, condition):
    """The first showing of these proposals to the assessor; `judgment_version` holds how many nuggets the
    topic's list had then (the ones before it are the assessor's own)."""
    found = SuggestionShown.objects.filter(suggestion=suggestion, assessor=user).first()
    if found:
        return found
    try:
        with transaction.atomic():
            return SuggestionShown.objects.create(
                suggestion=suggestion,
                assessor=user,
                item=None,
                condition=condition,
                judgment_version=Nugget.objects.filter(topic=topic).count(),
            )
    except IntegrityError:  # two requests at once: the first row stands
        return SuggestionShown.objects.get(suggestion=suggestion, assessor=user)


def pending(topic, suggestion):
    """[(index, proposal)] of the suggestion not yet accepted or rejected, read from the topic's row as stored now
    (the caller's copy may predate a take in the same request)."""
    data = type(topic).objects.filter(pk=topic.pk).values_list("data", flat=True).first() or {}
    handled = (data.get(HANDLED) or {}).get(str(suggestion.pk)) or {}
    return [(n, p) for n, p in enumerate(suggestion.value["nuggets"]) if str(n) not in handled]


def take(user, locked_topic, suggestion_id, index, outcome):
    """Mark proposal `index` of suggestion `suggestion_id` accepted or rejected, and return it ({"text",
    "importance"}). `locked_topic` is the topic's row locked by the caller's transaction (it serialises the
    topic's nugget writes); refused unless the proposal is shown to `user` now and still pending."""
    assert outcome in ("accepted", "rejected")
    seen = visible(user, locked_topic)
    if seen.state != "shown" or seen.suggestion.pk != suggestion_id:
        raise JudgingError(f"topic {locked_topic.ident} has no such proposal to take now; reload the page")
    wanted = dict(seen.pending).get(index)
    if wanted is None:
        raise JudgingError(f"proposal {index + 1} was taken or rejected meanwhile")
    data = dict(locked_topic.data or {})
    handled = dict(data.get(HANDLED) or {})
    handled[str(suggestion_id)] = dict(handled.get(str(suggestion_id)) or {}, **{str(index): outcome})
    data[HANDLED] = handled
    locked_topic.data = data
    locked_topic.save(update_fields=["data"])
    log_structure_change(
        locked_topic,
        user,
        f"nugget.proposal_{outcome}",
        before={"suggestion": suggestion_id, "index": index, **wanted},
    )
    return wanted
