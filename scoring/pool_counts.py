"""What a question's pool says about its judging, stored once per question (scoring.models.PoolCount) and shown
where the scores' detail showed it before issue 32.

A scorer that counts per question hands {question id: (judged, items, unpooled, left out)} in
ScoreBatch.pool_counts instead of putting them in every run's rows (the QA scorer): how many of its pool items are
judged, how many answers of judged runs no pool item holds yet, and whether its score is left out (a list question
whose final answer set is empty); it is unjudged while judged < items or unpooled > 0. All of it is the same in
every run, and the first three change with saves that change few runs' scores: held in every run's question, series
and run rows, they made a live pass rewrite them all (a save changed the judged count; a question fully judged, the
unjudged flag and the series' and runs' counts of judged questions).

Readers of a detail (reports, `score --json`, the API, the judging share) get them back through `Shown`:
- a question row's "pool": [judged, items], "unpooled" and "unjudged";
- a series row's and a run's "score" row's "pool_judged" and "pool_items", "unpooled" and "questions_judged"
  (sums over the series' or the evaluation's counted questions, and in the run's "sums" counts too), and their
  lists of unjudged and left-out questions ("unjudged_questions", "left_out_questions");
each in the key order PostgreSQL's jsonb gives, or elsewhere (SQLite keeps the text as written) where the scorer
wrote it, so what they show is what they showed. Rows that hold these themselves (other tracks', or stored before
they moved) are shown as stored.
"""

from django.db import connection

from pooling.models import Topic
from scoring.models import PoolCount, Score

FIELDS = ("judged", "items", "unpooled", "left_out")


def store(evaluation, counts, question_ids, full):
    """Write `counts` ({question: (judged, items, unpooled, left_out)}) inside the caller's transaction: changed
    or new rows only; the counts of `question_ids` (every question of the evaluation when `full`) that `counts`
    leaves out are deleted (a question no longer scored). Returns the rows written."""
    stored = PoolCount.objects.filter(evaluation=evaluation)
    if not full:
        stored = stored.filter(topic_id__in=list(question_ids))
    old = {tid: tuple(rest) for tid, *rest in stored.values_list("topic_id", *FIELDS)}
    gone = [tid for tid in old if tid not in counts]
    if gone:
        PoolCount.objects.filter(topic_id__in=gone).delete()
    changed = [
        PoolCount(topic_id=tid, evaluation=evaluation, **dict(zip(FIELDS, count)))
        for tid, count in counts.items()
        if old.get(tid) != tuple(count)
    ]
    if changed:
        PoolCount.objects.bulk_create(changed, update_conflicts=True, unique_fields=["topic"], update_fields=FIELDS)
    return len(changed)


def _jsonb_order(detail):
    """The keys as PostgreSQL's jsonb returns them: shorter first, then by bytes."""
    return dict(sorted(detail.items(), key=lambda kv: (len(kv[0].encode()), kv[0].encode())))


def _with(detail, *groups):
    """detail with each group's keys added ((key, {added}) pairs: before `key`, or at the end where the detail
    lacks it or `key` is None), where the scorer wrote them; on PostgreSQL in jsonb's order. Keys the detail holds
    already are kept as they are."""
    groups = [(key, {k: v for k, v in added.items() if k not in detail}) for key, added in groups]
    if not any(added for _, added in groups):
        return detail
    if connection.vendor == "postgresql":
        out = dict(detail)
        for _, added in groups:
            out.update(added)
        return _jsonb_order(out)
    before = {}
    for key, added in groups:
        before.setdefault(key if key in detail else None, {}).update(added)
    out = {}
    for key, value in detail.items():
        out.update(before.get(key, ()))
        out[key] = value
    out.update(before.get(None, ()))
    return out


class _Sums:
    """Sums over some questions (judged pool items, pool items, unpooled answers, questions fully judged) and the
    idents of those not fully judged and of the left-out ones."""

    def __init__(self):
        self.judged = self.items = self.unpooled = self.questions_judged = 0
        self.unjudged, self.left_out = [], []

    def add(self, ident, judged, items, unpooled, unjudged, left_out):
        self.judged += judged
        self.items += items
        self.unpooled += unpooled
        self.questions_judged += not unjudged
        if unjudged:
            self.unjudged.append(ident)
        elif left_out:
            self.left_out.append(ident)

    def lists(self):
        return {"left_out_questions": sorted(self.left_out), "unjudged_questions": sorted(self.unjudged)}


class Shown:
    """The evaluation's pool counts, ready to be added to the details of its Score rows (`detail`)."""

    def __init__(self, evaluation):
        self.evaluation = evaluation
        self.counts = {}  # question -> (judged, items, unpooled, unjudged, left_out)
        for tid, judged, items, unpooled, left_out in PoolCount.objects.filter(evaluation=evaluation).values_list(
            "topic_id", *FIELDS
        ):
            self.counts[tid] = (judged, items, unpooled, judged < items or unpooled > 0, left_out)
        self._series = self._total = None

    def _read_topics(self):
        """The counts summed per series (or a question standing alone) and over the evaluation, made when a series
        or run row is first shown. A list holds the idents of the counted questions not fully judged
        ("unjudged_questions"), or of those whose score is left out once they are ("left_out_questions"), sorted
        as text, as the QA scorer made them when each row held them."""
        self._series, self._total = {}, _Sums()
        for tid, parent, ident in Topic.objects.filter(evaluation=self.evaluation).values_list(
            "id", "parent_id", "ident"
        ):
            if tid in self.counts:
                self._series.setdefault(parent or tid, _Sums()).add(ident, *self.counts[tid])
                self._total.add(ident, *self.counts[tid])

    def sums(self, series=None):
        """The _Sums of a series (or a question standing alone; None: of the evaluation), or None if not counted."""
        if self._series is None:
            self._read_topics()
        return self._total if series is None else self._series.get(series)

    def detail(self, scope, topic_id, measure, detail):
        """The detail as shown: with what PoolCount holds added where the row's scorer left it there (a QA row,
        in an evaluation whose questions have counts)."""
        if not self.counts or measure != "score" or not isinstance(detail, dict):
            return detail
        if scope == Score.QUESTION:
            found = self.counts.get(topic_id)
            if found is None:
                return detail
            judged, items, unpooled, unjudged, _ = found
            return _with(detail, (None, {"pool": [judged, items], "unpooled": unpooled, "unjudged": unjudged}))
        if "questions" not in detail:
            return detail  # (not a QA series or run score)
        sums = self.sums(topic_id if scope == Score.SERIES else None)
        if sums is None:
            return detail
        counts = {"pool_items": sums.items, "pool_judged": sums.judged, "unpooled": sums.unpooled}
        judged = {"questions_judged": sums.questions_judged}
        if scope == Score.SERIES:
            return _with(detail, ("questions", counts), ("sums", judged | sums.lists()))
        shown = _with(detail, ("questions", sums.lists() | counts), ("sums", judged))
        inner = detail.get("sums")
        if isinstance(inner, dict) and isinstance(inner.get("counts"), dict) and "questions" in inner["counts"]:
            added = _with(inner["counts"], ("questions", counts), (None, judged))
            if added is not inner["counts"]:  # (a new dict: the stored detail itself is never changed)
                shown = shown | {"sums": inner | {"counts": added}}
        return shown
