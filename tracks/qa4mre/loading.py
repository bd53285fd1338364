"""QA4MRE 2012 glue: test-set documents, the gold standard, and scoring runs the moment they are loaded.

No human judging in this track: organizers load the test set (load_topics), the gold standard (load_gold) and the
runs (load_runs); each run is scored inside the transaction that stores it (after_store, called by
pooling.loading.store_run), and loading the gold standard (again) rescores every run in the same transaction as the gold answers.

Stored scores (scoring.models.Score), all computed by scoring.measures.c_at_1:
  scope run       measures c_at_1, accuracy_answered, self_validation (detail: the counts behind them)
  scope series    the same per reading test and per topic (topic = the Topic row of that reading test/topic)
  scope question  the same over the one question (c_at_1 1 or 0), detail: answered, a_id, gold
and "score" = c@1 for the run, each reading test and each question: the headline the shared scoreboard, `score`
command and significance test read (reading tests play the part of the QA tracks' series; topics are left out of
"score" so that no question counts twice there).
"""
import html

from django.db import transaction

from pooling.formats.qa4mre_gold import parse_gold
from pooling.formats.qa4mre_run import max_runs
from pooling.formats.qa4mre_test_set import QUESTION, READING_TEST, TOPIC
from pooling.loading import LoadError, effective_settings
from pooling.models import Run, RunEntry, Team, Topic
from scoring.measures import c_at_1

TRACK = "qa4mre-2012"


def require_qa4mre(evaluation):
    if evaluation.track != TRACK:
        raise LoadError([f"{evaluation.slug} is a {evaluation.track} evaluation, not {TRACK}"])


# ---------------------------------------------------------------- structure and gold

def question_topics(evaluation):
    return list(Topic.objects.filter(evaluation=evaluation, kind=QUESTION).order_by("position"))


def has_gold(evaluation):
    return Topic.objects.filter(evaluation=evaluation, kind=QUESTION, data__has_key="correct").exists()


def load_gold(evaluation, data, filename):
    """Store the gold answer of every question (Topic.data["correct"], None where no answer is correct) and
    rescore every run, all in one transaction. Returns (questions, questions without a correct answer)."""
    require_qa4mre(evaluation)
    questions = question_topics(evaluation)
    if not questions:
        raise LoadError([f"{filename}:0: {evaluation.slug} has no questions yet: load the test set first"])
    parsed_problems, gold = parse_gold(data, filename, [q.ident for q in questions])
    if parsed_problems:
        raise LoadError([p.format(filename) for p in parsed_problems])
    with transaction.atomic():
        for q in questions:
            q.data = (q.data or {}) | {"correct": gold[q.ident]}
            q.save(update_fields=["data"])
        score_runs(evaluation)
    return len(questions), sum(1 for v in gold.values() if v is None)


# ---------------------------------------------------------------- hooks called by pooling.loading

def check_context_extra(evaluation):
    """CheckContext.extra for the run checker: the run_ids already loaded, by the team ID in them."""
    by_team = {}
    for tag, data in Run.objects.filter(evaluation=evaluation).values_list("tag", "data"):
        by_team.setdefault((data or {}).get("team_id") or tag[:4], []).append(tag)
    return {"runs_by_team_id": by_team}


def after_store(run):
    """Inside the run's loading transaction: one team ID per team and at most N runs per team, then score."""
    evaluation = run.evaluation
    # Loads of one team queue up here, so two files sent at once cannot both pass as the tenth run.
    Team.objects.select_for_update(of=("self",)).filter(pk=run.team_id).first()
    code = (run.data or {}).get("team_id")
    others = Run.objects.filter(evaluation=evaluation).exclude(pk=run.pk).select_related("team")
    where = f"{run.source_name or run.tag}:0"
    problems = []
    taken = sorted({r.team.name for r in others if (r.data or {}).get("team_id") == code and r.team_id != run.team_id})
    if taken:
        problems.append(f"{where}: team ID {code!r} is already used by team {', '.join(taken)}")
    mine = [r for r in others if r.team_id == run.team_id]
    codes = sorted({(r.data or {}).get("team_id") for r in mine} - {code, None})
    if codes:
        problems.append(f"{where}: team {run.team.name} submits as team ID {', '.join(codes)}, not {code!r}")
    limit = max_runs(effective_settings(evaluation))
    if len(mine) + 1 > limit:
        problems.append(f"{where}: team {run.team.name} already has {len(mine)} runs; at most {limit} per team")
    if problems:
        raise LoadError(problems)
    score_run(run)


def after_topics_loaded(evaluation):
    """Inside load_topics' transaction: keep each reading test's document as a corpus Document (collection
    "<slug>-docs") so organizers and reports show it through the document viewer."""
    from corpus.models import Collection, Document

    tests = Topic.objects.filter(evaluation=evaluation, kind=READING_TEST).select_related("parent")
    if not tests:
        return
    collection, _ = Collection.objects.get_or_create(
        name=docs_collection_name(evaluation), defaults={"format": "aquaint2",
                                                         "description": f"Reading-test documents of {evaluation}"})
    evaluation.collections.add(collection)
    for test in tests:
        data = test.data or {}
        docno = f"{evaluation.slug}-RT{test.ident}"
        headline = f"{test.parent.text if test.parent else ''} · reading test {data.get('r_id', test.ident)}"
        # AQUAINT-2-like record: the text is escaped so that the document's characters stay text, never markup.
        raw = (f'<DOC id="{html.escape(docno)}" type="story">\n<HEADLINE>{html.escape(headline)}</HEADLINE>\n'
               f'<TEXT>\n<P>\n{html.escape(data.get("doc", ""), quote=False)}\n</P>\n</TEXT>\n</DOC>\n')
        Document.objects.update_or_create(
            collection=collection, docno=docno,
            defaults={"raw": raw.encode("utf-8"), "charset": "utf-8", "text": data.get("doc", ""),
                      "meta": {"headline": headline, "reading_test": test.ident, "d_id": data.get("d_id", "")}})
        if data.get("docno") != docno:
            test.data = data | {"docno": docno}
            test.save(update_fields=["data"])
    # a reading test dropped from a corrected test set takes its document with it
    Document.objects.filter(collection=collection).exclude(
        docno__in=[f"{evaluation.slug}-RT{t.ident}" for t in tests]).delete()


def docs_collection_name(evaluation):
    return f"{evaluation.slug}-docs"[:100]


# ---------------------------------------------------------------- scoring

def structure(evaluation):
    """(questions in order, {reading test or topic Topic: [question pks]}) of an evaluation."""
    topics = list(Topic.objects.filter(evaluation=evaluation).order_by("position"))
    by_pk = {t.pk: t for t in topics}
    questions = [t for t in topics if t.kind == QUESTION]
    groups = {t.pk: [] for t in topics if t.kind in (READING_TEST, TOPIC)}
    for q in questions:
        test = by_pk.get(q.parent_id)
        if test is not None:
            groups[test.pk].append(q.pk)
            if test.parent_id in groups:
                groups[test.parent_id].append(q.pk)
    return questions, groups


def _detail(outcomes):
    counts = c_at_1.count(outcomes)
    return {"n": counts.n, "right": counts.right, "wrong": counts.wrong, "unanswered": counts.unanswered,
            "candidates": counts.candidates, "candidates_right": counts.candidates_right}


def compute_rows(evaluation, runs=None):
    """scoring.registry.ScoreRow list for the runs (every run of the evaluation by default); empty while no gold
    standard is loaded."""
    from scoring.models import Score
    from scoring.registry import ScoreRow

    if not has_gold(evaluation):
        return []
    questions, groups = structure(evaluation)
    gold = {q.pk: (q.data or {}).get("correct") for q in questions}
    reading_tests = {q.parent_id for q in questions}
    responses = {}
    run_ids = [r.pk for r in runs] if runs is not None else list(
        Run.objects.filter(evaluation=evaluation).values_list("pk", flat=True))
    entries = RunEntry.objects.filter(run_id__in=run_ids).values_list("run_id", "topic_id", "data")
    for run_id, topic_id, data in entries:
        responses.setdefault(run_id, {})[topic_id] = data or {}
    rows = []
    for run_id in run_ids:
        outcomes = {}
        for q in questions:
            response = responses.get(run_id, {}).get(q.pk, {})  # a missing question counts as unanswered
            answered, a_id = bool(response.get("answered")), response.get("a_id")
            outcomes[q.pk] = c_at_1.outcome(answered, a_id, gold[q.pk])
            detail = {"answered": answered, "a_id": a_id, "gold": gold[q.pk]}
            measures = c_at_1.measures([outcomes[q.pk]])
            rows += [ScoreRow(run_id, Score.QUESTION, q.pk, m, v, detail) for m, v in measures.items()]
            rows.append(ScoreRow(run_id, Score.QUESTION, q.pk, "score", measures["c_at_1"], detail))
        for group_pk, measures in c_at_1.grouped(outcomes, groups).items():
            detail = _detail(outcomes[q] for q in groups[group_pk])
            rows += [ScoreRow(run_id, Score.SERIES, group_pk, m, v, detail) for m, v in measures.items()]
            if group_pk in reading_tests:
                rows.append(ScoreRow(run_id, Score.SERIES, group_pk, "score", measures["c_at_1"], detail))
        everything = list(outcomes.values())
        detail = _detail(everything)
        run_measures = c_at_1.measures(everything)
        rows += [ScoreRow(run_id, Score.RUN, None, m, v, detail) for m, v in run_measures.items()]
        # "score" is the headline every shared board ranks runs by; for this track it is c@1.
        rows.append(ScoreRow(run_id, Score.RUN, None, "score", run_measures["c_at_1"], detail | {"is": "c_at_1"}))
    return rows


def score_qa4mre(evaluation, topic_ids=None):
    """The track's scorer for scoring.registry: always every run and every question (there is no judging, so
    nothing is ever partly stale, and a whole evaluation is a few thousand rows)."""
    from scoring.registry import ScoreBatch

    return ScoreBatch(rows=compute_rows(evaluation), full=True)


def score_run(run):
    """Replace the scores of one run just loaded (the others' best/median/worst are read at display time, so they
    need no recomputation)."""
    from scoring.models import Score

    rows = compute_rows(run.evaluation, [run])
    Score.objects.filter(run=run).delete()
    Score.objects.bulk_create([Score(run_id=r.run_id, scope=r.scope, topic_id=r.topic_id, measure=r.measure,
                                     value=r.value, detail=r.detail) for r in rows], batch_size=2000)


def score_runs(evaluation):
    """Recompute and store every score of the evaluation through the shared rescoring (locks, freshness)."""
    from scoring.rescore import rescore_evaluation
    from scoring.registry import get_scorer, register_scorer

    if get_scorer(TRACK) is None:  # normally registered at start-up by scoring.qa4mre_report
        register_scorer(TRACK, score_qa4mre)
    rescore_evaluation(evaluation.pk)
