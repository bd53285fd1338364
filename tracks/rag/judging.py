"""TREC RAG judging on the generic save protocol (assess.judging.save_judgment: versions, 409, history, stale
marks, closures).

Three kinds of pool item per topic (rag-contract: keys r:, p:, a:), all judged with the one kind "rag":
- relevance (r:<segment>): the cited segment's grade, "0"-"3";
- support (p:<sentence hash>:<segment>): full/partial/no support of the sentence by the segment, judged batched
  by segment (`support_batches`: the assessor reads a segment once and judges every sentence that cites it);
- answer (a:<answer hash>): label "assigned" and, per nugget of the topic, support/partial_support/not_support.
Nuggets are the topic's assess.Nugget rows, created, edited and deleted by the topic's primary assessor (each
change in the structure log) with their importance as a "nugget_vote" judgment; machine-proposed nuggets
(nuggetizer files, tracks.rag.suggestions) wait in Topic.data["nugget_suggestions"] until accepted or rejected.
Double judging and adjudication as in BioGen: the two assessors' differing judgments wait in the queue.
"""

from django.db import transaction

from assess import assist_nuggets
from assess import judging as generic
from assess.adjudication import decide, disagreements
from assess.models import Assignment, Judgment, Nugget
from assess.official import official_values
from corpus.models import Document
from pooling.models import PoolItem, Topic
from pooling.staleness import mark_stale
from tracks.rag.labels import ASSIGNMENTS, IMPORTANCE, IMPORTANCE_KIND, KIND, item_kind, labels_for

TRACK = "trec-rag"
ORDER = {"relevance": 0, "support": 1, "answer": 2}
MAX_NUGGET_CHARS = 1000


class RagError(generic.JudgingError):
    """A judgment or nugget change that does not fit (400)."""


def topic_items(topic, kind=None):
    """The topic's pool items: relevance, then support, then answers (each in pool order); one kind if named."""
    items = [i for i in PoolItem.objects.filter(topic=topic).order_by("position", "id")]
    items = [i for i in items if kind is None or item_kind(i.key) == kind]
    return sorted(items, key=lambda i: (ORDER.get(item_kind(i.key), 3), i.position, i.pk))


def support_batches(topic):
    """[(segment id, [support items citing it])] in the order the segments were first pooled: one batch per
    segment, its sentences from every run that cites it."""
    batches: dict[str, list] = {}
    for item in topic_items(topic, "support"):
        batches.setdefault(item.docid, []).append(item)
    return list(batches.items())


def my_judgments(user, items):
    return {
        j.item_id: j
        for j in Judgment.objects.filter(kind=KIND, assessor=user, item_id__in=[i.pk for i in items]).exclude(
            role=Judgment.ADJUDICATED
        )
    }


def nuggets_of(topic):
    """[(nugget, importance or None)] in list order; importance is the official one (the primary's, or a
    decision)."""
    nuggets = list(Nugget.objects.filter(topic=topic).order_by("position", "id"))
    official = official_values([topic.pk], IMPORTANCE_KIND)
    return [(n, (official.get(n.pk) or {}).get("vote")) for n in nuggets]


def item_labels(item, kind=KIND):
    """The labels the item may be judged with (ep.item_labels, for assisted judging's suggestions): a segment's
    grades, a sentence's support, an answer's "assigned"."""
    return labels_for(item_kind(item.key)) if kind == KIND else item.evaluation.track_spec.labels(kind)


def clean_value(item, value):
    """A judgment value checked against the item's kind; RagError naming what is wrong otherwise."""
    if not isinstance(value, dict):
        raise RagError("a RAG judgment is an object: label (and nuggets for an answer)")
    kind = item_kind(item.key)
    allowed = labels_for(kind)
    label = value.get("label")
    if isinstance(label, int) and not isinstance(label, bool) and kind == "relevance":
        label = str(label)
    if label not in allowed:
        raise RagError(f"a {kind or 'pool'} item is judged {', '.join(allowed) or 'never'}, not {label!r}")
    nuggets = value.get("nuggets") or {}
    if not isinstance(nuggets, dict):
        raise RagError("nuggets is an object: nugget id -> support, partial_support or not_support")
    if nuggets and kind != "answer":
        raise RagError("only an answer is assigned nuggets")
    if nuggets:
        wanted = {str(k) for k in nuggets}
        known = {str(pk) for pk in Nugget.objects.filter(topic_id=item.topic_id).values_list("pk", flat=True)}
        if wanted - known:
            raise RagError(f"nuggets {', '.join(sorted(wanted - known))} are not nuggets of this topic")
        bad = [f"{k}: {v!r}" for k, v in nuggets.items() if v not in ASSIGNMENTS]
        if bad:
            raise RagError(f"a nugget is assigned {', '.join(ASSIGNMENTS)}, not {'; '.join(bad)}")
    return {"label": label, "nuggets": {str(k): v for k, v in nuggets.items()}}


def judge_item(user, item, value, expected_version):
    """Save the user's judgment of a pool item of a topic assigned to them (primary or second assessor). `item`
    may come from assess.judging.load_item (its role and closure read with it: the save path's one read)."""
    if hasattr(item, "my_role"):
        role, closed = item.my_role, item.closed
    else:
        role = Assignment.objects.filter(assessor=user, topic=item.topic_id).values_list("role", flat=True).first()
        closed = None
    if role is None:
        raise generic.Forbidden(f"topic {item.topic.ident} is not assigned to you")
    return generic.save_judgment(
        user,
        topic=item.topic,
        kind=KIND,
        role=role,
        item=item,
        value=clean_value(item, value),
        expected_version=expected_version,
        closed=closed,
    )


# --- nuggets ----------------------------------------------------------------------------------------------------


def require_primary(user, topic):
    if generic.assignment_role(user, topic) != Assignment.PRIMARY:
        raise generic.Forbidden(f"only the primary assessor of topic {topic.ident} changes its nuggets")


def _lock(topic):
    # The topic's row serialises its nugget writes (NO KEY UPDATE: rescoring's KEY SHARE lock must not wait).
    return Topic.objects.select_for_update(no_key=True, of=("self",)).get(pk=topic.pk)


def _text(text):
    text = " ".join(str(text or "").replace("\x00", "").split())
    if not text:
        raise RagError("a nugget needs some text")
    if len(text) > MAX_NUGGET_CHARS:
        raise RagError(f"a nugget has at most {MAX_NUGGET_CHARS} characters, not {len(text)}")
    return text


def _importance(importance):
    if importance not in IMPORTANCE:
        raise RagError(f"a nugget is vital or okay, not {importance!r}")
    return importance


def _create(user, topic, text, importance, source):
    twin = Nugget.duplicate_of(topic, text)
    if twin is not None:
        raise RagError(f"nugget {twin[0]} already says “{twin[1].text}”")
    last = Nugget.objects.filter(topic=topic).order_by("-position").values_list("position", flat=True).first()
    nugget = Nugget.objects.create(topic=topic, text=text, position=(last or 0) + 1, created_by=user)
    generic.log_structure_change(
        topic, user, "nugget.create", after={"id": nugget.pk, "text": text, "importance": importance, "from": source}
    )
    generic.save_judgment(
        user,
        topic=topic,
        kind=IMPORTANCE_KIND,
        role=Judgment.PRIMARY,
        nugget=nugget,
        value={"vote": importance},
        expected_version=None,
    )
    mark_stale(topic)
    return nugget


def create_nugget(user, topic, text, importance):
    """A nugget typed by the primary assessor (vital or okay), at the end of the topic's list."""
    require_primary(user, topic)
    text, importance = _text(text), _importance(importance)
    with transaction.atomic():
        generic.refuse_if_closed(_lock(topic))
        return _create(user, topic, text, importance, "assessor")


def edit_nugget(user, nugget, text):
    topic = nugget.topic
    require_primary(user, topic)
    text = _text(text)
    with transaction.atomic():
        generic.refuse_if_closed(_lock(topic))
        twin = Nugget.duplicate_of(topic, text, exclude=nugget.pk)
        if twin is not None:
            raise RagError(f"nugget {twin[0]} already says “{twin[1].text}”")
        generic.log_structure_change(
            topic, user, "nugget.edit", {"id": nugget.pk, "text": nugget.text}, {"id": nugget.pk, "text": text}
        )
        nugget.text = text
        nugget.save(update_fields=["text"])
    return nugget


def set_importance(user, nugget, importance, expected_version):
    """The primary assessor's vital/okay for a nugget (a judgment: versions, history)."""
    require_primary(user, nugget.topic)
    return generic.save_judgment(
        user,
        topic=nugget.topic,
        kind=IMPORTANCE_KIND,
        role=Judgment.PRIMARY,
        nugget=nugget,
        value={"vote": _importance(importance)},
        expected_version=expected_version,
    )


def delete_nugget(user, nugget):
    """Delete a nugget; the answers' assignments of it are rewritten without it (each change recorded)."""
    topic = nugget.topic
    require_primary(user, topic)
    key = str(nugget.pk)
    with transaction.atomic():
        generic.refuse_if_closed(_lock(topic))
        generic.rewrite_values(
            user,
            Judgment.objects.select_for_update(of=("self",)).filter(topic=topic, kind=KIND, item__key__startswith="a:"),
            lambda value: dict(value, nuggets={k: v for k, v in (value.get("nuggets") or {}).items() if k != key}),
        )
        generic.log_structure_change(topic, user, "nugget.delete", {"id": nugget.pk, "text": nugget.text})
        nugget.delete()
        mark_stale(topic)


# --- machine-proposed nuggets -----------------------------------------------------------------------------------

SUGGESTIONS = "nugget_suggestions"


def suggestions(topic):
    """[{"text", "importance"}] proposed for the topic and not yet accepted or rejected."""
    return list((topic.data or {}).get(SUGGESTIONS) or [])


def suggestions_for(user, topic):
    """The topic's file suggestions as `user` may see them now (assisted judging's condition, when the evaluation
    has a design: assess.assist_nuggets.file_suggestions_state), else []."""
    if assist_nuggets.file_suggestions_state(user, topic) in ("open", "shown"):
        return suggestions(topic)
    return []


def _take_suggestion(user, topic, index):
    locked = _lock(topic)
    generic.refuse_if_closed(locked)
    pending = suggestions_for(user, locked)  # one the condition hides is refused like a missing one: no text leaks
    if not 0 <= index < len(pending):
        raise RagError(f"topic {topic.ident} has no suggestion {index + 1} (it was taken or rejected meanwhile)")
    taken = pending.pop(index)
    locked.data = dict(locked.data or {}, **{SUGGESTIONS: pending})
    locked.save(update_fields=["data"])
    return taken


def accept_suggestion(user, topic, index, text=None, importance=None):
    """Make suggestion `index` (0-based) a nugget, as proposed or as the assessor edited it."""
    require_primary(user, topic)
    with transaction.atomic():
        taken = _take_suggestion(user, topic, index)
        edited = text is not None and _text(text) != taken["text"]
        nugget = _create(
            user,
            topic,
            _text(text if text is not None else taken["text"]),
            _importance(importance or taken.get("importance") or "okay"),
            "suggestion, edited" if edited else "suggestion",
        )
    return nugget


def reject_suggestion(user, topic, index):
    require_primary(user, topic)
    with transaction.atomic():
        taken = _take_suggestion(user, topic, index)
        generic.log_structure_change(topic, user, "nugget.suggestion_rejected", before=taken)
    return taken


# --- nugget proposals from a model server (assisted judging, assess.assist_nuggets) ------------------------------


def nugget_sources(topic):
    """The texts a model server reads the topic's nuggets from (ep.nugget_sources): the segments officially
    graded highly or perfectly relevant (2, 3), in pool order — as TREC 2024 RAG's nuggets were read from the
    relevant segments. None graded yet: nothing to read."""
    items = topic_items(topic, "relevance")
    official = official_values([topic.pk], KIND)
    relevant = [i.docid for i in items if (official.get(i.pk) or {}).get("label") in ("2", "3")]
    texts = dict(
        Document.objects.filter(collection__evaluations=topic.evaluation_id, docno__in=relevant).values_list(
            "docno", "text"
        )
    )
    return [texts[d] for d in relevant if d in texts]


def accept_proposal(user, topic, suggestion_id, index, text=None, importance=None):
    """Make a model server's proposed nugget a nugget of the topic, as proposed or as the assessor edited it
    (only while the proposal is shown to them: assess.assist_nuggets.take)."""
    require_primary(user, topic)
    with transaction.atomic():
        locked = _lock(topic)
        generic.refuse_if_closed(locked)
        taken = assist_nuggets.take(user, locked, suggestion_id, index, "accepted")
        edited = text is not None and _text(text) != taken["text"]
        return _create(
            user,
            topic,
            _text(text if text is not None else taken["text"]),
            _importance(importance or taken["importance"]),
            "model proposal, edited" if edited else "model proposal",
        )


def reject_proposal(user, topic, suggestion_id, index):
    require_primary(user, topic)
    with transaction.atomic():
        locked = _lock(topic)
        generic.refuse_if_closed(locked)
        return assist_nuggets.take(user, locked, suggestion_id, index, "rejected")


# --- adjudication ----------------------------------------------------------------------------------------------


def _differ(first, second):
    return first.get("label") != second.get("label") or (first.get("nuggets") or {}) != (second.get("nuggets") or {})


def adjudication_queue(evaluation, user=None):
    """[(item, primary, secondary, adjudicated or None)] of the items the two assessors judged differently, in
    topic and pool order. With `user`, the topics the user judged are left out."""
    out = disagreements(evaluation, KIND, lambda first, second: _differ(first.value, second.value), user)
    out.sort(key=lambda row: (row[0].topic.position, ORDER.get(item_kind(row[0].key), 3), row[0].position))
    return out


def adjudicate(user, item, value, expected_version):
    """Decide a disputed item (assess.adjudication.decide): one decision per item, never by one of its assessors."""
    return decide(
        user, item, KIND, value, expected_version, clean=lambda value: clean_value(item, value), differ=_differ
    )
