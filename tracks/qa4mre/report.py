"""QA4MRE 2012 reports, built from stored scores: scoring's shared run report, the track's own report rows and
results CSV, and how far "judging" (the gold standard) has got.

The report never computes a measure: it reads the Score rows scoring stored (with tracks.qa4mre.scorer) and only
ranks them (best, median, worst over the evaluation's runs) for each reading test, each topic and the whole run.
"""

import csv
import io

from pooling.models import Run, Topic
from scoring.models import Score
from scoring.reports import ReportRow, ReportSection, assemble_report, comparison_for
from tracks.qa4mre.formats.test_set import QUESTION
from tracks.qa4mre.measures import LABELS, MEASURES, best_median_worst


def judging(evaluation):
    """No assessors here: a question is "judged" once the gold standard gives its answer (or says none is right)."""
    rows = list(Topic.objects.filter(evaluation=evaluation, kind=QUESTION).values_list("ident", "data"))
    missing = sorted(ident for ident, data in rows if "correct" not in (data or {}))
    return {
        "pool_items": len(rows),
        "pool_judged": len(rows) - len(missing),
        "questions": None,
        "questions_judged": None,
        "unjudged_questions": missing,
        "unit": "questions with a gold answer",
    }


def _spreads(evaluation, scope, measures, compared=None):
    """{(topic id or None, measure): [values of the compared runs (None: every run)]} and {(run id, topic id or
    None, measure): (value, detail)} of the stored scores at one scope."""
    values, by_run = {}, {}
    for run_id, topic_id, measure, value, detail in Score.objects.filter(
        run__evaluation=evaluation, scope=scope, measure__in=measures
    ).values_list("run_id", "topic_id", "measure", "value", "detail"):
        if compared is None or run_id in compared:
            values.setdefault((topic_id, measure), []).append(value)
        by_run[(run_id, topic_id, measure)] = (value, detail)
    return values, by_run


def _counts_note(detail):
    if not detail:
        return ""
    note = f"{detail['right']} right, {detail['wrong']} wrong, {detail['unanswered']} unanswered of {detail['n']}"
    if detail.get("candidates"):
        note += f"; candidates right {detail['candidates_right']} of {detail['candidates']}"
    return note


def _response_note(detail):
    answered, a_id, gold = detail.get("answered"), detail.get("a_id"), detail.get("gold")
    given = f"answered {a_id}" if answered else ("not answered" if a_id is None else f"not answered (candidate {a_id})")
    return f"{given}; gold {gold if gold is not None else 'none'}"


def run_report(run):
    """The RunReport for scoring's shared report page and downloads: c@1, accuracy over answered and
    self-validation for the whole run, then c@1 per topic, per reading test and per question, each beside the best,
    median and worst of all the evaluation's runs."""
    evaluation = run.evaluation
    others, _ = comparison_for(run)  # every run, or those frozen at the release
    values, mine = _spreads(evaluation, Score.RUN, MEASURES, others)
    summary = []
    for measure in MEASURES:
        if (run.pk, None, measure) not in mine:
            continue
        value, detail = mine[(run.pk, None, measure)]
        best, median, worst = best_median_worst(values.get((None, measure), []))
        summary.append(
            ReportRow(
                measure,
                LABELS[measure],
                value,
                best,
                median,
                worst,
                _counts_note(detail) if measure == "c_at_1" else "",
            )
        )
    topics = list(Topic.objects.filter(evaluation=evaluation).order_by("position"))
    sections = []
    for scope, kind, title, header in (
        (Score.SERIES, "topic", "c@1 per topic", "Topic"),
        (Score.SERIES, "reading-test", "c@1 per reading test", "Reading test"),
        (Score.QUESTION, "question", "Per question (1 = answered right)", "Question"),
    ):
        values, mine = _spreads(evaluation, scope, ["c_at_1"], others)
        rows = []
        for topic in (t for t in topics if t.kind == kind):
            if (run.pk, topic.pk, "c_at_1") not in mine:
                continue
            value, detail = mine[(run.pk, topic.pk, "c_at_1")]
            best, median, worst = best_median_worst(values.get((topic.pk, "c_at_1"), []))
            note = _response_note(detail) if kind == "question" else _counts_note(detail)
            rows.append(ReportRow(topic.ident, (topic.text or "")[:80], value, best, median, worst, note))
        if rows:
            sections.append(ReportSection(title, rows, header))
    notes = [
        'c@1 = (nR + nU·nR/n)/n over n questions, nR answered right, nU unanswered. answered="NO" counts as '
        "unanswered even with a candidate answer; self-validation is the share of those candidates that were right. "
        "A question whose gold standard marks no answer correct cannot be answered right.",
        f"Reading-test documents and this run's answers: /qa4mre/{evaluation.slug}/runs/{run.tag}/",
    ]
    if not summary:
        notes.insert(0, "Not scored yet: the gold standard is not loaded.")
    questions = next((s.rows for s in sections if s.key_header == "Question"), [])
    return assemble_report(run, others, summary, sections, notes, questions)


def report_rows(run):
    """One row per topic and reading test (file order) and one for the whole run:
    {"label", "topic", "kind", "values": {measure: this run's value}, "best", "median", "worst" (of c@1),
     "detail": the counts behind this run's values}."""
    evaluation = run.evaluation
    scores = Score.objects.filter(
        run__evaluation=evaluation, scope__in=[Score.RUN, Score.SERIES], measure__in=MEASURES
    ).values_list("run_id", "scope", "topic_id", "measure", "value", "detail")
    mine, c_at_1_of = {}, {}
    for run_id, scope, topic_id, measure, value, detail in scores:
        key = topic_id if scope == Score.SERIES else None
        if run_id == run.pk:
            mine.setdefault(key, {"values": {}, "detail": detail})["values"][measure] = value
        if measure == "c_at_1":
            c_at_1_of.setdefault(key, []).append(value)
    groups = Topic.objects.filter(evaluation=evaluation, kind__in=["topic", "reading-test"]).order_by("position")
    rows = []
    for topic in list(groups) + [None]:
        key = topic.pk if topic else None
        if key not in mine:
            continue
        best, median, worst = best_median_worst(c_at_1_of.get(key, []))
        label = (
            "Whole run"
            if topic is None
            else f"Topic {topic.ident}: {topic.text}"
            if topic.kind == "topic"
            else f"Reading test {topic.ident}"
        )
        rows.append(
            {
                "label": label,
                "topic": topic,
                "kind": topic.kind if topic else "run",
                "values": mine[key]["values"],
                "detail": mine[key]["detail"],
                "best": best,
                "median": median,
                "worst": worst,
            }
        )
    return rows


CSV_COUNTS = ("n", "right", "wrong", "unanswered", "candidates", "candidates_right")


def results_csv(evaluation):
    """Every run's stored scores for the whole run, each topic and each reading test, one line each (the
    organizer's results export; `python manage.py score SLUG --json` gives the same numbers with the questions)."""
    order = {t.pk: (t.position, t.ident, t.kind) for t in Topic.objects.filter(evaluation=evaluation)}
    cells = {}
    for run_id, _scope, topic_id, measure, value, detail in Score.objects.filter(
        run__evaluation=evaluation, scope__in=[Score.RUN, Score.SERIES], measure__in=MEASURES
    ).values_list("run_id", "scope", "topic_id", "measure", "value", "detail"):
        cell = cells.setdefault((run_id, topic_id), {"detail": detail})
        cell[measure] = value
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["run", "team", "scope", "id"] + list(MEASURES) + list(CSV_COUNTS))
    for run in Run.objects.filter(evaluation=evaluation).select_related("team").order_by("tag"):
        keys = sorted((k for k in cells if k[0] == run.pk), key=lambda k: (k[1] is not None, order.get(k[1], ())))
        for _, topic_id in keys:
            cell = cells[(run.pk, topic_id)]
            scope, ident = ("run", "") if topic_id is None else (order[topic_id][2], order[topic_id][1])
            writer.writerow(
                [run.tag, run.team.name, scope, ident]
                + ["" if cell.get(m) is None else f"{cell[m]:.4f}" for m in MEASURES]
                + [cell["detail"].get(c, "") for c in CSV_COUNTS]
            )
    return out.getvalue()
