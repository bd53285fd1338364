"""The shared part of the adjudication queues of tracks whose items are judged by a primary and a secondary
assessor (BOLT citations, BioGen answer items): the pairs that disagree, by the track's own test."""

from collections import defaultdict

from assess.models import Assignment, Judgment


def judged_topics(user, evaluation):
    """The topics `user` is assigned in `evaluation` (a third person adjudicates them)."""
    return set(Assignment.objects.filter(evaluation=evaluation, assessor=user).values_list("topic_id", flat=True))


def disagreements(evaluation, kind, differ, user=None):
    """[(item, primary, secondary, adjudicated or None)] of the items of judgment `kind` whose primary and
    secondary judgments `differ(primary, secondary)` says disagree; its answer is kept as `item.reason`, and
    `item.topic` is set. With `user`, the topics the user judged are left out. Unsorted."""
    mine = judged_topics(user, evaluation) if user is not None else set()
    judged = Judgment.objects.filter(evaluation=evaluation, kind=kind, item__isnull=False)
    # Only items a second assessor judged can disagree (half the topics at most): the rest is never read.
    seconded = judged.filter(role=Judgment.SECONDARY).values("item_id")
    by_item = defaultdict(dict)
    for j in judged.filter(item_id__in=seconded).exclude(topic_id__in=mine).select_related("assessor", "item", "topic"):
        by_item[j.item_id][j.role] = j
    out = []
    for roles in by_item.values():
        first, second = roles.get(Judgment.PRIMARY), roles.get(Judgment.SECONDARY)
        if first is None or second is None:
            continue
        reason = differ(first, second)
        if not reason:
            continue
        item = first.item
        item.topic, item.reason = first.topic, reason
        out.append((item, first, second, roles.get(Judgment.ADJUDICATED)))
    return out


def queue_page_context(evaluation, rows, user):
    """What a track's adjudication queue page shows above and in its table: the rows, how many are open, the
    first open item (where "decide the next" leads) and whether the viewer organizes."""
    from config.roles import ORGANIZER, has_role

    return {
        "evaluation": evaluation,
        "rows": rows,
        "open": sum(1 for r in rows if r[3] is None),
        "first_open": next((item for item, *_, decided in rows if decided is None), None),
        "organizer": has_role(user, ORGANIZER),
    }
