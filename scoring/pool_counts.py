"""How many of each question's pool items are judged: stored once per question (scoring.models.PoolCount), shown
where the scores' detail showed it before issue 32.

A scorer that counts per question hands {question id: (judged, items)} in ScoreBatch.pool_counts instead of
putting the pair in every run's rows (the QA scorer). Readers of a detail (reports, `score --json`, the API, the
judging share) get it back through `Shown`: a question row's "pool": [judged, items]; a series row's and a run's
"score" row's "pool_judged" and "pool_items" (sums over the series' or the evaluation's counted questions, and
in the run's "sums" counts too), in the key order PostgreSQL's jsonb gives, so what they show is what they showed.
Rows that hold the counts themselves (other tracks', or stored before the counts moved) are shown as stored.

The same goes for the lists of unjudged and left-out questions ("unjudged_questions", "left_out_questions") of a
series' and a run's "score" row: the same in every run (a run's with one entry per question of the evaluation),
they are made here from each question's stored flags (its answers not pooled yet, its score left out) instead of
being rewritten in every run's rows by every live pass.
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
    """The keys as PostgreSQL's jsonb returns them (shorter first, then by bytes); elsewhere (SQLite keeps the
    text as written) as stored, the counts before "unpooled" as the scorer wrote them."""
    return dict(sorted(detail.items(), key=lambda kv: (len(kv[0].encode()), kv[0].encode())))


def _with(detail, added, before="unpooled"):
    """detail | added, the added keys where the scorer wrote them: before the key `before` (elsewhere than on
    PostgreSQL, whose jsonb orders keys itself)."""
    if connection.vendor == "postgresql":
        return _jsonb_order(detail | added)
    out = {}
    for key, value in detail.items():
        if key == before:
            out.update(added)
        out[key] = value
    return out


def _named(lists):
    left_out, unjudged = lists
    return {"left_out_questions": sorted(left_out), "unjudged_questions": sorted(unjudged)}


class Shown:
    """The evaluation's pool counts, ready to be added to the details of its Score rows (`detail`)."""

    def __init__(self, evaluation):
        self.evaluation = evaluation
        self.counts, self.flags = {}, {}
        for tid, judged, items, unpooled, left_out in PoolCount.objects.filter(evaluation=evaluation).values_list(
            "topic_id", *FIELDS
        ):
            self.counts[tid] = (judged, items)
            self.flags[tid] = (judged < items or unpooled > 0, left_out)
        self.total = [sum(c[0] for c in self.counts.values()), sum(c[1] for c in self.counts.values())]
        self._series = self._lists = None

    def _read_topics(self):
        """Per series (or a question standing alone): its counts summed and its lists; and the run's lists, made
        when a series or run row is first shown. A list holds the idents of the counted questions not fully judged
        ("unjudged_questions"), or of those whose score is left out once they are ("left_out_questions"), sorted
        as text, as the QA scorer made them when each row held them."""
        self._series, lists = {}, {}
        every = ([], [])
        for tid, parent, ident in Topic.objects.filter(evaluation=self.evaluation).values_list(
            "id", "parent_id", "ident"
        ):
            if tid not in self.counts:
                continue
            judged, items = self.counts[tid]
            sums = self._series.setdefault(parent or tid, [0, 0])
            sums[0] += judged
            sums[1] += items
            not_judged, out = self.flags[tid]
            if not_judged or out:
                which = 1 if not_judged else 0
                lists.setdefault(parent or tid, ([], []))[which].append(ident)
                every[which].append(ident)
        self._lists = {key: _named(found) for key, found in lists.items()}
        self._lists[None] = _named(every)

    @property
    def series(self):
        """{series (or a question standing alone): [judged, items]}, read when a series row is first shown."""
        if self._series is None:
            self._read_topics()
        return self._series

    def lists(self, series=None):
        """{"left_out_questions": [...], "unjudged_questions": [...]} of a series (None: of a run)."""
        if self._lists is None:
            self._read_topics()
        return self._lists.get(series) or _named(([], []))

    def detail(self, scope, topic_id, measure, detail):
        """The detail as shown: with the counts (and a series' or run's lists) where the row's scorer left them to
        PoolCount (a QA row: it has "unpooled" but no count of its own)."""
        if not self.counts or measure != "score" or not isinstance(detail, dict) or "unpooled" not in detail:
            return detail
        if scope == Score.QUESTION:
            found = self.counts.get(topic_id)
            if found is None or "pool" in detail:
                return detail
            return _with(detail, {"pool": list(found)})
        if "unjudged_questions" not in detail:
            if scope == Score.RUN:
                detail = _with(detail, self.lists())
            else:
                detail = _with(detail, self.lists(topic_id), before="sums")
        if "pool_items" in detail:
            return detail
        sums = self.series.get(topic_id) if scope == Score.SERIES else self.total
        if sums is None:
            return detail
        added = {"pool_items": sums[1], "pool_judged": sums[0]}
        if scope == Score.RUN and isinstance(detail.get("sums"), dict) and "counts" in detail["sums"]:
            inner = detail["sums"]
            detail = detail | {"sums": inner | {"counts": _with(inner["counts"], added)}}
        return _with(detail, added)
