"""The QA run report: the generic one (scoring.reports.generic_report) and, where the scorer stored recall points
(ciQA's nugget questions), the run's recall by length beside the best, median and worst run."""

from scoring.measures.combine import spread
from scoring.models import Score
from scoring.reports import ReportRow, ReportSection, comparison_for, generic_report
from tracks.qa.measures import recall_by_length


def qa_report(run):
    report = generic_report(run)
    others, _ = comparison_for(run)
    curve = recall_by_length_section(run, others)
    if curve:
        report.sections.append(curve)
    return report


def recall_by_length_section(run, others):
    """ciQA: the run's pyramid recall at each multiple of 50 characters, averaged over topics (Lin 2007), beside
    the best, median and worst run at the same length. Only questions whose detail stores recall points count."""
    per_run = {}
    for run_id, detail in Score.objects.filter(
        run__evaluation=run.evaluation, scope=Score.QUESTION, measure="score", detail__has_key="recall_points"
    ).values_list("run_id", "detail"):
        per_run.setdefault(run_id, []).append([tuple(p) for p in detail["recall_points"]])
    if run.id not in per_run:
        return None
    curves = {run_id: dict(recall_by_length(points)) for run_id, points in per_run.items()}
    rows = []
    for length, value in sorted(curves[run.id].items()):
        # a run whose responses are shorter has reached its final recall already
        sp = spread([_at(curves[r], length) for r in others if r in curves])
        rows.append(ReportRow(str(length), "characters", value, sp.best, sp.median, sp.worst))
    return ReportSection("Recall by length", rows, "Length")


def _at(curve, length):
    if not curve:
        return 0.0
    if length in curve:
        return curve[length]
    return curve[max(curve)] if length > max(curve) else 0.0
