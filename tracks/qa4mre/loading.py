"""QA4MRE 2012 loading: test-set documents, the gold standard, and the hooks pooling.runs and pooling.topics call.

No human judging in this track: organizers load the test set (load_topics), the gold standard (load_gold) and the
runs (load_runs). Scores are written by scoring alone, with the scorer in tracks.qa4mre.scorer; they are asked for
at once, inside the transaction that stores a run (after_store, called by pooling.runs.store_run) or the gold
answers (load_gold), so a run is scored the moment it is loaded, as the organizer and participant expect.
"""

import html

from django.db import transaction

from accounts.models import Team
from core import audit
from pooling.evaluations import LoadError, effective_settings
from pooling.models import Evaluation, Run, Topic
from scoring import release
from tracks.qa4mre.formats.gold import parse_gold
from tracks.qa4mre.formats.run import max_runs
from tracks.qa4mre.formats.test_set import QUESTION, READING_TEST

TRACK = "qa4mre-2012"


def require_qa4mre(evaluation):
    if evaluation.track != TRACK:
        raise LoadError([f"{evaluation.slug} is a {evaluation.track} evaluation, not {TRACK}"])


# ---------------------------------------------------------------- structure and gold


def question_topics(evaluation):
    return list(Topic.objects.filter(evaluation=evaluation, kind=QUESTION).order_by("position"))


def has_gold(evaluation):
    return Topic.objects.filter(evaluation=evaluation, kind=QUESTION, data__has_key="correct").exists()


def load_gold(evaluation, data, filename, *, by=None, reason=""):
    """Store the gold answer of every question (Topic.data["correct"], None where no answer is correct) and
    rescore every run, all in one transaction. Returns (questions, questions without a correct answer).

    Changing gold answers once runs are frozen (the evaluation no longer open, or reports released to a team)
    needs a `reason`, logged with `by` in the audit log; released reports show it (issue 26)."""
    require_qa4mre(evaluation)
    questions = question_topics(evaluation)
    if not questions:
        raise LoadError([f"{filename}:0: {evaluation.slug} has no questions yet: load the test set first"])
    parsed_problems, gold = parse_gold(data, filename, [q.ident for q in questions])
    if parsed_problems:
        raise LoadError([p.format(filename) for p in parsed_problems])
    changed = [q.ident for q in questions if "correct" in (q.data or {}) and q.data["correct"] != gold[q.ident]]
    frozen = evaluation.state != Evaluation.OPEN or (evaluation.settings or {}).get(release.SETTING)
    reason = (reason or "").strip()
    if changed and frozen and not reason:
        raise LoadError(
            [f"{filename}:0: the gold answers of {len(changed)} questions would change after runs were frozen "
             f"({', '.join(changed[:10])}): give a reason (it is logged and shown on the released reports)"]
        )  # fmt: skip
    with transaction.atomic():
        for q in questions:
            q.data = (q.data or {}) | {"correct": gold[q.ident]}
            q.save(update_fields=["data"])
        if changed and frozen:
            audit.record(by, audit.GOLD_CHANGED, evaluation.slug, before={"questions": changed}, reason=reason)
        rescore(evaluation)
    return len(questions), sum(1 for v in gold.values() if v is None)


# ---------------------------------------------------------------- hooks called by pooling.runs and pooling.topics


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
    rescore(evaluation)


def after_topics_loaded(evaluation):
    """Inside load_topics' transaction: keep each reading test's document as a corpus Document (collection
    "<slug>-docs") so organizers and reports show it through the document viewer."""
    from corpus.models import Collection, Document

    tests = Topic.objects.filter(evaluation=evaluation, kind=READING_TEST).select_related("parent")
    if not tests:
        return
    collection, _ = Collection.objects.get_or_create(
        name=docs_collection_name(evaluation),
        defaults={"format": "aquaint2", "description": f"Reading-test documents of {evaluation}"},
    )
    evaluation.collections.add(collection)
    for test in tests:
        data = test.data or {}
        docno = f"{evaluation.slug}-RT{test.ident}"
        headline = f"{test.parent.text if test.parent else ''} · reading test {data.get('r_id', test.ident)}"
        # AQUAINT-2-like record: the text is escaped so that the document's characters stay text, never markup.
        raw = (
            f'<DOC id="{html.escape(docno)}" type="story">\n<HEADLINE>{html.escape(headline)}</HEADLINE>\n'
            f"<TEXT>\n<P>\n{html.escape(data.get('doc', ''), quote=False)}\n</P>\n</TEXT>\n</DOC>\n"
        )
        Document.objects.update_or_create(
            collection=collection,
            docno=docno,
            defaults={
                "raw": raw.encode("utf-8"),
                "charset": "utf-8",
                "text": data.get("doc", ""),
                "meta": {"headline": headline, "reading_test": test.ident, "d_id": data.get("d_id", "")},
            },
        )
        if data.get("docno") != docno:
            test.data = data | {"docno": docno}
            test.save(update_fields=["data"])
    # a reading test dropped from a corrected test set takes its document with it
    Document.objects.filter(collection=collection).exclude(
        docno__in=[f"{evaluation.slug}-RT{t.ident}" for t in tests]
    ).delete()


def docs_collection_name(evaluation):
    return f"{evaluation.slug}-docs"[:100]


def rescore(evaluation):
    """Have scoring recompute and store every score of the evaluation inside the caller's transaction. Stored rows
    that come out the same are kept, so after a run is loaded only that run's rows are written (a run's scores do
    not depend on the other runs)."""
    from scoring.rescore import rescore_evaluation

    rescore_evaluation(evaluation.pk)
