"""The panels the QA judging pages share: a list question's answer classes (beside instance judging, and out of
band after a save that moved an item between classes) and a nugget question's workspace (the nugget list, votes
and matches). Context builders only; the views render them."""

import json

from assess import assist_nuggets, judging
from assess.models import AnswerClass, Judgment, Nugget, Suggestion
from assess.official import VOTE
from assess.templatetags.assist import panel_context
from pooling.models import PoolItem
from tracks.qa import questions


def _classes(question, only=None):
    """The question's classes, each with .members: the pool items the primary put into it (of the classes in
    `only`, ids, when given; the others get none)."""
    classes = list(AnswerClass.objects.filter(topic=question))
    # only the judgments in a class, and only what the panel shows of their items: a list question has a few
    # hundred items and most are in no class
    in_a_class = (
        Judgment.objects.filter(
            topic=question, kind="instance", role=Judgment.PRIMARY, value__answer_class__isnull=False
        )
        .exclude(value__answer_class=None)
        .select_related("item")
        .only("value", "item__docid", "item__text")
        .order_by("item__position", "item_id")
    )
    if only is not None:
        in_a_class = in_a_class.filter(value__answer_class__in=sorted(only))
    members = {}
    for j in in_a_class:
        members.setdefault(j.value["answer_class"], []).append(j.item)
    for c in classes:
        c.members = members.get(c.pk, [])
    return classes


def classes_context(assignment, question, message=None, error=None):
    """The classes panel: each class with the pool items the primary put into it, and the found-answer form."""
    return {
        "assignment": assignment,
        "question": question,
        "classes": _classes(question),
        "message": message,
        "error": error,
        "is_list": questions.is_list_question(question),
    }


def changed_classes_context(assignment, question, class_ids):
    """The classes `class_ids` alone, for a save that moved an item into or out of them (their entries of the panel
    go out of band: the whole panel cost a list save several times a factoid's); None if one of them is gone."""
    classes = _classes(question, only=class_ids)
    changed = [c for c in classes if c.pk in class_ids]
    if len(changed) != len(class_ids):
        return None
    return {"assignment": assignment, "question": question, "classes": classes, "changed": changed}


def votes_by_nugget(user, nugget_ids, kind=VOTE):
    return {j.nugget_id: j for j in Judgment.objects.filter(kind=kind, assessor=user, nugget_id__in=nugget_ids)}


def workspace_context(request, assignment, question, message=None, error=None):
    """All answer strings of all runs for the question (one row per pool item), the nugget list, the primary's
    votes and the matches."""
    nuggets = list(Nugget.objects.filter(topic=question).order_by("position", "id"))
    votes = votes_by_nugget(request.user, [n.pk for n in nuggets])
    for i, n in enumerate(nuggets, start=1):
        n.index = i
        n.my_vote = votes.get(n.pk)
    matches = {
        j.item_id: j for j in Judgment.objects.filter(topic=question, kind="nugget_match", assessor=request.user)
    }
    items = list(PoolItem.objects.filter(topic=question).order_by("position", "id"))
    suggested = set(
        Suggestion.objects.filter(topic=question, kind="nugget_match", error="").values_list("item_id", flat=True)
    )
    for item in items:
        attach_match(item, matches.get(item.pk), nuggets)
        attach_suggestion(request.user, item, nuggets, suggested)
    return {
        "assignment": assignment,
        "question": question,
        "nuggets": nuggets,
        "items": items,
        "message": message,
        "error": error,
        "closed": judging.is_closed(question),
        "matched": sum(1 for i in items if i.match is not None),
        "proposals": assist_nuggets.visible(request.user, question),  # the model server's, as the condition allows
    }


def attach_suggestion(user, item, nuggets, suggested=None):
    """The machine's nugget match for the row, only as the assisted-judging gate allows (assess.assist.visible,
    through the panel's own context: off, waiting until this assessor's first match of the item is saved, or
    shown), its nuggets by the numbers the page gives them. `suggested`: the ids of the items that have a
    suggestion at all (the others are off without asking), when the caller has them."""
    if suggested is not None and item.pk not in suggested:
        item.assist = {"state": "off"}
        return
    seen = panel_context(user, item, "nugget_match")
    if seen["state"] == "shown":
        index = {n.pk: n.index for n in nuggets}
        held = [pk for pk in seen["suggestion"].value.get("nuggets", []) if pk in index]
        seen |= {"indices": sorted(index[pk] for pk in held), "ids": json.dumps(held)}
    item.assist = seen


def attach_match(item, judgment, nuggets):
    item.match = judgment
    held = set(judgment.value.get("nuggets", [])) if judgment else set()
    item.boxes = [{"nugget": n, "checked": n.pk in held} for n in nuggets]
    item.version = judgment.version if judgment else 0
