"""The saves of QA nugget questions (Other, squishy list, ciQA): the primary assessor's nugget list (create, edit,
reorder, merge, delete), vital/okay votes of the primary and invited voters, and which nuggets each pool item holds.
Votes and matches are judgments saved through assess.judging.save_judgment; list changes are logged there.
"""

from django.db import transaction

from assess import assist_nuggets
from assess.judging import (
    Forbidden,
    JudgingError,
    assignment_role,
    log_structure_change,
    rewrite_values,
    save_judgment,
    series_ident,
)
from assess.models import Assignment, Judgment, Nugget
from assess.official import REVOTE, VOTE
from pooling.staleness import mark_stale
from tracks.qa import questions
from tracks.qa.permissions import may_vote, require_structure, revote_asked


def _require_nugget_question(question):
    if not questions.is_nugget_question(question):
        raise JudgingError(f"question {question.ident} is a {question.kind} question; it has no nuggets")


def create_nugget(user, question, text):
    """A nugget typed or taken from selected answer text; it goes to the end of the list. The same text twice
    (white space and case aside) is refused: matches and votes would be split between the copies."""
    from pooling.models import Topic

    _require_nugget_question(question)
    require_structure(user, question)
    text = text.strip()
    if not text:
        raise JudgingError("a nugget needs some text")
    with transaction.atomic():
        # The question's row serialises its nugget writes (a double click posts twice). NO KEY UPDATE, as
        # rescoring's lock on the topics of its new Score rows (KEY SHARE, scoring.rescore.store) must not wait.
        list(Topic.objects.select_for_update(no_key=True, of=("self",)).filter(pk=question.pk).values_list("pk"))
        twin = Nugget.duplicate_of(question, text)
        if twin is not None:
            raise JudgingError(
                f"nugget {twin[0]} already says “{twin[1].text}”; a second copy would split its matches and votes"
            )
        last = Nugget.objects.filter(topic=question).order_by("-position").values_list("position", flat=True)
        nugget = Nugget.objects.create(topic=question, text=text, position=(last.first() or 0) + 1, created_by=user)
        log_structure_change(question, user, "nugget.create", after={"id": nugget.pk, "text": text})
        mark_stale(question)
    return nugget


def edit_nugget(user, nugget, text):
    from pooling.models import Topic

    question = nugget.topic
    require_structure(user, question)
    text = text.strip()
    if not text:
        raise JudgingError("a nugget needs some text")
    with transaction.atomic():
        list(
            Topic.objects.select_for_update(no_key=True, of=("self",))
            .filter(pk=question.pk)  # as create_nugget
            .values_list("pk")
        )
        twin = Nugget.duplicate_of(question, text, exclude=nugget.pk)
        if twin is not None:
            raise JudgingError(f"nugget {twin[0]} already says “{twin[1].text}”; merge the two instead")
        log_structure_change(
            question, user, "nugget.edit", {"id": nugget.pk, "text": nugget.text}, {"id": nugget.pk, "text": text}
        )
        nugget.text = text
        nugget.save(update_fields=["text"])
    return nugget


def reorder_nuggets(user, question, ordered_ids):
    """Put the question's nuggets in this order (ids of all of them)."""
    require_structure(user, question)
    ordered_ids = [int(i) for i in ordered_ids]
    with transaction.atomic():
        nuggets = {n.pk: n for n in Nugget.objects.select_for_update(of=("self",)).filter(topic=question)}
        if sorted(ordered_ids) != sorted(nuggets):
            raise JudgingError("the new order must list every nugget of the question exactly once")
        before = [n.pk for n in sorted(nuggets.values(), key=lambda n: (n.position, n.pk))]
        for position, pk in enumerate(ordered_ids, start=1):
            nuggets[pk].position = position
        Nugget.objects.bulk_update(nuggets.values(), ["position"])
        log_structure_change(question, user, "nugget.reorder", {"order": before}, {"order": ordered_ids})
    return [nuggets[pk] for pk in ordered_ids]


def _rewrite_matches(user, question, replace):
    """Apply `replace(list of nugget ids) -> list` to every nugget_match judgment of the question, recorded."""
    rewrite_values(
        user,
        Judgment.objects.select_for_update(of=("self",)).filter(topic=question, kind="nugget_match"),
        lambda value: dict(value, nuggets=replace(list(value.get("nuggets", [])))),
    )


def merge_nuggets(user, target, sources):
    """Merge `sources` into `target`: the text of target stays, matches of the sources become matches of target,
    the sources (and their votes) go. The votes' history stays in the StructureChange record."""
    question = target.topic
    require_structure(user, question)
    sources = [s for s in sources if s.pk != target.pk]
    if any(s.topic_id != question.pk for s in sources):
        raise JudgingError("only nuggets of the same question can be merged")
    gone = {s.pk for s in sources}

    def replace(ids):
        out = []
        for i in ids:
            i = target.pk if i in gone else i
            if i not in out:
                out.append(i)
        return out

    with transaction.atomic():
        _rewrite_matches(user, question, replace)
        votes = list(Judgment.objects.filter(nugget_id__in=gone).values("nugget_id", "kind", "assessor_id", "value"))
        log_structure_change(
            question,
            user,
            "nugget.merge",
            {"sources": [{"id": s.pk, "text": s.text} for s in sources], "votes": votes},
            {"id": target.pk, "text": target.text},
        )
        Nugget.objects.filter(pk__in=gone).delete()
        mark_stale(question)
    return target


def delete_nugget(user, nugget, confirmed=False):
    """Delete a nugget with its matches and votes; refused unless `confirmed` (the page asks first)."""
    question = nugget.topic
    require_structure(user, question)
    if not confirmed:
        raise JudgingError(f"deleting nugget {nugget.text[:40]!r} also removes its matches and votes: confirm")
    with transaction.atomic():
        _rewrite_matches(user, question, lambda ids: [i for i in ids if i != nugget.pk])
        votes = list(Judgment.objects.filter(nugget=nugget).values("kind", "assessor_id", "value"))
        log_structure_change(question, user, "nugget.delete", {"id": nugget.pk, "text": nugget.text, "votes": votes})
        nugget.delete()
        mark_stale(question)


def vote(user, nugget, value, expected_version, later=False):
    """A vital/okay vote on a nugget by the primary assessor or an invited voter (pyramid weights).

    `later`: the primary's later vote set ("nugget_revote"), once the organizer asked for it (ask_revote); it
    is a vote set of its own for the pyramid weights while the first vote stays the official vital/okay."""
    question = nugget.topic
    if value not in questions.VOTES:
        raise JudgingError(f"a vote is one of {', '.join(questions.VOTES)}, not {value!r}")
    # read with the nugget by assess.judging.load_nugget (the save view's), asked here otherwise
    role = nugget.my_role if hasattr(nugget, "my_role") else assignment_role(user, question)
    if later:
        if not revote_asked(user, question, nugget):
            raise Forbidden(f"the organizer has not asked you for a later vote set on series {series_ident(question)}")
        return save_judgment(
            user,
            topic=question,
            kind=REVOTE,
            nugget=nugget,
            role=Judgment.PRIMARY,
            value={"vote": value},
            expected_version=expected_version,
        )
    if role != Assignment.PRIMARY and not may_vote(user, question, nugget):
        raise Forbidden(f"you are not a voter on series {series_ident(question)}")
    return save_judgment(
        user,
        topic=question,
        kind=VOTE,
        nugget=nugget,
        role=Judgment.PRIMARY if role == Assignment.PRIMARY else Judgment.SECONDARY,
        value={"vote": value},
        expected_version=expected_version,
    )


def match(user, item, nugget_ids, expected_version, nuggets=None):
    """Which nuggets one [docid, answer-string] pool item holds (none, one or several), by the primary.
    `nuggets`: the question's nuggets when the caller has read them already (the match view shows them all), so
    the check that every id is one of them reads nothing more."""
    question = item.topic
    _require_nugget_question(question)
    role = item.my_role if hasattr(item, "my_role") else assignment_role(user, question)
    if role != Assignment.PRIMARY:
        raise Forbidden(f"only the primary assessor of series {series_ident(question)} matches its nuggets")
    wanted = sorted({int(i) for i in nugget_ids})
    if nuggets is None:
        known = set(Nugget.objects.filter(topic=question, pk__in=wanted).values_list("pk", flat=True))
    else:
        known = {n.pk for n in nuggets if n.topic_id == question.pk} & set(wanted)
    if len(known) != len(wanted):
        raise JudgingError(f"nuggets {sorted(set(wanted) - known)} are not nuggets of question {question.ident}")
    return save_judgment(
        user,
        topic=question,
        kind="nugget_match",
        item=item,
        role=Judgment.PRIMARY,
        value={"nuggets": wanted},
        expected_version=expected_version,
        closed=getattr(item, "closed", None),
    )


# --- nugget proposals from a model server (assisted judging, assess.assist_nuggets) ------------------------------


def nugget_sources(question):
    """The texts a model server reads a nugget question's nuggets from (ep.nugget_sources): its pooled answer
    strings, each once, in pool order (as the assessor reads them on the workspace). Not a nugget question:
    none."""
    from pooling.models import PoolItem

    if not questions.is_nugget_question(question):
        return []
    texts = PoolItem.objects.filter(topic=question).order_by("position", "id").values_list("text", flat=True)
    return list(dict.fromkeys(t for t in texts if t and t.strip()))


def accept_proposal(user, question, suggestion_id, index, text=None, importance=None):
    """Make a model server's proposed nugget a nugget of the question (as proposed or edited) with the primary's
    vital/okay vote — only while the proposal is shown to them (assess.assist_nuggets.take)."""
    from pooling.models import Topic

    _require_nugget_question(question)
    require_structure(user, question)
    with transaction.atomic():
        locked = Topic.objects.select_for_update(no_key=True, of=("self",)).get(pk=question.pk)
        taken = assist_nuggets.take(user, locked, suggestion_id, index, "accepted")
        importance = importance or taken["importance"]
        if importance not in questions.VOTES:
            raise JudgingError(f"a vote is one of {', '.join(questions.VOTES)}, not {importance!r}")
        nugget = create_nugget(user, question, taken["text"] if text is None else text)
        vote(user, nugget, importance, None)
    return nugget


def reject_proposal(user, question, suggestion_id, index):
    from pooling.models import Topic

    require_structure(user, question)
    with transaction.atomic():
        locked = Topic.objects.select_for_update(no_key=True, of=("self",)).get(pk=question.pk)
        return assist_nuggets.take(user, locked, suggestion_id, index, "rejected")
