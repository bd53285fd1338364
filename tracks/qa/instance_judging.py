"""The saves of QA instance judging: a label per pool item of a factoid or list question, the answer classes of
a list question's correct instances, and answers the primary assessor found. Each one goes through
assess.judging.save_judgment (version check, history, closure, stale mark) or logs its structure change there.
"""

from django.db import transaction

from assess.judging import (
    Forbidden,
    JudgingError,
    assignment_role,
    log_structure_change,
    rewrite_values,
    save_judgment,
)
from assess.models import AnswerClass, Assignment, Judgment
from pooling.staleness import mark_stale
from tracks.qa import questions
from tracks.qa.formats.runs import collapse
from tracks.qa.permissions import require_structure

KEEP = object()  # "leave the answer class as it is"


def judge_instance(user, item, label, expected_version, answer_class=KEEP):
    """Label one pool item of a factoid/list question as the user's assignment role (primary or secondary).

    `answer_class` (an AnswerClass id, None, or KEEP) applies only to the class label on a list question and only
    for the primary assessor; any other label clears it. `item` may come from load_item (saves two queries).
    """
    question, evaluation = item.topic, item.evaluation
    role = item.my_role if hasattr(item, "my_role") else assignment_role(user, question)
    if role is None:
        raise Forbidden(f"pool item {item.pk} belongs to a series that is not assigned to you")
    if not questions.is_instance_question(question):
        raise JudgingError(f"question {question.ident} is a {question.kind} question; it is judged with nuggets")
    allowed = questions.labels_for(item, evaluation)
    if label not in allowed:
        raise JudgingError(f"unknown label {label!r} for pool item {item.pk}; allowed: {', '.join(allowed)}")
    value, keep = {"label": label, "answer_class": None}, ()
    classed = questions.is_list_question(question) and role == Assignment.PRIMARY
    if label == questions.class_label(evaluation) and classed:
        if answer_class is KEEP:
            keep = ("answer_class",)
        elif answer_class is not None:
            value["answer_class"] = class_of(question, answer_class)
    return save_judgment(
        user,
        topic=question,
        kind="instance",
        role=role,
        item=item,
        value=value,
        expected_version=expected_version,
        closed=getattr(item, "closed", None),
        keep=keep,
    )


def class_of(question, answer_class_id):
    class_id = int(answer_class_id)
    if not AnswerClass.objects.filter(pk=class_id, topic=question).exists():
        raise JudgingError(f"answer class {class_id} does not belong to question {question.ident}")
    return class_id


def assign_class(user, item, answer_class_id, expected_version):
    """Put a correct instance into an answer class (it gets the class label if it had another)."""
    label = questions.class_label(item.evaluation)
    return judge_instance(user, item, label, expected_version, answer_class=answer_class_id)


def create_class(user, question, label, item=None, expected_version=None):
    """Start an answer class (named `label`, by default the item's answer string); with `item`, put it in."""
    require_structure(user, question)
    label = (label or (item.text if item is not None else "")).strip()
    if not label:
        raise JudgingError("an answer class needs a name")
    with transaction.atomic():
        answer_class = AnswerClass.objects.create(topic=question, label=label[:500], created_by=user)
        log_structure_change(question, user, "class.create", after={"id": answer_class.pk, "label": answer_class.label})
        if item is not None:
            assign_class(user, item, answer_class.pk, expected_version)
        mark_stale(question)
    return answer_class


def rename_class(user, answer_class, label):
    question = answer_class.topic
    require_structure(user, question)
    label = label.strip()
    if not label:
        raise JudgingError("an answer class needs a name")
    with transaction.atomic():
        log_structure_change(
            question,
            user,
            "class.rename",
            {"id": answer_class.pk, "label": answer_class.label},
            {"id": answer_class.pk, "label": label},
        )
        answer_class.label = label[:500]
        answer_class.save(update_fields=["label"])
    return answer_class


def _move_class_members(user, judgments, class_id):
    """Rewrite the class of these instance judgments, each as a recorded change (whoever's judgment it is)."""
    rewrite_values(user, judgments, lambda value: dict(value, answer_class=class_id))


def _class_members(question, class_ids):
    return (
        Judgment.objects.select_for_update(of=("self",))
        .filter(topic=question, kind="instance")
        .filter(value__answer_class__in=list(class_ids))
    )


def merge_classes(user, target, sources):
    """Merge the `sources` answer classes into `target`: their instances join it and the sources go."""
    question = target.topic
    require_structure(user, question)
    sources = [s for s in sources if s.pk != target.pk]
    if any(s.topic_id != question.pk for s in sources):
        raise JudgingError("only classes of the same question can be merged")
    with transaction.atomic():
        _move_class_members(user, _class_members(question, [s.pk for s in sources]), target.pk)
        log_structure_change(
            question,
            user,
            "class.merge",
            {"sources": [{"id": s.pk, "label": s.label} for s in sources]},
            {"id": target.pk, "label": target.label},
        )
        AnswerClass.objects.filter(pk__in=[s.pk for s in sources]).delete()
        mark_stale(question)
    return target


def split_class(user, answer_class, item_ids, label):
    """Move the instances of these pool items out of `answer_class` into a new class named `label`."""
    question = answer_class.topic
    require_structure(user, question)
    item_ids = [int(i) for i in item_ids]
    if not item_ids:
        raise JudgingError("choose the instances that form the new class")
    with transaction.atomic():
        members = list(_class_members(question, [answer_class.pk]).filter(item_id__in=item_ids))
        if not members:
            raise JudgingError(f"none of those items is in class {answer_class.label!r}")
        new = AnswerClass.objects.create(
            topic=question, label=(label or members[0].item.text).strip()[:500], created_by=user
        )
        _move_class_members(user, members, new.pk)
        log_structure_change(
            question,
            user,
            "class.split",
            {"id": answer_class.pk, "items": item_ids},
            {"id": new.pk, "label": new.label},
        )
        mark_stale(question)
    return new


def pool_key(docid, text):
    """A QA pool item's identity, as pooling makes it (tracks.qa.formats.runs.pool_key): docid, tab, answer string
    with white space collapsed."""
    return f"{docid.strip()}\t{collapse(text)}"


def add_found_answer(user, question, docid, text, answer_class_id=None):
    """An answer the assessor found while developing the question: a pool item of origin "assessor", judged
    correct (class label) and put into a class — a new one named after it unless `answer_class_id` is given — so
    it joins the final answer set. The docid must name a document of the evaluation's collections."""
    from corpus.models import Document
    from pooling.models import PoolItem

    require_structure(user, question)
    docid, text = docid.strip(), " ".join(text.split())
    if not docid or not text:
        raise JudgingError("a found answer needs both a docid and an answer string")
    evaluation = question.evaluation
    if not Document.objects.filter(docno=docid, collection__evaluations=evaluation).exists():
        raise JudgingError(f"docid {docid!r} is not a document of this evaluation's collections")
    key = pool_key(docid, text)
    with transaction.atomic():
        if PoolItem.objects.filter(topic=question, key=key).exists():
            raise JudgingError(f"[{docid}, {text!r}] is already in the pool of question {question.ident}")
        last = PoolItem.objects.filter(topic=question).order_by("-position").values_list("position", flat=True)
        item = PoolItem.objects.create(
            evaluation=evaluation,
            topic=question,
            key=key,
            docid=docid,
            text=text,
            origin=PoolItem.ASSESSOR,
            position=(last.first() or 0) + 1,
        )
        log_structure_change(question, user, "answer.found", after={"item": item.pk, "docid": docid, "text": text})
        class_id = None
        if questions.is_list_question(question):
            if answer_class_id:
                class_id = class_of(question, answer_class_id)
            else:
                class_id = AnswerClass.objects.create(topic=question, label=text[:500], created_by=user).pk
                log_structure_change(question, user, "class.create", after={"id": class_id, "label": text[:500]})
        save_judgment(
            user,
            topic=question,
            kind="instance",
            item=item,
            role=Judgment.PRIMARY,
            value={"label": questions.class_label(evaluation), "answer_class": class_id},
            expected_version=0,
            closed=False,
        )
    return item
