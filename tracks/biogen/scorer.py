"""BioGen's scorer: the official judgments (assess.official) of each run's answers, sentences and citations,
through the pure measures (tracks.biogen.measures). Registered in tracks/biogen/plugin.py.

Document recall depends on every run's relevant PMIDs, and three measures are shares over all of a run's
sentences or citations, so every save rescores the whole evaluation (65 topics × 50 runs is small). Stored per
topic (scope "series": a BioGen topic has no questions under it) and run: each measure over that one answer, and
"score" (= accuracy); per run: the measures over all its answers, "score" and "judged" (share of the run's
answers, sentences and citations that carry an official judgment).
"""

from collections import defaultdict

from assess.official import official_values
from pooling.formats.base import ParsedEntry
from pooling.models import PoolItem, Run, RunEntry, Topic
from scoring.models import Score
from scoring.registry import ScoreBatch, ScoreRow
from tracks.biogen import measures
from tracks.biogen.formats.runs import pool_key
from tracks.biogen.labels import KIND

MEASURES = [m.name for m in measures.MEASURES]


def answers_of(evaluation, topic_ids, run_ids):
    """{(run id, topic id): Answer} with the official labels, and {(run id, topic id): (judged, judgeable)}."""
    items = {
        (tid, key): pk
        for pk, tid, key in PoolItem.objects.filter(topic_id__in=topic_ids).values_list("id", "topic_id", "key")
    }
    official = official_values(topic_ids, KIND)

    def label(tid, entry):
        value = official.get(items.get((tid, pool_key(entry))))
        return value.get("label") if value else None

    entries = defaultdict(list)
    for run_id, tid, line, docid, text, data in (
        RunEntry.objects.filter(run_id__in=run_ids, topic_id__in=topic_ids)
        .order_by("id")
        .values_list("run_id", "topic_id", "line_no", "docid", "text", "data")
    ):
        entries[(run_id, tid)].append(ParsedEntry("", line, docid=docid, text=text, data=data))
    answers, judged = {}, {}
    for run_id in run_ids:
        for tid in topic_ids:
            rows = entries.get((run_id, tid))
            if not rows:
                answers[(run_id, tid)], judged[(run_id, tid)] = measures.Answer(False, []), (0, 0)
                continue
            answer = measures.Answer()
            by_n = {}
            labels = []
            for e in rows:
                kind = e.data.get("kind")
                found = label(tid, e)
                labels.append(found)
                if kind == "answer":
                    answer.accurate = None if found is None else found == "accurate"
                elif kind == "sentence":
                    by_n[e.data["n"]] = measures.Sentence(found, {})
                    answer.sentences.append(by_n[e.data["n"]])
                elif kind == "citation" and e.data.get("n") in by_n:
                    by_n[e.data["n"]].citations[e.docid] = found
            answers[(run_id, tid)] = answer
            judged[(run_id, tid)] = (sum(1 for x in labels if x is not None), len(labels))
    return answers, judged


def score(evaluation, topic_ids=None):
    """The registered scorer: every topic of every run, whatever went stale (see the module's note)."""
    topics = list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))
    tids = [t.pk for t in topics]
    run_ids = list(Run.objects.filter(evaluation=evaluation).values_list("id", flat=True))
    answers, judged = answers_of(evaluation, tids, run_ids)
    union = defaultdict(set)  # topic id -> relevant PMIDs of every run
    for (_run_id, tid), answer in answers.items():
        union[tid] |= measures.relevant_pmids(answer)
    pool = {tid: [0, 0] for tid in tids}
    official = official_values(tids, KIND)
    for pk, tid in PoolItem.objects.filter(topic_id__in=tids).values_list("id", "topic_id"):
        pool[tid][0] += pk in official
        pool[tid][1] += 1
    rows = []
    for run_id in run_ids:
        mine = [answers[(run_id, tid)] for tid in tids]
        for tid, answer in zip(tids, mine):
            detail = {"judged": judged[(run_id, tid)][0], "judgeable": judged[(run_id, tid)][1]}
            values = _values([answer], [union[tid]])
            for name, value in values.items():
                rows.append(ScoreRow(run_id, Score.SERIES, tid, name, value, detail))
            rows.append(ScoreRow(run_id, Score.SERIES, tid, "score", values["accuracy"], detail))
        values = _values(mine, [union[tid] for tid in tids])
        idents = {t.pk: t.ident for t in topics}
        detail = {
            "pool_items": sum(p[1] for p in pool.values()),
            "pool_judged": sum(p[0] for p in pool.values()),
            "questions": len(tids),
            "questions_judged": sum(1 for p in pool.values() if p[0] >= p[1]),
            "unjudged_questions": [idents[t] for t, p in pool.items() if p[0] < p[1]],
        }
        for name, value in values.items():
            rows.append(ScoreRow(run_id, Score.RUN, None, name, value, detail))
        rows.append(ScoreRow(run_id, Score.RUN, None, "score", values["accuracy"], detail))
        n_judged = sum(judged[(run_id, t)][0] for t in tids)
        n_all = sum(judged[(run_id, t)][1] for t in tids)
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


def _values(answers, unions):
    out = {}
    for m in measures.MEASURES:
        out[m.name] = m.function(answers, unions) if m.name == "document_recall" else m.function(answers)
    return out
