"""The QA scorer's run-level rows, kept current from the series a live pass recomputed.

A run's rows (score, one mean per question type, NIL precision and recall, judged share, judging counts) are sums
over all its series. A full rescoring adds every series up; a live pass takes the sums stored with the run's
"score" row (detail["sums"]), subtracts the recomputed series' stored rows and adds their new ones, so it reads
the series it changed and not every series of every run (which made a pass grow with the evaluation). For the
same reason what says how far judging has got is not kept here (the lists of unjudged and left-out questions, one
entry per question of the evaluation, the counts of judged questions and of unpooled answers): the same in every
run, it is made where shown from each question's stored counts (scoring.pool_counts).

Float sums are kept exactly, as integers in units of 2**-1074 (every finite double is a whole multiple of it), and
rounded once when a row is made: adding and subtracting is then exact, in any order, so a live pass stores the
very numbers a full rescoring would (rounded sums drift, and would differ from a full rescoring in the last bits).
"""

from collections import defaultdict

from django.db.models import Count

from scoring.models import Score
from scoring.registry import ScoreRow, memo

SHIFT = 1074  # 2**-1074 is the smallest positive double

# Integer counts summed per series (tracks.qa.scorer) and run.
COUNT_KEYS = (
    "entries",
    "judged",
    "nil_returned",
    "nil_correct",
    "nil_questions",
    "questions",
)


def exact(x):
    """x as an integer number of 2**-1074 units (no rounding)."""
    num, den = x.as_integer_ratio()  # den is a power of two, at most 2**1074
    return num << (SHIFT + 1 - den.bit_length())


def rounded(total):
    """The double nearest to total * 2**-1074 (Python's int / int is correctly rounded, whatever the size)."""
    return total / (1 << SHIFT)


def packed(total):
    """An exact sum as short text: the hex digits of its odd part and its power of two ("c-3" is 12 × 2**-3).
    (Full hex digits of a sum in 2**-1074 units take ~270 characters where a few series values need ~15.)"""
    if not total:
        return "0"
    zeros = (total & -total).bit_length() - 1
    return f"{total >> zeros:x}@{SHIFT - zeros}"


def unpacked(text):
    """packed()'s sum back, in 2**-1074 units."""
    if text == "0":
        return 0
    digits, power = text.split("@")
    return int(digits, 16) << (SHIFT - int(power))


class RunTotals:
    """The sums over one run's series that its run-level rows are made of."""

    def __init__(self):
        self.series = 0
        self.value_sum, self.values = 0, 0  # series scores that exist (None ones are left out of the mean)
        self.partial = 0  # series flagged for a missing question type
        self.types = {}  # question type -> [exact sum of component x questions, questions]
        self.counts = dict.fromkeys(COUNT_KEYS, 0)

    def add(self, value, detail, sign=1):
        """Add one series' (value, detail) to the sums, or take it away (sign -1)."""
        self.series += sign
        if value is not None:
            self.value_sum += sign * exact(value)
            self.values += sign
        if detail.get("missing"):
            self.partial += sign
        counts = detail.get("counts", {})
        for qtype, component in detail.get("components", {}).items():
            n = counts.get(qtype, 0)
            acc = self.types.setdefault(qtype, [0, 0])
            acc[0] += sign * exact(component * n)
            acc[1] += sign * n
        for k in COUNT_KEYS:
            self.counts[k] += sign * detail.get(k, 0)

    def to_json(self):
        return {
            "series": self.series,
            "values": [format(self.value_sum, "x"), self.values],
            "partial": self.partial,
            "types": {t: [format(s, "x"), n] for t, (s, n) in sorted(self.types.items()) if n},
            "counts": self.counts,
        }

    @classmethod
    def from_detail(cls, detail):
        """The totals stored with a run's "score" row, or None where there are none (scored before they were)."""
        sums = detail.get("sums")
        if not isinstance(sums, dict):
            return None
        t = cls()
        t.series, t.partial = sums["series"], sums["partial"]
        t.value_sum, t.values = int(sums["values"][0], 16), sums["values"][1]
        t.types = {qtype: [int(s, 16), n] for qtype, (s, n) in sums["types"].items()}
        # (sums stored before the pool counts moved to scoring.models.PoolCount hold more: left out)
        t.counts.update((k, n) for k, n in sums["counts"].items() if k in t.counts)
        return t

    def rows(self, run_id):
        c = self.counts
        rows = [
            ScoreRow(
                run_id,
                Score.RUN,
                None,
                "score",
                rounded(self.value_sum) / self.values if self.values else None,
                {
                    "series": self.series,
                    "partial_series": self.partial,
                    "questions": c["questions"],  # (how many are judged: scoring.pool_counts)
                    "sums": self.to_json(),
                },
            )
        ]
        # component = mean over all the run's questions of the type (not the mean of series means)
        for qtype, (total, n) in sorted(self.types.items()):
            if n:
                rows.append(ScoreRow(run_id, Score.RUN, None, qtype.lower(), rounded(total) / n, {"questions": n}))
        if self.types.get("FACTOID", (0, 0))[1]:
            correct, returned, nil_questions = c["nil_correct"], c["nil_returned"], c["nil_questions"]
            rows.append(
                ScoreRow(
                    run_id,
                    Score.RUN,
                    None,
                    "nil_precision",
                    correct / returned if returned else None,
                    {"correct": correct, "returned": returned},
                )
            )
            rows.append(
                ScoreRow(
                    run_id,
                    Score.RUN,
                    None,
                    "nil_recall",
                    correct / nil_questions if nil_questions else None,
                    {"correct": correct, "nil_questions": nil_questions},
                )
            )
        judged = c["judged"] / c["entries"] if c["entries"] else None
        rows.append(
            ScoreRow(run_id, Score.RUN, None, "judged", judged, {"judged": c["judged"], "entries": c["entries"]})
        )
        return rows


def full_run_rows(run_ids, series_details):
    """Run-level rows from {(run, series): (value, detail)} of every series."""
    totals = {run_id: RunTotals() for run_id in run_ids}
    for (run_id, _), (value, detail) in series_details.items():
        if run_id in totals:
            totals[run_id].add(value, detail)
    return [row for run_id in run_ids for row in totals[run_id].rows(run_id)]


def live_run_rows(run_ids, series_ids, new_series, stored_series=None):
    """Run-level rows after a live pass recomputed `series_ids` ({(run, series): (value, detail)} in `new_series`):
    each run's stored sums minus the series' stored rows plus their new ones (`stored_series`, [(run, series,
    value, detail)], when the caller read them already).

    A run whose stored sums are missing, or count another number of series than its stored series rows (a series
    deleted since: a topic file reloaded), is summed again from all its series rows."""
    scores = Score.objects.filter(run_id__in=run_ids).order_by()
    # topic IS NOT NULL (always true of a series row) lets the partial unique index (run, scope, topic, measure)
    # serve: without it the count below read every score row of the runs (160 ms of a 200 ms pass).
    series_scores = scores.filter(scope=Score.SERIES, measure="score", topic__isnull=False)

    def read():
        """The stored official sums, series counts and the series' rows: the same under every reading of one
        rankings refresh (scoring.registry.memo; RunTotals are made afresh from them each time)."""
        sums = list(scores.filter(scope=Score.RUN, topic__isnull=True, measure="score").values_list("run_id", "detail"))
        counts = dict(series_scores.values("run_id").annotate(n=Count("id")).values_list("run_id", "n"))
        if stored_series is None:
            rows = list(
                series_scores.filter(topic_id__in=series_ids).values_list("run_id", "topic_id", "value", "detail")
            )
        else:
            rows = stored_series
        return sums, counts, rows

    sums, rows_now, series_rows = memo(("qa.run_totals", tuple(run_ids), frozenset(series_ids)), read)
    stored = {run_id: RunTotals.from_detail(detail or {}) for run_id, detail in sums}
    old = defaultdict(dict)
    for run_id, sid, value, detail in series_rows:
        old[run_id][sid] = (value, detail)
    new = defaultdict(dict)
    for (run_id, sid), vd in new_series.items():
        new[run_id][sid] = vd
    rows, again = [], []
    for run_id in run_ids:
        totals = stored.get(run_id)
        if totals is None or totals.series != rows_now.get(run_id, 0):
            again.append(run_id)
            continue
        before, after = old[run_id], new[run_id]
        for value, detail in before.values():
            totals.add(value, detail, sign=-1)
        for value, detail in after.values():
            totals.add(value, detail)
        rows += totals.rows(run_id)
    if again:
        every = {key: vd for key, vd in new_series.items() if key[0] in again}
        for run_id, sid, value, detail in (
            series_scores.filter(run_id__in=again)
            .exclude(topic_id__in=series_ids)
            .values_list("run_id", "topic_id", "value", "detail")
        ):
            every[(run_id, sid)] = (value, detail)
        rows += full_run_rows(again, every)
    return rows
