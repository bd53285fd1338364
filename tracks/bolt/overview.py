"""What the organizer's BOLT pages show beyond judging: each citation run's near-duplicate classes, and the grouping
measures of each grouping run per topic, view and group. Read from the stored run lines, official judgments and
Score rows; the per-view and per-group values are computed as the scorer computes them (tracks.bolt.scorer)."""

from collections import defaultdict

from django.db.models import Count

from assess.official import official_values
from pooling.models import PoolItem, RunEntry, Topic
from scoring.models import Score
from tracks.bolt import measures
from tracks.bolt.formats.citations import citation_key
from tracks.bolt.judging import bolt_topics, runs_of
from tracks.bolt.near_duplicates import leader_judgment
from tracks.bolt.scorer import GROUP_MEASURES, view_groups


def near_duplicate_counts(evaluation):
    """[(run, citations, near-duplicates, classes with near-duplicates)] of every citation run."""
    runs = runs_of(evaluation)
    lines = dict(
        RunEntry.objects.filter(run__in=runs).values("run_id").annotate(n=Count("id")).values_list("run_id", "n")
    )
    dups, classes = defaultdict(int), defaultdict(set)
    for run_id, topic_id, data in RunEntry.objects.filter(run__in=runs, data__near_dup=True).values_list(
        "run_id", "topic_id", "data"
    ):
        dups[run_id] += 1
        classes[run_id].add((topic_id, data.get("leader")))
    return [(run, lines.get(run.pk, 0), dups[run.pk], len(classes[run.pk])) for run in runs]


def _citation(entry, judgment, pool_id=""):
    docid, line, text, data = entry
    return {
        "line": line,
        "rank": data.get("rank"),
        "thread": docid,
        "post": data.get("post"),
        "offset": data.get("offset"),
        "length": data.get("length"),
        "passage": text,
        "pool_id": pool_id,
        "rel": (judgment or {}).get("rel"),
        "relspans": (judgment or {}).get("relspans") or [],
    }


def near_duplicate_classes(run):
    """[(topic, [{"leader": citation, "members": [citation]}])] of one citation run: every class with a
    near-duplicate, in rank order. A leader shows its official judgment and pool id; a member the judgment it
    takes from its leader (relevant parts carried to its own text), which counts it as returned characters with
    none relevant all the same (SPEC-NOTES, BOLT)."""
    topics = {t.pk: t for t in bolt_topics(run.evaluation)}
    entries = {}
    members = defaultdict(list)
    for topic_id, line, docid, text, data in (
        RunEntry.objects.filter(run=run)
        .order_by("topic_id", "line_no")
        .values_list("topic_id", "line_no", "docid", "text", "data")
    ):
        entries[(topic_id, line)] = (docid, line, text, data)
        if data.get("near_dup") and data.get("leader") is not None:
            members[(topic_id, data["leader"])].append(line)
    items = {
        (tid, key): (pk, pool_id)
        for pk, tid, key, pool_id in PoolItem.objects.filter(topic_id__in={t for t, _ in members}).values_list(
            "id", "topic_id", "key", "pool_id"
        )
    }
    official = official_values({t for t, _ in members}, "citation")
    out = defaultdict(list)
    for (topic_id, leader_line), lines in sorted(members.items()):
        leader = entries.get((topic_id, leader_line))
        if leader is None:
            continue
        docid, _, text, data = leader
        pk, pool_id = items.get(
            (topic_id, citation_key(docid, data["post"], data["offset"], data["length"], text)), (None, "")
        )
        judgment = official.get(pk)
        out[topic_id].append(
            {
                "leader": _citation(leader, judgment, pool_id),
                "members": [
                    _citation(entries[(topic_id, n)], leader_judgment(text, entries[(topic_id, n)][2], judgment))
                    for n in lines
                ],
            }
        )
    for classes in out.values():
        classes.sort(key=lambda c: c["leader"]["rank"] or 0)
    return [(topics[t], out[t]) for t in topics if t in out]


def _stored(evaluation, runs, scope):
    """{(run id, topic id or None): {measure: value}} of the grouping measures stored for the runs."""
    out = defaultdict(dict)
    for run_id, topic_id, measure, value in Score.objects.filter(
        run__in=runs, scope=scope, measure__in=GROUP_MEASURES
    ).values_list("run_id", "topic_id", "measure", "value"):
        out[(run_id, topic_id)][measure] = value
    return out


def grouping_overview(evaluation, runs=None):
    """[{"run", "scores": {measure: value}, "topics": [{"topic", "scores", "views": [{"view", "judged", "scores",
    "groups": [group with its own "scores"]}]}]}] for the grouping runs (all of the evaluation's, or `runs`).

    Run and topic values are the stored scores (what reports and the board show); a view's and a group's are
    computed now from the official judgments, as the scorer computes them (a group alone through
    measures.view_scores: its own cohesion and skew, and whether it is relevant and well scoped)."""
    runs = runs_of(evaluation, "groups") if runs is None else runs
    topics = {t.pk: t for t in Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position")}
    per_run = _stored(evaluation, runs, Score.RUN)
    per_topic = _stored(evaluation, runs, Score.SERIES)
    views = view_groups(list(topics), [r.pk for r in runs])
    out = []
    for run in runs:
        rows = []
        for tid, topic in topics.items():
            found = views.get((run.pk, tid), [])
            if not found and (run.pk, tid) not in per_topic:
                continue
            rows.append(
                {
                    "topic": topic,
                    "scores": per_topic.get((run.pk, tid), {}),
                    "views": [
                        {
                            "view": view,
                            "judged": any(g["relevant"] is not None for g in groups),
                            "scores": measures.view_scores(groups),
                            "groups": [g | {"scores": measures.view_scores([g])} for g in groups],
                        }
                        for view, groups in found
                    ],
                }
            )
        out.append({"run": run, "scores": per_run.get((run.pk, None), {}), "topics": rows})
    return out
