"""TREC RAG's scorer: the official judgments (assess.official) of each run's answers, (sentence, segment) pairs
and cited or ranked segments, through the pure measures (tracks.rag.measures). Registered in plugin.py.

Per topic (scope "series": a RAG topic has no questions under it) and run, each measure of that one answer or
ranking; per run the mean over the topics scored. Answer runs get the nugget and support measures, retrieval runs
nDCG@20. A topic the answer run did not answer scores 0; an answer whose nuggets are not all assigned (or a
topic without nuggets yet) is left out of the nugget means until it is, an unjudged (sentence, segment) pair
out of the support measures. "score" is All for an answer run, nDCG@20 for a retrieval run; "judged" the share
of the run's pooled items that carry an official judgment. Nuggets and relevance are shared by every run of a
topic, so every save rescores the whole evaluation (300 topics × 50 runs stays small).
"""

from collections import defaultdict

from assess.models import Nugget
from assess.official import official_values
from pooling.formats.base import ParsedEntry
from pooling.models import PoolItem, Run, RunEntry, Topic
from scoring.models import Score
from scoring.registry import ScoreBatch, ScoreRow
from tracks.rag import measures
from tracks.rag.formats.runs import pool_key
from tracks.rag.labels import IMPORTANCE_KIND, KIND

ANSWER_MEASURES = [m.name for m in measures.NUGGET_MEASURES + measures.SUPPORT_MEASURES]
RETRIEVAL_MEASURES = [m.name for m in measures.RELEVANCE_MEASURES]


def topic_nuggets(tids):
    """{topic id: [(nugget id as text, importance)]} in list order (an importance not voted counts as okay)."""
    votes = official_values(tids, IMPORTANCE_KIND)
    out = defaultdict(list)
    for pk, tid in Nugget.objects.filter(topic_id__in=tids).order_by("position", "id").values_list("id", "topic_id"):
        out[tid].append((str(pk), (votes.get(pk) or {}).get("vote") or "okay"))
    return out


def assigned(nuggets, value):
    """[(importance, assignment)] of an answer, None unless every nugget of its topic is assigned."""
    if not nuggets or value is None:
        return None
    held = value.get("nuggets") or {}
    if any(nid not in held for nid, _ in nuggets):
        return None
    return [(importance, held[nid]) for nid, importance in nuggets]


def answer_values(rows, label_of, nuggets):
    """The measures of one answer run's rows for one topic; (values, judged, judgeable)."""
    if not rows:  # no answer: nothing supported, nothing cited
        none = [(imp, "not_support") for _, imp in nuggets] if nuggets else None
        values = {m.name: m.function(none) for m in measures.NUGGET_MEASURES}
        values |= {m.name: 0.0 for m in measures.SUPPORT_MEASURES}
        return values, 0, 0
    value_of_answer, sentences, by_n, labels = None, [], {}, []
    for e in rows:
        kind = e.data.get("kind")
        if kind == "answer":
            value_of_answer = label_of(e)
            labels.append(value_of_answer)
        elif kind == "sentence":
            by_n[e.data["n"]] = {}
            sentences.append(by_n[e.data["n"]])
        elif kind == "support" and e.data.get("n") in by_n:
            value = label_of(e)
            by_n[e.data["n"]][e.docid] = value.get("label") if value else None
            labels.append(value)
        elif kind == "relevance":
            labels.append(label_of(e))
    answer = assigned(nuggets, value_of_answer)
    values = {m.name: m.function(answer) for m in measures.NUGGET_MEASURES}
    values |= {m.name: m.function(sentences) for m in measures.SUPPORT_MEASURES}
    return values, sum(1 for x in labels if x is not None), len(labels)


def retrieval_values(rows, label_of, grades):
    ranked = sorted((e for e in rows if e.data.get("kind") == "ranked"), key=lambda e: e.data.get("rank", 0))
    pooled = [label_of(e) for e in ranked if e.data.get("pooled")]
    return (
        {"ndcg_cut_20": measures.ndcg([e.docid for e in ranked], grades)},
        sum(1 for x in pooled if x is not None),
        len(pooled),
    )


def score(evaluation, topic_ids=None):
    """The registered scorer: every topic of every run, whatever went stale (see the module's note)."""
    topics = list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))
    tids = [t.pk for t in topics]
    runs = list(Run.objects.filter(evaluation=evaluation).values_list("id", "data"))
    items = {
        (tid, key): (pk, docid)
        for pk, tid, key, docid in PoolItem.objects.filter(topic_id__in=tids).values_list(
            "id", "topic_id", "key", "docid"
        )
    }
    official = official_values(tids, KIND)
    grades = defaultdict(dict)  # topic id -> {segment: grade}
    for (tid, key), (pk, docid) in items.items():
        if key.startswith("r:") and pk in official:
            grades[tid][docid] = int(official[pk]["label"])
    nuggets = topic_nuggets(tids)
    entries, ranked_runs = defaultdict(list), set()
    for run_id, tid, line, docid, text, data in (
        RunEntry.objects.filter(run_id__in=[r for r, _ in runs], topic_id__in=tids)
        .order_by("id")
        .values_list("run_id", "topic_id", "line_no", "docid", "text", "data")
    ):
        entries[(run_id, tid)].append(ParsedEntry("", line, docid=docid, text=text, data=data))
        if data.get("kind") == "ranked":
            ranked_runs.add(run_id)
    rows = []
    for run_id, data in runs:
        retrieval = (data or {}).get("shape") == "retrieval" or run_id in ranked_runs
        names = RETRIEVAL_MEASURES if retrieval else ANSWER_MEASURES
        per_topic, n_judged, n_all = [], 0, 0
        for tid in tids:

            def label_of(entry, tid=tid):
                key = pool_key(entry)
                found = items.get((tid, key)) if key else None
                return official.get(found[0]) if found else None

            mine = entries.get((run_id, tid), [])
            if retrieval:
                values, judged, judgeable = retrieval_values(mine, label_of, grades[tid])
            else:
                values, judged, judgeable = answer_values(mine, label_of, nuggets[tid])
            n_judged, n_all = n_judged + judged, n_all + judgeable
            detail = {"judged": judged, "judgeable": judgeable}
            for name in names:
                rows.append(ScoreRow(run_id, Score.SERIES, tid, name, values[name], detail))
            main = values[names[0]]
            rows.append(ScoreRow(run_id, Score.SERIES, tid, "score", main, detail))
            per_topic.append(values)
        unscored = [t.ident for t, v in zip(topics, per_topic) if v[names[0]] is None]
        detail = {"questions": len(tids), "questions_judged": len(tids) - len(unscored), "unjudged_questions": unscored}
        for name in names:
            rows.append(ScoreRow(run_id, Score.RUN, None, name, measures.mean(v[name] for v in per_topic), detail))
        rows.append(ScoreRow(run_id, Score.RUN, None, "score", measures.mean(v[names[0]] for v in per_topic), detail))
        rows.append(
            ScoreRow(
                run_id,
                Score.RUN,
                None,
                "judged",
                n_judged / n_all if n_all else None,
                {"judged": n_judged, "items": n_all},
            )
        )
    return ScoreBatch(rows=rows, series_ids=set(tids), question_ids=set(), run_level=True, full=True)
