"""BOLT IR phase 2's scorer, reading official judgments and calling the pure measures (tracks.bolt.measures, whose
MEASURES the track declares). Registered in tracks/bolt/plugin.py.

Stored per topic (scope "series": a BOLT topic has no questions under it) and citation run: char_precision,
char_recall, char_f, char_ap and "score" (= char_f), with the character counts in `detail`. Per run: the means
over topics with R > 0 (char_map is the mean AP; "score" is the mean F), "judged" (share of the run's judged
citations, near-duplicates excepted) and the topics left out. Grouping runs get per topic the mean over their
views of view_precision, group_precision and group_skew (each citation's precision from its official judgment,
a near-duplicate's from its leader's), and the run-level means of those.
"""

from collections import defaultdict

from assess.official import official_values
from pooling.models import PoolItem, Run, RunEntry, Topic
from scoring.models import Score
from scoring.registry import ScoreBatch, ScoreRow
from tracks.bolt import measures
from tracks.bolt.formats.citations import citation_key, split_key
from tracks.bolt.near_duplicates import leader_judgment

CHAR_MEASURES = ("char_precision", "char_recall", "char_f", "char_ap")
GROUP_MEASURES = ("view_precision", "group_precision", "group_skew")


def _relevant_of_item(item_data, judgment, length):
    if judgment is not None:
        return measures.relevant_chars(length, judgment)
    if "rel" in item_data:  # a citation from the topic file, judged by LDC there
        return measures.relevant_chars(length, item_data)
    return 0


def score_topics(topic_ids, runs, pool=None):
    """{(run id, topic id): topic_scores} for citation runs, and {(run id, topic id): (judged, judgeable)}.
    `pool`, when given, receives {topic id: [judged citations, citations]} of the topics' pools."""
    official = official_values(topic_ids, "citation")
    items = {}
    total = defaultdict(int)
    pool = {} if pool is None else pool
    for tid in topic_ids:
        pool[tid] = [0, 0]
    for pk, tid, key, text, data in PoolItem.objects.filter(topic_id__in=topic_ids).values_list(
        "id", "topic_id", "key", "text", "data"
    ):
        if data.get("bolt") == "view":
            continue
        items[(tid, key)] = pk
        total[tid] += _relevant_of_item(data, official.get(pk), len(text))
        pool[tid][0] += pk in official or "rel" in data
        pool[tid][1] += 1
    cites = defaultdict(list)
    for run_id, tid, docid, text, data in RunEntry.objects.filter(topic_id__in=topic_ids, run_id__in=runs).values_list(
        "run_id", "topic_id", "docid", "text", "data"
    ):
        cites[(run_id, tid)].append((data.get("rank", 0), docid, text, data))
    out, judged = {}, {}
    for run_id in runs:
        for tid in topic_ids:
            ranked = sorted(cites.get((run_id, tid), []), key=lambda c: c[0])
            walk, n_judged, n_judgeable = [], 0, 0
            for _, thread, passage, data in ranked:
                key = citation_key(thread, data["post"], data["offset"], data["length"], passage)
                judgment = official.get(items.get((tid, key)))
                false_alarm = bool(data.get("near_dup"))
                if not false_alarm:
                    n_judgeable += 1
                    n_judged += judgment is not None
                walk.append((len(passage), measures.relevant_spans(len(passage), judgment, false_alarm)))
            out[(run_id, tid)] = measures.topic_scores(walk, total[tid])
            judged[(run_id, tid)] = (n_judged, n_judgeable)
    return out, judged


def _leaders_by_key(topic_ids, grouping_runs):
    """{(grouping run tag, topic id, citation key): leader's key} for the near-duplicates of the citation runs the
    groupings were made from."""
    source = {tag: (data or {}).get("citation_run") for tag, data in grouping_runs}
    entries = defaultdict(dict)  # (citation run tag, topic id) -> {line: (key, data)}
    for tag, tid, line, thread, passage, data in RunEntry.objects.filter(
        topic_id__in=topic_ids, run__tag__in=[t for t in source.values() if t]
    ).values_list("run__tag", "topic_id", "line_no", "docid", "text", "data"):
        key = citation_key(thread, data["post"], data["offset"], data["length"], passage)
        entries[(tag, tid)][line] = (key, data)
    out = {}
    for grouping, cited in source.items():
        for (tag, tid), lines in entries.items():
            if tag != cited:
                continue
            for key, data in lines.values():
                if data.get("near_dup") and data.get("leader") in lines:
                    out[(grouping, tid, key)] = lines[data["leader"]][0]
    return out


def view_groups(topic_ids, runs):
    """{(run id, topic id): [(view number, groups)]} for grouping runs: each view's groups as measures.view_scores
    takes them (misc, relevant, scope, members, cites_precision), with "number", "label" and "citations" too."""
    from tracks.bolt.judging import grouping_views_of, groups_of

    official_view = official_values(topic_ids, "grouping")
    official_cite = official_values(topic_ids, "citation")
    item_ids = {
        (tid, key): pk
        for pk, tid, key in PoolItem.objects.filter(topic_id__in=topic_ids).values_list("id", "topic_id", "key")
    }
    tags = dict(Run.objects.filter(pk__in=runs).values_list("tag", "pk"))
    leader_of = _leaders_by_key(topic_ids, Run.objects.filter(pk__in=runs).values_list("tag", "data"))
    per = defaultdict(list)
    view_items = {
        (i.topic_id, i.data.get("run"), i.data.get("view")): i.pk
        for i in PoolItem.objects.filter(topic_id__in=topic_ids, data__bolt="view")
    }
    for tid, tag, view in grouping_views_of(topic_ids):
        run_id = tags.get(tag)
        if run_id is None:
            continue
        value = official_view.get(view_items.get((tid, tag, view))) or {}
        groups = []
        for g in groups_of(tid, tag, view):
            judged = (value.get("groups") or {}).get(g["number"], {})
            members = judged.get("members") or {}
            precision = []
            for c in g["citations"]:
                # A near-duplicate takes its class leader's judgment (the seed: "equivalently relevant"), relevant
                # parts carried to its own text.
                key = leader_of.get((tag, tid, c["key"]), c["key"])
                j = official_cite.get(item_ids.get((tid, key)))
                if key != c["key"]:
                    j = leader_judgment(split_key(key)["passage"], c["passage"], j)
                precision.append(measures.citation_precision(len(c["passage"]), j))
            groups.append(
                {
                    "number": g["number"],
                    "label": g["label"],
                    "citations": len(g["citations"]),
                    "misc": g["misc"],
                    "relevant": judged.get("relevant"),
                    "scope": judged.get("scope"),
                    "members": [members.get(c["key"]) for c in g["citations"]],
                    "cites_precision": precision,
                }
            )
        per[(run_id, tid)].append((view, groups))
    return per


def score_groupings(topic_ids, runs):
    """{(run id, topic id): {measure: mean over the topic's views}} for grouping runs."""
    per = {
        key: [measures.view_scores(groups) for _, groups in views]
        for key, views in view_groups(topic_ids, runs).items()
    }
    return {
        key: {m: measures.mean_defined([v[m] for v in views]) for m in GROUP_MEASURES} for key, views in per.items()
    }


def score_bolt(evaluation, topic_ids):
    """The registered scorer: recompute the stale topics (None: all) for every run, then the runs' means."""
    all_topics = list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).values_list("id", flat=True))
    tids = all_topics if topic_ids is None else [t for t in all_topics if t in set(topic_ids)]
    runs = list(Run.objects.filter(evaluation=evaluation).values_list("id", "data"))
    cite_runs = [r for r, d in runs if (d or {}).get("subtask", "citations") != "groups"]
    group_runs = [r for r, d in runs if (d or {}).get("subtask") == "groups"]
    rows = []
    pool = {}
    scores, judged = score_topics(tids, cite_runs, pool)
    for (run_id, tid), s in scores.items():
        detail = {k: s[k] for k in ("chars_returned", "chars_relevant_returned", "chars_relevant_total")}
        detail["judged"], detail["judgeable"] = judged[(run_id, tid)]
        detail["pool"], detail["unjudged"] = pool[tid], pool[tid][0] < pool[tid][1]
        for m in CHAR_MEASURES:
            rows.append(ScoreRow(run_id, Score.SERIES, tid, m, s[m], detail))
        rows.append(ScoreRow(run_id, Score.SERIES, tid, "score", s["char_f"], detail))
    groups = score_groupings(tids, group_runs)
    for (run_id, tid), s in groups.items():
        for m in GROUP_MEASURES:
            rows.append(ScoreRow(run_id, Score.SERIES, tid, m, s[m]))
        rows.append(ScoreRow(run_id, Score.SERIES, tid, "score", s["view_precision"]))

    # Run-level means use the stored rows of the topics not recomputed now.
    per_run = defaultdict(dict)
    for (run_id, tid), s in scores.items():
        per_run[run_id][tid] = dict(s, judged=judged[(run_id, tid)], pool=pool[tid])
    stale = set(tids)
    if topic_ids is not None:
        stored = defaultdict(dict)
        for run_id, tid, measure, value, detail in (
            Score.objects.filter(
                run__evaluation=evaluation, scope=Score.SERIES, run_id__in=cite_runs, measure__in=CHAR_MEASURES
            )
            .exclude(topic_id__in=stale)
            .values_list("run_id", "topic_id", "measure", "value", "detail")
        ):
            entry = stored[(run_id, tid)]
            entry[measure] = value
            entry["chars_relevant_total"] = detail.get("chars_relevant_total", 0)
            entry["judged"] = (detail.get("judged", 0), detail.get("judgeable", 0))
            entry["pool"] = detail.get("pool", [0, 0])
        for (run_id, tid), entry in stored.items():
            per_run[run_id][tid] = entry
    idents = dict(Topic.objects.filter(pk__in=all_topics).values_list("id", "ident"))
    for run_id in cite_runs:
        topics = per_run.get(run_id, {})
        means, left_out = measures.run_means(topics)
        n_judged = sum(s["judged"][0] for s in topics.values())
        n_all = sum(s["judged"][1] for s in topics.values())
        # how far judging has got over the topics' pools (the same for every run), for reports
        detail = {
            "left_out": [idents.get(t, t) for t in left_out],
            "pool_items": sum(s["pool"][1] for s in topics.values()),
            "pool_judged": sum(s["pool"][0] for s in topics.values()),
            "questions": len(topics),
            "questions_judged": sum(1 for s in topics.values() if s["pool"][0] >= s["pool"][1]),
            "unjudged_questions": sorted(idents.get(t, t) for t, s in topics.items() if s["pool"][0] < s["pool"][1]),
        }
        for m in ("char_precision", "char_recall", "char_f", "char_map"):
            rows.append(ScoreRow(run_id, Score.RUN, None, m, means[m], detail))
        rows.append(ScoreRow(run_id, Score.RUN, None, "score", means["char_f"], detail))
        rows.append(
            ScoreRow(
                run_id,
                Score.RUN,
                None,
                "judged",
                n_judged / n_all if n_all else None,
                {"judged": n_judged, "citations": n_all},
            )
        )
    group_topic = defaultdict(dict)
    for (run_id, tid), s in groups.items():
        group_topic[run_id][tid] = s
    if topic_ids is not None:
        for run_id, tid, measure, value in (
            Score.objects.filter(
                run__evaluation=evaluation, scope=Score.SERIES, run_id__in=group_runs, measure__in=GROUP_MEASURES
            )
            .exclude(topic_id__in=stale)
            .values_list("run_id", "topic_id", "measure", "value")
        ):
            group_topic[run_id].setdefault(tid, {})[measure] = value
    for run_id in group_runs:
        topics = group_topic.get(run_id, {})
        for m in GROUP_MEASURES:
            rows.append(
                ScoreRow(run_id, Score.RUN, None, m, measures.mean_defined([s.get(m) for s in topics.values()]))
            )
        rows.append(
            ScoreRow(
                run_id,
                Score.RUN,
                None,
                "score",
                measures.mean_defined([s.get("view_precision") for s in topics.values()]),
            )
        )
    return ScoreBatch(rows=rows, series_ids=set(tids), question_ids=set(), run_level=True, full=topic_ids is None)
