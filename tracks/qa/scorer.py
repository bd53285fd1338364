"""The QA scorer (TAC 2008, TREC 2007 main task, ciQA): reads runs, pools and official judgments in bulk,
calls the pure measures, and returns Score rows for questions, their series and the runs.

Stored per question (measure "score"): the value its series uses, with the numbers behind it in `detail`.
Stored per series ("score"): the combined score, components per question type, counts, NIL counts and flags.
Stored per run: "score" (mean of series scores), one row per question type (mean over the run's questions of that
type), "nil_precision", "nil_recall" and "judged" (share of its judged instances).
How far each question's judging has got is stored once per question (ScoreBatch.pool_counts, scoring.pool_counts),
not in every run's rows: how many of its pool items are judged, its answers of judged runs that no pool item holds
yet ("unpooled"), whether it is unjudged, and whether its score is left out. Readers add them back where the
details showed them, with their sums per series and run and the lists of unjudged and left-out questions (reports
show them). Each is the same in every run, and changes with saves that change few runs' scores: kept in the rows, a
save rewrote every run's question, series and run rows, and a question fully judged did again (issue 32).
"""

import json
from collections import defaultdict

from django.db import connection
from django.db.models import Q, Value

from assess.models import Nugget
from assess.official import OFFICIAL, WithoutVoter, current_source, nugget_vote_sets, official_fields
from pooling.models import PoolItem, Run, RunEntry, Topic
from scoring.measures import combine
from scoring.models import Score
from scoring.registry import ScoreBatch, ScoreRow, memo
from tracks.qa import measures as qa
from tracks.qa import run_totals

FACTOID_TYPES = {"FACTOID"}
LIST_TYPES = {"LIST", "RIGIDLIST"}
NUGGET_TYPES = {"OTHER", "SQUISHYLIST", "CIQA"}


def correct_label(evaluation):
    labels = evaluation.track_spec.labels("instance")
    return "globally-correct" if "globally-correct" in labels else "correct"


def is_nil(docid, text=""):
    """NIL is the docid `NIL` with no answer string (tracks/qa/formats/runs.py); never pooled."""
    return docid.strip().upper() == "NIL"


# Every bulk read below clears the models' default ordering (.order_by()): RunEntry's and PoolItem's orderings
# join runs, teams, evaluations and topics and make PostgreSQL sort tens of thousands of rows on disk.


class Questions:
    """The evaluation's questions and which series each belongs to (a question without a parent is its own)."""

    def __init__(self, evaluation, topic_ids=None):
        """Every question of the evaluation, or (topic_ids given) those of the series the topics are or belong to:
        a live pass needs no other (reading them all made it grow with the evaluation)."""
        qtypes = set(evaluation.track_spec.question_types)
        self.info = {}
        topics = Topic.objects.filter(evaluation=evaluation).order_by()
        if topic_ids is not None:
            ids = list(topic_ids)
            series = {parent or tid for tid, parent in topics.filter(id__in=ids).values_list("id", "parent_id")}
            topics = topics.filter(Q(id__in=series) | Q(parent_id__in=series))
        # (not their data: only the factoid questions a pass recomputes need it, read then; a live pass of 50
        # series decoded 2,400 questions' JSON for the 50 it scored)
        for tid, parent_id, kind in topics.values_list("id", "parent_id", "kind"):
            if kind in qtypes or (not qtypes and kind != "series"):
                self.info[tid] = {"series": parent_id or tid, "kind": kind}
        self.series_questions = defaultdict(list)
        for tid, info in self.info.items():
            self.series_questions[info["series"]].append(tid)

    def expand(self, topic_ids):
        """Stale topics -> the questions to recompute (a stale series means all its questions)."""
        if topic_ids is None:
            return set(self.info)
        out = set()
        for tid in topic_ids:
            if tid in self.info:
                out.add(tid)
            out.update(self.series_questions.get(tid, ()))
        return out


def score_questions(evaluation, questions, qids, run_ids):
    """({(run id, question id): qa.QuestionScore} for every run and the given questions, {question id: (judged
    pool items, pool items, unpooled answers, left out)} of those scored: ScoreBatch.pool_counts)."""
    qids = list(qids)
    good = correct_label(evaluation)
    nugget_method = evaluation.setting("nugget_method", "pyramid")
    kinds = {q: questions.info[q]["kind"] for q in qids}
    # (the same for every reading of the judgments: read once per rankings refresh, scoring.registry.memo)
    entries, unpooled_of = memo(("qa.entries", frozenset(qids)), lambda: _entries(qids, kinds))
    items = defaultdict(list)  # q -> [(item id, docid, "")]
    pooled = memo(
        ("qa.items", frozenset(qids)),
        lambda: list(PoolItem.objects.filter(topic_id__in=qids).order_by().values_list("id", "topic_id", "docid")),
    )
    for item_id, tid, docid in pooled:
        items[tid].append((item_id, docid, ""))

    # Judgment values come as tuples of the fields used (assess.official.official_fields): label and class of an
    # instance, the nuggets (JSON text) a string holds, the vital/okay votes of a nugget.
    plain_qids = [q for q in qids if kinds[q] not in NUGGET_TYPES]
    instance = official_fields(plain_qids, "instance", "label", "answer_class") if plain_qids else {}
    nugget_qids = [q for q in qids if kinds[q] in NUGGET_TYPES]
    matches, official_votes, votes, nuggets = {}, {}, {}, defaultdict(list)
    if nugget_qids:

        def read_matches():
            return {
                item: json.loads(held) if held else ()
                for item, (held,) in official_fields(nugget_qids, "nugget_match", "nuggets").items()
            }

        source = current_source()  # the official matches are every voter-left-out reading's too (only votes vary)
        if source == OFFICIAL or isinstance(source, WithoutVoter):
            matches = memo(("qa.matches", frozenset(nugget_qids)), read_matches)
        else:
            matches = read_matches()
        official_votes, votes = nugget_vote_sets(nugget_qids)
        for nid, tid in Nugget.objects.filter(topic_id__in=nugget_qids).order_by().values_list("id", "topic_id"):
            nuggets[tid].append(nid)

    # Answers of judged runs that no pool item holds yet (a run loaded since the pools were built): until the
    # pools are rebuilt and those answers judged, judging of their question is not complete.
    priorities = set(evaluation.setting("judged_priorities") or [])
    judged_runs = Run.objects.filter(id__in=run_ids)
    if priorities:
        judged_runs = judged_runs.filter(priority__in=priorities)
    judged_runs = set(judged_runs.order_by().values_list("id", flat=True))
    unpooled = defaultdict(int)  # q -> such answers of judged runs
    for (run_id, q), n in unpooled_of.items():
        if run_id in judged_runs:
            unpooled[q] += n

    factoid_qids = frozenset(q for q in qids if kinds[q] in FACTOID_TYPES)
    data = memo(
        ("qa.data", factoid_qids),
        lambda: dict(Topic.objects.filter(id__in=factoid_qids).order_by().values_list("id", "data")),
    )
    out, pools = {}, {}
    for q in qids:
        kind = kinds[q]
        if kind in FACTOID_TYPES:
            per_run = _factoid(q, data.get(q) or {}, items[q], instance, good, run_ids, entries)
        elif kind in LIST_TYPES:
            per_run = _list(q, items[q], instance, good, run_ids, entries)
        elif kind in NUGGET_TYPES:
            per_run = _nuggets(
                q,
                nuggets[q],
                matches,
                official_votes,
                votes,
                nugget_method,
                run_ids,
                entries,
                with_curve=(kind == "CIQA"),
            )
        else:
            continue
        # How far the question's judging has got (the same for every run): a report must tell a question nobody
        # has judged yet from one whose final answer set turned out empty.
        official = matches if kind in NUGGET_TYPES else instance
        judged = sum(1 for i, _, _ in items[q] if i in official)
        # (left out: a list question whose final answer set is empty, the same in every run's row)
        left_out = any(result.detail.get("left_out") for result in per_run.values())
        pools[q] = (judged, len(items[q]), unpooled[q], left_out)
        for run_id, result in per_run.items():
            out[(run_id, q)] = result
    return out, pools


# An answer as _entries gives it: (line number, entry id, docid, text, pool item id or None).
LINE, ENTRY, DOCID, TEXT, ITEM = range(5)


def _entries(qids, kinds):
    """((run, q) -> its answers in file order, each as LINE ... ITEM above; (run, q) -> how many of them no pool
    item holds, NIL aside), the pool link read through a left join. A NIL line of a list or Other question is the
    run's explicit empty response (tracks/qa/formats/runs.py): it is no answer, so it is left out. Only nugget
    questions need the answer text (its length); the others are scored by judgment alone, so their text is not
    read (most of a full rescoring's I/O)."""
    with_text = [q for q in qids if kinds[q] in NUGGET_TYPES]
    without = [q for q in qids if kinds[q] not in NUGGET_TYPES]
    rows = defaultdict(list)
    item_of = {}
    unpooled = defaultdict(int)
    for group, text_field in ((without, None), (with_text, "text")):
        if not group:
            continue
        entries = RunEntry.objects.filter(topic_id__in=group).order_by()
        if text_field is None:
            entries = entries.annotate(no_text=Value(""))
        for eid, run_id, tid, line_no, docid, item_id, text in entries.values_list(
            "id", "run_id", "topic_id", "line_no", "docid", "pool_items", text_field or "no_text"
        ):
            if item_id is None:  # (the left join's one row of an entry no pool item holds)
                if is_nil(docid, text):
                    if kinds[tid] not in FACTOID_TYPES:
                        continue  # a list or Other question's explicit empty response: no answer, scores 0
                else:
                    unpooled[(run_id, tid)] += 1
            elif eid in item_of:  # an entry in several pool items comes once per item: the first one counts
                continue
            else:
                item_of[eid] = item_id
            rows[(run_id, tid)].append((line_no, eid, docid, text, item_id))
    for es in rows.values():
        if len(es) > 1:
            es.sort()  # (by line, then entry id: no two answers compare further)
    return rows, unpooled


def _judged(run_entries, official):
    return sum(1 for e in run_entries if e[ITEM] in official)


def _label(item_id, instance):
    value = instance.get(item_id)
    return value[0] if value else None


def nil_state(data, q_items, instance):
    """How a factoid question's answer stands against NIL: the organizer's explicit decision (Topic.data
    "answer_is_nil": True, False, or absent for "decide from the judgments"), whether a judged pooled answer shows
    the collection holds an answer, whether every pooled answer is judged, and the outcome (qa.answer_is_nil).
    NIL responses are not pooled, so the judgments of the other answers decide."""
    explicit = data.get("answer_is_nil")
    known = any(qa.shows_known_answer(_label(i, instance)) for i, d, t in q_items if not is_nil(d, t))
    fully_judged = all(i in instance for i, d, t in q_items if not is_nil(d, t))
    return {
        "explicit": explicit,
        "known_answer": known,
        "fully_judged": fully_judged,
        "answer_is_nil": qa.answer_is_nil(explicit, known, fully_judged),
    }


def nil_states(questions):
    """{question id: nil_state} for factoid questions (Topic objects), from their pools and official labels."""
    qids = [q.pk for q in questions]
    items = defaultdict(list)
    for item_id, tid, docid in (
        PoolItem.objects.filter(topic_id__in=qids).order_by().values_list("id", "topic_id", "docid")
    ):
        items[tid].append((item_id, docid, ""))
    instance = official_fields(qids, "instance", "label", "answer_class") if qids else {}
    return {q.pk: nil_state(q.data or {}, items[q.pk], instance) for q in questions}


def _factoid(q, data, q_items, instance, good, run_ids, entries):
    nil_answer = nil_state(data, q_items, instance)["answer_is_nil"]
    out = {}
    for run_id in run_ids:
        es = entries.get((run_id, q), ())
        returned_nil = bool(es) and is_nil(es[0][DOCID], es[0][TEXT])
        labels = [_label(e[ITEM], instance) for e in es]
        r = qa.factoid_score(labels, good, nil_returned=returned_nil, answer_is_nil=nil_answer)
        judgeable = [e for e in es if not is_nil(e[DOCID], e[TEXT])]
        out[run_id] = qa.QuestionScore(
            "FACTOID",
            1.0 if r.correct else 0.0,
            {
                "nil_returned": r.nil_returned,
                "nil_correct": r.nil_correct,
                "nil_question": nil_answer,
                "label": "NIL" if returned_nil else (labels[0] if labels else None),
                "entries": len(judgeable),
                "judged": _judged(judgeable, instance),
            },
        )
    return out


def _class_of(item_id, instance, good):
    value = instance.get(item_id)
    if not value or value[0] != good:
        return None
    # A correct instance not yet put in a class is its own distinct answer until the assessor groups it.
    return value[1] or f"item{item_id}"


def _list(q, q_items, instance, good, run_ids, entries):
    s = len(qa.final_answer_set(_class_of(i, instance, good) for i, _, _ in q_items))
    out = {}
    for run_id in run_ids:
        es = entries.get((run_id, q), ())
        classes = [_class_of(e[ITEM], instance, good) for e in es]
        r = qa.list_score(classes, s)
        out[run_id] = qa.QuestionScore(
            "LIST",
            r.f,
            {
                "ip": r.ip,
                "ir": r.ir,
                "D": r.distinct,
                "N": r.instances,
                "S": r.answer_set,
                "left_out": r.f is None,
                "entries": len(es),
                "judged": _judged(es, instance),
            },
        )
    return out


def _nuggets(q, q_nuggets, matches, official_votes, votes, method, run_ids, entries, with_curve=False):
    binary = qa.binary_weights({n: official_votes.get(n) for n in q_nuggets})
    pyramid = qa.pyramid_weights({n: sum(1 for v in votes.get(n, ()) if v == "vital") for n in q_nuggets})
    out = {}
    for run_id in run_ids:
        es = entries.get((run_id, q), ())
        matched = set()
        for e in es:
            held = matches.get(e[ITEM])
            if held:
                matched.update(held)
        length = qa.non_white_length(e[TEXT] for e in es)
        b = qa.nugget_score(matched, binary, length)
        p = qa.nugget_score(matched, pyramid, length)
        main = b if method == "binary" else p
        out[run_id] = qa.QuestionScore(
            "OTHER",
            main.f,
            {
                "recall": main.recall,
                "precision": main.precision,
                "method": method,
                "binary_f": b.f,
                "binary_recall": b.recall,
                "pyramid_f": p.f,
                "pyramid_recall": p.recall,
                "matched": p.matched,
                "length": length,
                "allowance": p.allowance,
                "nuggets": len(q_nuggets),
                "entries": len(es),
                "judged": _judged(es, matches),
            },
        )
        if with_curve:  # ciQA: cumulative pyramid recall against length, strings in submitted order
            strings = [(e[TEXT], matches.get(e[ITEM]) or ()) for e in es]
            out[run_id].detail["recall_points"] = qa.recall_points(strings, pyramid)
    return out


# Counts summed per series and run (how far judging has got is added where shown: scoring.pool_counts).
COUNTS = run_totals.COUNT_KEYS


def _new_acc():
    # "values": question type -> [exact sum of the values (run_totals.exact), how many]: a sum that a stored series'
    # sums minus a question's old value plus its new one gives exactly as a sum made afresh would, in any order
    # (rounded once, as math.fsum rounded the values' sum). "ids": question type -> [questions, sum of their
    # ids], what the stored sums were made of (series_partials checks them against the series' questions now).
    acc = {
        "values": defaultdict(lambda: [0, 0]),
        "left_out": 0,
        "ids": defaultdict(lambda: [0, 0]),
    }
    return acc | dict.fromkeys(COUNTS, 0)


def _add_question(acc, kind, value, detail, tid, sign=1):
    """Add one question's stored or new (value, detail) to a series' accumulator, or take it away (sign -1). (How
    many questions are judged, and which are not or are left out, is not counted here: the same in every run,
    scoring.pool_counts shows it.)"""
    if value is None:
        acc["left_out"] += sign
    else:
        values = acc["values"][kind]
        values[0] += sign * run_totals.exact(value)
        values[1] += sign
    ids = acc["ids"][kind]
    ids[0] += sign
    ids[1] += sign * tid
    acc["questions"] += sign
    acc["entries"] += sign * detail.get("entries", 0)
    acc["judged"] += sign * detail.get("judged", 0)
    acc["nil_returned"] += sign * bool(detail.get("nil_returned"))
    acc["nil_correct"] += sign * bool(detail.get("nil_correct"))
    acc["nil_questions"] += sign * bool(detail.get("nil_question"))


def _sums_json(acc):
    """What a series row keeps of its accumulator beside the counts its detail shows anyway (detail["sums"])."""
    return {
        "types": {kind: [run_totals.packed(total), n] for kind, (total, n) in sorted(acc["values"].items()) if n},
        "left_out": acc["left_out"],
        "ids": {kind: ids for kind, ids in sorted(acc["ids"].items()) if ids[0]},
    }


def _acc_from_series(detail):
    """The accumulator a stored series row was made from (its detail["sums"] and counts), or None without sums."""
    sums = detail.get("sums")
    if not isinstance(sums, dict):
        return None
    acc = _new_acc()
    for kind, (total, n) in sums["types"].items():
        acc["values"][kind] = [run_totals.unpacked(total), n]
    for kind, (n, id_sum) in sums["ids"].items():
        acc["ids"][kind] = [n, id_sum]
    acc["left_out"] = sums["left_out"]
    for k in COUNTS:
        acc[k] = detail.get(k, 0)
    return acc


def _fingerprint(questions, tids):
    """{question type: [questions, sum of their ids]} of `tids`, as an accumulator's "ids" holds them. Ids only
    grow, so a question added, removed, moved to another series or given another type changes it."""
    out = defaultdict(lambda: [0, 0])
    for tid in tids:
        ids = out[questions.info[tid]["kind"]]
        ids[0] += 1
        ids[1] += tid
    return out


def _same_ids(acc, expected):
    return {k: v for k, v in acc["ids"].items() if v[0]} == {k: v for k, v in expected.items() if v[0]}


def stored_series_rows(run_ids, series_ids):
    """[(pk, run, scope, series, measure, value, detail)] of every stored series-scope row of `series_ids`: the same
    under every reading of one rankings refresh (scoring.registry.memo)."""

    def read():
        rows = Score.objects.filter(run_id__in=run_ids, scope=Score.SERIES, topic_id__in=series_ids).order_by()
        return list(rows.values_list(*ROW_FIELDS))

    return memo(("qa.series_rows", tuple(run_ids), frozenset(series_ids)), read)


# The stored rows as the scorer reads them for a live pass and hands them to scoring.rescore.store (ScoreBatch.stored)
ROW_FIELDS = ("pk", "run_id", "scope", "topic_id", "measure", "value", "detail")


def series_partials(questions, run_ids, series_ids, qids, series_rows):
    """({(run, series): accumulator} of the recomputed series' other questions (those not in `qids`), the stored
    question-scope rows read (ROW_FIELDS), the questions whose rows they are): each series' stored sums
    (series_rows, detail["sums"]) minus the stored rows of its questions recomputed now. So a pass reads the rows
    of the questions it recomputes, not every other question of their series (it read ~50,000 rows with their
    JSON detail per pass at 50 assessors: most of a pass's PostgreSQL time, issue 32).

    A series whose stored sums are missing (scored before they were kept), do not match its questions now (one
    added, removed, moved or retyped: ids and types are checked) or lack a run is summed from its other
    questions' stored rows instead (stored_series_partials)."""
    out = defaultdict(_new_acc)
    wanted = {sid: _fingerprint(questions, questions.series_questions[sid]) for sid in series_ids}
    bad = set()
    for _, run_id, _, sid, measure, _, detail in series_rows:
        if measure != "score":
            continue
        acc = _acc_from_series(detail or {})
        if acc is None or not _same_ids(acc, wanted[sid]):
            bad.add(sid)
        else:
            out[(run_id, sid)] = acc
    bad.update(sid for sid in series_ids for run_id in run_ids if (run_id, sid) not in out)
    recomputed = [q for q in qids if questions.info[q]["series"] not in bad]

    def read():
        rows = Score.objects.filter(run_id__in=run_ids, scope=Score.QUESTION, topic_id__in=recomputed).order_by()
        return list(rows.values_list(*ROW_FIELDS))

    old = memo(("qa.question_rows", tuple(run_ids), frozenset(recomputed)), read) if recomputed else []
    for _, run_id, _, q, measure, value, detail in old:
        if measure != "score":
            continue
        info = questions.info[q]
        key = (run_id, info["series"])
        if info["series"] in bad:
            continue
        _add_question(out[key], info["kind"], value, detail, q, sign=-1)
    others = {sid: [q for q in questions.series_questions[sid] if q not in qids] for sid in series_ids}
    for sid in series_ids:  # what is left must be exactly the other questions' rows
        if sid not in bad:
            left = _fingerprint(questions, others[sid])
            if any(not _same_ids(out[(r, sid)], left) for r in run_ids):
                bad.add(sid)
    if bad:
        for key in [key for key in out if key[1] in bad]:
            del out[key]
        out.update(stored_series_partials(run_ids, [q for sid in sorted(bad) for q in others[sid]]))
    return out, old, set(recomputed)


def stored_series_partials(run_ids, topic_ids):
    """{(run, series): accumulator} over the stored scores of `topic_ids` (questions not recomputed now).

    On PostgreSQL the database sums per run, series and question type, so a batch of stale questions (which
    touches most series) does not read every other question's row back."""
    out = defaultdict(_new_acc)
    if not topic_ids:
        return out
    rows = Score.objects.filter(run_id__in=run_ids, scope=Score.QUESTION, measure="score", topic_id__in=topic_ids)
    if connection.vendor != "postgresql":
        for run_id, tid, series, kind, value, detail in rows.values_list(
            "run_id", "topic_id", "topic__parent_id", "topic__kind", "value", "detail"
        ):
            _add_question(out[(run_id, series or tid)], kind, value, detail, tid)
        return out
    sql = f"""
        SELECT s.run_id, coalesce(t.parent_id, t.id), t.kind,
               array_agg(s.value) FILTER (WHERE s.value IS NOT NULL), count(*) - count(s.value),
               coalesce(sum((s.detail->>'entries')::int), 0), coalesce(sum((s.detail->>'judged')::int), 0),
               count(*) FILTER (WHERE s.detail->>'nil_returned' = 'true'),
               count(*) FILTER (WHERE s.detail->>'nil_correct' = 'true'),
               count(*) FILTER (WHERE s.detail->>'nil_question' = 'true'), count(*), sum(t.id)::bigint
        FROM "{Score._meta.db_table}" s JOIN "{Topic._meta.db_table}" t ON t.id = s.topic_id
        WHERE s.run_id = ANY(%s) AND s.scope = 'question' AND s.measure = 'score' AND s.topic_id = ANY(%s)
        GROUP BY 1, 2, 3"""

    def read():
        with connection.cursor() as cursor:
            cursor.execute(sql, [list(run_ids), list(topic_ids)])
            return cursor.fetchall()

    # the stored official scores: the same under every reading of one rankings refresh (scoring.registry.memo)
    found = memo(("qa.partials", tuple(run_ids), frozenset(topic_ids)), read)
    for (
        run_id,
        series,
        kind,
        values,
        nulls,
        entries,
        judged,
        nil_ret,
        nil_cor,
        nil_q,
        questions,
        id_sum,
    ) in found:
        acc = out[(run_id, series)]
        total = acc["values"][kind]
        for value in values or ():
            total[0] += run_totals.exact(value)
            total[1] += 1
        ids = acc["ids"][kind]
        ids[0] += questions
        ids[1] += id_sum
        acc["left_out"] += nulls
        acc["questions"] += questions
        acc["entries"] += entries
        acc["judged"] += judged
        acc["nil_returned"] += nil_ret
        acc["nil_correct"] += nil_cor
        acc["nil_questions"] += nil_q
    return out


def series_results(questions, question_values, weights, partials=None):
    """{(run, series): (SeriesScore, extra detail)} from {(run, q): (value, detail)} of recomputed questions
    plus the stored partial sums of the series' other questions."""
    accs = partials if partials is not None else defaultdict(_new_acc)
    for (run_id, q), (value, detail) in question_values.items():
        info = questions.info[q]
        _add_question(accs[(run_id, info["series"])], info["kind"], value, detail, q)
    out = {}
    for key, acc in accs.items():
        sums = {kind: (run_totals.rounded(total), n) for kind, (total, n) in acc["values"].items() if n}
        s = combine.series_score_from_sums(sums, weights, acc["left_out"])
        extra = {k: acc[k] for k in COUNTS}
        extra["sums"] = _sums_json(acc)
        out[key] = (s, extra)
    return out


def question_rows(scores):
    return [ScoreRow(run_id, Score.QUESTION, q, "score", s.value, s.detail) for (run_id, q), s in scores.items()]


def series_rows(results):
    rows = []
    for (run_id, sid), (s, extra) in results.items():
        rows.append(
            ScoreRow(
                run_id,
                Score.SERIES,
                sid,
                "score",
                s.value,
                {"components": s.components, "counts": s.counts, "missing": list(s.missing), **extra},
            )
        )
    return rows


# Named weightings an organizer can pick with the setting "series_weighting" (else "series_weights" is used as is).
WEIGHTINGS = {
    "trec2007": combine.TREC2007_WEIGHTS,
    "trec2004": combine.TREC2004_WEIGHTS,
    "tac2008": combine.TAC2008_WEIGHTS,
}


def series_weights(evaluation):
    preset = evaluation.setting("series_weighting")
    if preset in WEIGHTINGS:
        return WEIGHTINGS[preset]
    return evaluation.setting("series_weights") or {}


def score_qa(evaluation, topic_ids):
    """The registered scorer: recompute `topic_ids` (None: everything) for every run, then series and runs."""
    questions = Questions(evaluation, topic_ids)
    qids = questions.expand(topic_ids)
    full = topic_ids is None
    run_ids = list(Run.objects.filter(evaluation=evaluation).order_by().values_list("id", flat=True))
    weights = series_weights(evaluation)
    scores, pools = score_questions(evaluation, questions, qids, run_ids)
    series_ids = {questions.info[q]["series"] for q in qids}

    question_values = {key: (s.value, s.detail) for key, s in scores.items()}
    if not full:  # the affected series' other questions keep their stored scores
        stored_series = stored_series_rows(run_ids, series_ids)
        partials, stored_questions, read_questions = series_partials(
            questions, run_ids, series_ids, qids, stored_series
        )
    else:
        stored_series = partials = None
    s_results = series_results(questions, question_values, weights, partials)

    series_details = {
        key: (s.value, {"components": s.components, "counts": s.counts, "missing": list(s.missing), **extra})
        for key, (s, extra) in s_results.items()
    }
    if full:
        runs = run_totals.full_run_rows(run_ids, series_details)
    else:  # from the runs' stored sums and the series recomputed now, not every series of every run
        series_scores = [(r, sid, v, d) for _, r, _, sid, measure, v, d in stored_series if measure == "score"]
        runs = run_totals.live_run_rows(run_ids, series_ids, series_details, series_scores)
    rows = question_rows(scores) + series_rows(s_results) + runs
    batch = ScoreBatch(
        rows=rows, question_ids=qids, series_ids=series_ids, run_level=True, full=full, pool_counts=pools
    )
    if not full:  # store() compares with the rows read here instead of reading them again
        batch.stored = {
            (r, scope, t, m): (pk, v, d) for pk, r, scope, t, m, v, d in (*stored_series, *stored_questions)
        }
        batch.stored_question_ids, batch.stored_series_ids = read_questions, set(series_ids)
    return batch
