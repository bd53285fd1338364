"""Agreement between judges, stored per evaluation, comparison, kind and topic (scoring.models.Agreement), written
by a spaced task after the rescoring worker's passes (scoring.agreement_schedule), after a full rescoring and when a
judgment set is loaded — never on the save path — and read by the pages and the API (issue 29).

Comparisons: each judgment set against the official judgments (assess.official's precedence: adjudicated, else
primary), and the human one (judgment_set empty): the second assessor against the primary. A unit is a subject
(pool item or nugget) of a kind the track declares a scale for (core.extension_points.judgment_scales; a scale
that takes some pool items only, by key, counts those), its label the scale's key of the value; a scale of nuggets
is compared per (item, nugget of the question): "match" or "no match" for a set of nugget ids, the map's label for
a map (TREC RAG's assignments). Rows are stored under the scale's name (the kind, or e.g. RAG's "relevance").
Krippendorff's alpha "over all judges" counts, per unit, the primary, the second
assessor and every judgment set (the adjudicator decides between judges and is not one more).

Each topic's row keeps its confusion and coincidence matrices; the evaluation's row per comparison and kind (topic
empty) sums them (coincidences of disjoint units add up), so a pass recomputes only the topics whose judgments
changed since their row was written.
"""

import logging
from collections import defaultdict

from django.db import connection, transaction
from django.db.models import Count, Max, Q, Sum
from django.utils import timezone

from assess import agreement as stats
from assess.models import Judgment, Nugget
from assess.official import VOTE_KINDS
from core.label_scales import NUGGETS, judged_kinds
from pooling.models import Evaluation, PoolItem, Topic
from scoring.models import Agreement, JudgmentSet, SetJudgment

log = logging.getLogger(__name__)

MATCH, NO_MATCH = "match", "no match"
PRIMARY, SECOND = "primary", "second"
_PRECEDENCE = {Judgment.ADJUDICATED: 2, Judgment.PRIMARY: 1}


def _scales(evaluation):
    from scoring.judgment_sets import scales

    return scales(evaluation)


def units(evaluation, kind, scale, topic_ids, set_ids):
    """{topic id: {unit: {judge: label}}} of one kind (all_units' for that kind)."""
    return all_units({kind: scale}, topic_ids, set_ids)[0].get(kind, {})


def all_units(scales, topic_ids, set_ids):
    """({scale name: {topic id: {unit: {judge: label}}}}, fingerprints) of the topics' judgments of the kinds the
    scales read, in one query each of judgments, set judgments, (when a scale holds nuggets) nuggets and (when a
    scale takes some pool items only) the items' keys. Judges: "official", PRIMARY, SECOND and each set's id; a unit
    is a subject id, or (item id, nugget id) for a scale of nuggets. The fingerprints are those of `fingerprints`,
    from the same rows."""
    topic_ids = list(topic_ids)
    found = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    by_kind = defaultdict(list)  # judgment kind -> [(scale name, scale)]: one kind may hold several scales
    for name, scale in scales.items():
        by_kind[scale.judged_kind(name)].append((name, scale))
    rows = list(
        Judgment.objects.filter(topic_id__in=topic_ids, kind__in=list(by_kind))
        .order_by("id")
        .values_list("id", "topic_id", "kind", "item_id", "nugget_id", "role", "value", "version", "updated_at")
    )
    set_rows = []
    if set_ids:
        set_rows = SetJudgment.objects.filter(
            judgment_set_id__in=list(set_ids), topic_id__in=topic_ids, kind__in=list(by_kind)
        ).values_list("judgment_set_id", "topic_id", "kind", "item_id", "nugget_id", "value")
        set_rows = list(set_rows)
    nuggets_of = defaultdict(list)
    held_kinds = {r[2] for r in rows} | {r[2] for r in set_rows}
    held_scales = [scale for k in held_kinds for _, scale in by_kind[k]]
    if any(scale.key == NUGGETS for scale in held_scales):  # (a question without nugget judgments: no query)
        for nid, tid in Nugget.objects.filter(topic_id__in=topic_ids).values_list("id", "topic_id"):
            nuggets_of[tid].append(nid)
    keys = {}
    if any(scale.items for scale in held_scales):  # scales told apart by pool item (TREC RAG)
        keys = dict(PoolItem.objects.filter(topic_id__in=topic_ids).values_list("id", "key"))

    def put(kind, topic_id, subject, judge, value, is_item):
        for name, scale in by_kind[kind]:
            if scale.items and not (is_item and scale.takes(keys.get(subject))):
                continue
            if scale.key == NUGGETS:
                held = value.get(NUGGETS) if isinstance(value, dict) else None
                if scale.per_nugget_labels:  # {nugget id: label}; a nugget left out is no unit
                    held = held if isinstance(held, dict) else {}
                    for nid in nuggets_of[topic_id]:
                        label = held.get(str(nid))
                        if label is not None:
                            found[name][topic_id][subject, nid][judge] = label
                    continue
                held = set(held or ())
                for nid in nuggets_of[topic_id]:
                    found[name][topic_id][subject, nid][judge] = MATCH if nid in held else NO_MATCH
                continue
            label = scale.label(value)
            if label is not None:
                found[name][topic_id][subject][judge] = label

    best, second, prints = {}, {}, {}
    for pk, tid, kind, item, nugget, role, value, version, updated in rows:
        n, v, m, u = prints.get(tid, (0, 0, 0, updated))
        prints[tid] = (n + 1, v + version, max(m, pk), max(u, updated))
        subject = (kind, item if item is not None else nugget, item is not None)
        if role == Judgment.SECONDARY:
            second[subject] = (tid, value)  # the latest, as the qrels_jg export takes it
            continue
        if role == Judgment.PRIMARY:
            put(kind, tid, subject[1], PRIMARY, value, subject[2])
        rank = (_PRECEDENCE[role], pk)
        if subject not in best or rank > best[subject][0]:
            best[subject] = (rank, tid, value)
    for (kind, subject, is_item), (_, tid, value) in best.items():
        put(kind, tid, subject, "official", value, is_item)
    for (kind, subject, is_item), (tid, value) in second.items():
        put(kind, tid, subject, SECOND, value, is_item)
    for set_id, tid, kind, item, nugget, value in set_rows:
        put(kind, tid, item if item is not None else nugget, set_id, value, item is not None)
    fingerprinted = {tid: [n, v, m, u.isoformat()] for tid, (n, v, m, u) in prints.items()}
    return found, fingerprinted


def _labels(scale):
    return [MATCH, NO_MATCH] if scale.key == NUGGETS and not scale.labels else list(scale.labels)


def _pairs(topic_units, first, second):
    return [(judges[first], judges[second]) for judges in topic_units.values() if first in judges and second in judges]


def summary(labels, confusion, coincidence, ordinal):
    """The stored stats of one comparison from its confusion matrix (pairs) and its all-judges coincidences."""
    n = sum(map(sum, confusion))
    agree = sum(confusion[i][i] for i in range(len(confusion)))
    pair_coincidence = [[confusion[i][j] + confusion[j][i] for j in range(len(labels))] for i in range(len(labels))]
    metric = "ordinal" if ordinal else "nominal"
    return {
        "labels": labels,
        "confusion": confusion,
        "coincidence": coincidence,
        "items": n,
        "percent": agree / n if n else None,
        "kappa": stats.weighted_kappa(confusion, "nominal"),
        "weighted_kappa": stats.weighted_kappa(confusion, "linear") if ordinal else None,
        "alpha": stats.alpha_from_coincidences(labels, pair_coincidence, metric),
        "alpha_all": stats.alpha_from_coincidences(labels, coincidence, metric),
        "ordinal": ordinal,
    }


def _all_judges(topic_units, judges, labels):
    """(labels, coincidence matrix) over every judge of the topic's units: the same for each comparison."""
    return stats.coincidences([[unit.get(j) for j in judges] for unit in topic_units.values()], labels)


def _topic_stats(topic_units, first, second, everyone, ordinal):
    labels, coincidence = everyone
    # every label of a pair is a label of some judge, so the confusion matrix takes the coincidences' labels
    labels, confusion = stats.confusion(_pairs(topic_units, first, second), labels)
    return summary(labels, confusion, coincidence, ordinal)


def _serialised(evaluation_id):
    """One refresh of an evaluation at a time (the worker's step and a set's load may overlap): a transaction-long
    advisory lock on PostgreSQL, so two refreshes never both delete and re-insert the same rows. Nothing else
    waits on it. (SQLite, the demo: one writer at a time anyway.)"""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [(29 << 40) | int(evaluation_id)])


def refresh(evaluation_id, topic_ids=None):
    """Recompute the stored agreement of the given topics (None: every topic) and the evaluation's totals.
    Returns the number of topic rows written."""
    with transaction.atomic():
        _serialised(evaluation_id)
        return _refresh(evaluation_id, topic_ids)


def _refresh(evaluation_id, topic_ids):
    evaluation = Evaluation.objects.get(pk=evaluation_id)
    scales = _scales(evaluation)
    set_ids = list(JudgmentSet.objects.filter(evaluation_id=evaluation_id).values_list("id", flat=True))
    if not scales:
        return 0
    whole = topic_ids is None
    if whole:
        topic_ids = set(Topic.objects.filter(evaluation=evaluation).values_list("id", flat=True))
    topic_ids = set(topic_ids)
    now = timezone.now()
    by_kind, judged = all_units(scales, topic_ids, set_ids)
    written = []
    judges = [PRIMARY, SECOND, *set_ids]
    for kind, scale in scales.items():
        labels = _labels(scale)
        for tid, topic_units in by_kind.get(kind, {}).items():
            everyone = _all_judges(topic_units, judges, labels)
            human = _topic_stats(topic_units, PRIMARY, SECOND, everyone, scale.ordinal)
            human["judged"] = judged.get(tid)
            written.append(
                Agreement(
                    evaluation=evaluation, judgment_set_id=None, topic_id=tid, kind=kind, stats=human, computed_at=now
                )
            )
            for set_id in set_ids:
                row = _topic_stats(topic_units, "official", set_id, everyone, scale.ordinal)
                written.append(
                    Agreement(
                        evaluation=evaluation,
                        judgment_set_id=set_id,
                        topic_id=tid,
                        kind=kind,
                        stats=row,
                        computed_at=now,
                    )
                )
    replaced = Agreement.objects.filter(evaluation=evaluation).filter(Q(topic_id__in=topic_ids) | Q(topic__isnull=True))
    if whole:
        summed = _sums((r.judgment_set_id, r.kind, r.stats) for r in written)
    else:
        # The totals move by what the topics' rows change: coincidences and confusions of disjoint units add up.
        old, totals = [], []
        for set_id, kind, topic_id, row_stats in replaced.values_list("judgment_set_id", "kind", "topic_id", "stats"):
            (totals if topic_id is None else old).append((set_id, kind, row_stats))
        summed = _sums([*totals, *((r.judgment_set_id, r.kind, r.stats) for r in written)], minus=old)
    replaced.delete()
    Agreement.objects.bulk_create(
        written
        + [
            Agreement(
                evaluation=evaluation,
                judgment_set_id=set_id,
                topic=None,
                kind=kind,
                stats=summary(labels, confusion, coincidence, scales[kind].ordinal),
                computed_at=now,
            )
            for (set_id, kind), (labels, confusion, coincidence) in summed.items()
            if kind in scales and (set_id is None or set_id in set_ids)
        ],
        batch_size=1000,
    )
    return len(written)


def _sums(rows, minus=()):
    """{(set id, kind): (labels, confusion, coincidence)}: the matrices of `rows` added up, those of `minus`
    taken away, over the union of their labels (in order of first appearance)."""
    found = {}
    for sign, group in ((1, rows), (-1, minus)):
        for set_id, kind, row_stats in group:
            key = (set_id, kind)
            labels, confusion, coincidence = found.get(key, ([], [], []))
            labels = list(labels) + [x for x in row_stats["labels"] if x not in labels]
            width = len(labels)
            out = []
            for have, add in ((confusion, row_stats["confusion"]), (coincidence, row_stats["coincidence"])):
                m = [[0] * width for _ in range(width)]
                for i, row in enumerate(have):
                    for j, v in enumerate(row):
                        m[i][j] += v
                at = [labels.index(x) for x in row_stats["labels"]]
                for i, row in enumerate(add):
                    for j, v in enumerate(row):
                        m[at[i]][at[j]] += sign * v
                out.append(m)
            found[key] = (labels, out[0], out[1])
    return found


def fingerprints(evaluation_id, kinds, topic_ids=None):
    """{topic id: [judgments, sum of versions, largest id, latest update]} of the topics' judgments of `kinds`:
    every save (which bumps the version), new judgment or deletion changes it, and a save not yet committed is
    simply seen by a later pass (the latest update alone would not do: a save's updated_at is its transaction's
    start, which can precede a refresh it commits after)."""
    rows = Judgment.objects.filter(evaluation_id=evaluation_id, kind__in=list(kinds))
    if topic_ids is not None:
        rows = rows.filter(topic_id__in=list(topic_ids))
    found = (
        rows.order_by().values("topic_id").annotate(n=Count("id"), v=Sum("version"), m=Max("id"), u=Max("updated_at"))
    )
    return {r["topic_id"]: [r["n"], r["v"], r["m"], r["u"].isoformat()] for r in found}


def changed_topics(evaluation_id, kinds):
    """The topics whose judgments of `kinds` changed since their stored agreement was computed (or that have
    none yet, or no judgment left)."""
    stored = dict(
        Agreement.objects.filter(
            evaluation_id=evaluation_id, topic__isnull=False, judgment_set__isnull=True
        ).values_list("topic_id", "stats__judged")
    )
    now = fingerprints(evaluation_id, kinds)
    # (a topic whose judgments were all deleted has a stored row and no fingerprint: changed too)
    return {tid for tid in now.keys() | stored.keys() if stored.get(tid) != now.get(tid)}


def worth_comparing(evaluation_id):
    """Anything to compare: a judgment set, or a second assessor's judgment."""
    return (
        JudgmentSet.objects.filter(evaluation_id=evaluation_id).exists()
        or Judgment.objects.filter(evaluation_id=evaluation_id, role=Judgment.SECONDARY).exists()
    )


def refresh_changed(evaluation_id):
    """After rescoring passes (scoring.agreement_schedule's task) or a full rescoring: the agreement of every topic
    whose judgments changed since it was computed (the fingerprints), when there is anything to compare; the totals
    move by what those topics' rows change. A failure is logged and left (the scores are committed; the next
    refresh finds the same topics changed)."""
    try:
        if not worth_comparing(evaluation_id):
            return 0
        kinds = judged_kinds(_scales(Evaluation.objects.get(pk=evaluation_id)))
        topics = changed_topics(evaluation_id, kinds)
        return refresh(evaluation_id, topics) if topics else 0
    except Exception:
        log.warning("agreement of evaluation %s not refreshed", evaluation_id, exc_info=True)
        return 0


def as_of(evaluation):
    return Agreement.objects.filter(evaluation=evaluation, topic__isnull=True).aggregate(at=Max("computed_at"))["at"]


def disagreements(evaluation, judgment_set, kind, topic=None, cell=None):
    """The units of one comparison whose two labels differ (or, with cell=(a, b), whose labels are exactly a
    and b), as dicts {topic, item, nugget, first, second}, for the page one click from the confusion matrix."""
    scale = _scales(evaluation).get(kind)
    if scale is None:
        return []
    topic_ids = (
        [topic.id]
        if topic is not None
        else list(Topic.objects.filter(evaluation=evaluation).values_list("id", flat=True))
    )
    set_ids = [judgment_set.id] if judgment_set is not None else []
    first, second = ("official", judgment_set.id) if judgment_set is not None else (PRIMARY, SECOND)
    found = []
    for tid, topic_units in units(evaluation, kind, scale, topic_ids, set_ids).items():
        for unit, judges in topic_units.items():
            if first not in judges or second not in judges:
                continue
            a, b = judges[first], judges[second]
            if (cell is None and a != b) or (cell is not None and (a, b) == tuple(cell)):
                if scale.key == NUGGETS:
                    item, nugget = unit
                elif scale.judged_kind(kind) in VOTE_KINDS:
                    item, nugget = None, unit
                else:
                    item, nugget = unit, None
                found.append({"topic_id": tid, "item_id": item, "nugget_id": nugget, "first": a, "second": b})
    return found


ASSESSORS = "assessors"  # the name the human comparison (second against primary) goes by in tables and the API
NUMBERS = ("items", "percent", "kappa", "weighted_kappa", "alpha", "alpha_all")


def table(evaluation, judgment_set=..., per_topic=False, set_ids=None):
    """The stored agreement as rows {set, set_id, kind, topic, items, percent, kappa, weighted_kappa, alpha,
    alpha_all, labels, confusion, computed_at}: the evaluation's totals (per_topic: each topic's rows too), of
    every comparison, or of one (`judgment_set`: a JudgmentSet, or None for the assessors' comparison), or of
    the sets `set_ids` only (a team's)."""
    rows = Agreement.objects.filter(evaluation=evaluation).select_related("judgment_set", "topic")
    if judgment_set is not ...:
        rows = rows.filter(judgment_set=judgment_set)
    if set_ids is not None:
        rows = rows.filter(judgment_set_id__in=list(set_ids))
    if not per_topic:
        rows = rows.filter(topic__isnull=True)
    found = []
    for a in rows.order_by("judgment_set__name", "kind", "topic__position", "topic__ident"):
        found.append(
            {
                "set": a.judgment_set.name if a.judgment_set_id else ASSESSORS,
                "set_id": a.judgment_set_id,
                "kind": a.kind,
                "topic": a.topic.ident if a.topic_id else "all",
                **{k: a.stats.get(k) for k in NUMBERS},
                "labels": a.stats.get("labels"),
                "confusion": a.stats.get("confusion"),
                "computed_at": a.computed_at,
            }
        )
    return found
