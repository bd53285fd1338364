"""Views of the judging: progress (for each assessor's own pages, and for organizers per assessor, series, question
and run), time per item, agreement of double judging (a track's adjudication queue builds on it).

Time spent is derived from the history, not from extra writes: for each assessor, the gap between two consecutive
saves is the time spent on the item of the later save; gaps longer than IDLE_CAP (a break, a night) count as
IDLE_CAP. An item's time is the sum over its saves, and the average per item divides by the items judged.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.db.models import Count, Q

from assess import agreement
from assess.models import Assignment, Judgment, JudgmentChange
from core.tracks import TRACKS
from pooling.models import PoolItem, Topic

IDLE_CAP = 300.0  # seconds


def done_kind(question_type: str | None, role: str) -> str | None:
    """The judgment kind that marks an item of this question type done for this assignment role, as the
    registered tracks declare it (None: nothing for this role to judge)."""
    question_type = (question_type or "").upper()
    for track in TRACKS.values():
        kind = track.done_kinds.get(question_type)
        if kind is not None:
            return None if kind in track.primary_only_kinds and role != Assignment.PRIMARY else kind
    return None


@dataclass
class Progress:
    """Items judged of items to judge, for a bar: an assignment, a question, an assessor, a run or everything."""

    judged: int = 0
    total: int = 0
    seconds_per_item: float | None = None  # from the history (time_per_assessor), where it applies

    @property
    def left(self):
        return max(self.total - self.judged, 0)

    @property
    def percent(self):
        return int(100 * self.judged / self.total) if self.total else 0

    @property
    def seconds_left(self):
        """At the pace so far: what the items left would take (None before any time was measured)."""
        return self.left * self.seconds_per_item if self.seconds_per_item else None

    def __add__(self, other):
        return Progress(self.judged + other.judged, self.total + other.total)


def _item_totals(question_ids):
    """{question id: pool items to judge}. Items a track judges on a page of their own (Track.items_judged_apart)
    are left out: counting them, no question could ever be done."""
    totals = dict(PoolItem.objects.filter(topic_id__in=question_ids).values_list("topic_id").annotate(n=Count("id")))
    apart = [Q(**t.items_judged_apart) for t in TRACKS.values() if t.items_judged_apart]
    if apart:
        # counted and subtracted, not excluded: exclude() on a JSON key would drop the items without that key too
        for topic_id, n in (
            PoolItem.objects.filter(reduce(or_, apart), topic_id__in=question_ids)
            .values_list("topic_id")
            .annotate(n=Count("id"))
        ):
            totals[topic_id] -= n
    return totals


def assignment_progress(assignments):
    """{assignment id: (judged, total)} — pool items of the series' questions and how many this assessor judged."""
    assignments = list(assignments)
    series_ids = {a.topic_id for a in assignments}
    question_rows = list(Topic.objects.filter(parent_id__in=series_ids).values("id", "parent_id", "kind"))
    question_rows += list(
        Topic.objects.filter(id__in=series_ids, parent__isnull=True)
        .exclude(kind="series")
        .values("id", "parent_id", "kind")
    )
    totals = _item_totals([q["id"] for q in question_rows])
    done = defaultdict(int)
    for topic_id, assessor_id, kind, n in (
        Judgment.objects.filter(topic_id__in=[q["id"] for q in question_rows], item__isnull=False)
        .values_list("topic_id", "assessor_id", "kind")
        .annotate(n=Count("id"))
    ):
        done[(topic_id, assessor_id, kind)] = n
    out = {}
    for a in assignments:
        judged = total = 0
        for q in question_rows:
            if (q["parent_id"] or q["id"]) != a.topic_id:
                continue
            kind = done_kind(q["kind"], a.role)
            if kind is None:
                continue
            total += totals.get(q["id"], 0)
            judged += done.get((q["id"], a.assessor_id, kind), 0)
        out[a.pk] = (judged, total)
    return out


def question_progress(user, question_ids, kind_by_question, role):
    """{question id: (judged, total)} for one assessor's view of a series."""
    totals = _item_totals(question_ids)
    done = {}
    rows = (
        Judgment.objects.filter(topic_id__in=question_ids, assessor=user, item__isnull=False)
        .values_list("topic_id", "kind")
        .annotate(n=Count("id"))
    )
    for topic_id, kind, n in rows:
        if kind == done_kind(kind_by_question[topic_id], role):
            done[topic_id] = n
    return {qid: (done.get(qid, 0), totals.get(qid, 0)) for qid in question_ids}


SAVE_FIELDS = ("changed_by_id", "changed_at", "judgment__item_id", "judgment__topic__parent_id", "judgment__topic_id")


def time_per_assessor(evaluation, by_series=False):
    """{assessor id: {"seconds": total, "items": distinct items judged, "per_item": seconds}} from saves; with
    `by_series`, keyed by (assessor id, series id) instead."""
    rows = (
        JudgmentChange.objects.filter(judgment__evaluation=evaluation, judgment__item__isnull=False)
        .order_by("changed_by_id", "changed_at")
        .values_list(*SAVE_FIELDS)
    )
    return _time_spent(
        rows, (lambda assessor, series: (assessor, series)) if by_series else (lambda assessor, series: assessor)
    )


def my_time(user):
    """One assessor's time over all their saves: {series id: entry, None: entry for everything}, entries as
    time_per_assessor's (a gap between two saves of different evaluations counts too: it was spent judging)."""
    rows = list(
        JudgmentChange.objects.filter(changed_by=user, judgment__item__isnull=False)
        .order_by("changed_at")
        .values_list(*SAVE_FIELDS)
    )
    return _time_spent(rows, lambda assessor, series: series) | _time_spent(rows, lambda assessor, series: None)


def _time_spent(rows, key_of):
    """Time per key of `key_of(assessor id, series id)` from save rows (SAVE_FIELDS) ordered by assessor and
    time: each gap between an assessor's consecutive saves, capped at IDLE_CAP, goes to the later save's item."""
    out, last = {}, {}
    for assessor_id, at, item_id, parent_id, topic_id in rows:
        key = key_of(assessor_id, parent_id or topic_id)
        entry = out.setdefault(key, {"seconds": 0.0, "items": set()})
        if assessor_id in last:
            entry["seconds"] += min((at - last[assessor_id]).total_seconds(), IDLE_CAP)
        last[assessor_id] = at
        entry["items"].add(item_id)
    return {
        k: {
            "seconds": e["seconds"],
            "items": len(e["items"]),
            "per_item": e["seconds"] / len(e["items"]) if e["items"] else None,
        }
        for k, e in out.items()
    }


def evaluation_progress(evaluation):
    """The organizer's view of how far judging is: {"overall": Progress, "questions": [(question, Progress)],
    "assessors": [(user, Progress)], "runs": [(run, Progress or None when the run is not pooled)]}.

    An item counts as judged for its question and runs once it has the judgment that counts (the primary's or an
    adjudicator's, of the kind its track declares for the question's type: Track.done_kinds); an assessor's
    progress is over their assignments, each judged by its own role (a second assessor's own judgments count for
    them, on the questions that are not the primary's only)."""
    from pooling.pools import run_items

    questions_ = list(Topic.objects.filter(evaluation=evaluation).exclude(kind="series").order_by("position", "id"))
    totals = _item_totals([q.pk for q in questions_])
    kind_of = {q.pk: done_kind(q.kind, Assignment.PRIMARY) for q in questions_}
    topic_of_judged = {
        item_id: topic_id
        for item_id, topic_id, kind in (
            Judgment.objects.filter(evaluation=evaluation, item__isnull=False)
            .exclude(role=Judgment.SECONDARY)
            .values_list("item_id", "topic_id", "kind")
        )
        if kind_of.get(topic_id) == kind
    }
    judged_items = set(topic_of_judged)
    judged_per_question = Counter(topic_of_judged.values())
    rows = [
        (q, Progress(judged_per_question[q.pk], totals.get(q.pk, 0))) for q in questions_ if kind_of[q.pk] is not None
    ]
    times = time_per_assessor(evaluation)

    assignments = list(Assignment.objects.filter(evaluation=evaluation).select_related("assessor"))
    done = assignment_progress(assignments)
    by_assessor = {}
    for a in assignments:
        by_assessor[a.assessor] = by_assessor.get(a.assessor, Progress()) + Progress(*done[a.pk])
    for user, entry in by_assessor.items():
        entry.seconds_per_item = (times.get(user.pk) or {}).get("per_item")

    pooled = run_items(evaluation)
    runs = [
        (run, Progress(len(pooled[run.pk] & judged_items), len(pooled[run.pk])) if run.pk in pooled else None)
        for run in evaluation.runs.select_related("team").order_by("tag")
    ]

    overall = sum((p for _, p in rows), Progress())
    seconds = sum(t["seconds"] for t in times.values())
    items = sum(t["items"] for t in times.values())
    overall.seconds_per_item = seconds / items if items else None
    return {
        "overall": overall,
        "questions": rows,
        "runs": runs,
        "assessors": sorted(by_assessor.items(), key=lambda kv: kv[0].username),
    }


def paired_instance_labels(evaluation):
    """[(question, primary judgment, secondary judgment)] for every item judged by both assessors."""
    by_item = defaultdict(dict)
    for j in Judgment.objects.filter(evaluation=evaluation, kind="instance").select_related(
        "assessor", "item", "topic"
    ):
        j.item.topic = j.topic
        by_item[j.item_id][j.role] = j
    return [
        (roles[Judgment.PRIMARY].topic, roles[Judgment.PRIMARY], roles[Judgment.SECONDARY], roles)
        for roles in by_item.values()
        if Judgment.PRIMARY in roles and Judgment.SECONDARY in roles
    ]


def agreement_tables(evaluation):
    """Agreement per assessor pair and per question: {"pairs": [...], "questions": [...]} rows with n, percent
    agreement and Cohen's kappa over the instance labels both assessors gave."""
    by_pair, by_question = defaultdict(list), defaultdict(list)
    for question, first, second, _ in paired_instance_labels(evaluation):
        pair = (first.assessor.username, second.assessor.username)
        by_pair[pair].append((first.value.get("label"), second.value.get("label")))
        by_question[question].append((first.value.get("label"), second.value.get("label")))

    def row(key, pairs):
        return {
            "key": key,
            "n": len(pairs),
            "percent": agreement.percent_agreement(pairs),
            "kappa": agreement.cohens_kappa(pairs),
        }

    return {
        "pairs": [row(k, v) for k, v in sorted(by_pair.items())],
        "questions": [row(q, v) for q, v in sorted(by_question.items(), key=lambda kv: kv[0].position)],
    }
