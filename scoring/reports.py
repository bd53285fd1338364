"""Per-run reports: a run's stored scores beside the best, median and worst of all judged runs.

`build_report(run)` looks up the track's builder in scoring.registry (REPORTS) and falls back to the generic one
below, which needs nothing but Score rows: run-scope measures become the summary, series-scope "score" rows the
per-series table and question-scope "score" rows the per-question table and the difference plot. A track that
wants more (QA4MRE's c@1 per reading test and topic, BOLT's character measures) registers its own builder that
returns a RunReport; the views, downloads, access rules and templates stay shared.
"""
import csv
import io
from dataclasses import asdict, dataclass, field

from pooling.models import Run, Topic
from scoring.measures.combine import spread
from scoring.measures.qa import recall_by_length
from scoring.models import Score
from scoring.registry import get_report_builder, measure_label
from scoring.results import RUN_MEASURE_ORDER, judged_priorities
from scoring.svg import difference_plot


@dataclass
class ReportRow:
    key: str  # run measure name, series ident or question ident
    label: str
    value: float | None
    best: float | None = None
    median: float | None = None
    worst: float | None = None
    note: str = ""

    @property
    def diff(self):
        return None if self.value is None or self.median is None else self.value - self.median


@dataclass
class ReportSection:
    title: str
    rows: list
    key_header: str = "Id"


@dataclass
class RunReport:
    evaluation: str
    track: str
    run: str
    team: str
    compared_with: int  # judged runs the spreads are taken over
    summary: list  # [ReportRow] run-level measures
    sections: list = field(default_factory=list)  # [ReportSection]
    notes: list = field(default_factory=list)
    plot_svg: str = ""

    def as_dict(self):
        data = asdict(self)
        data.pop("plot_svg")
        return data

    def csv_text(self):
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["section", "id", "label", "value", "best", "median", "worst", "note"])
        for section in [ReportSection("Run", self.summary)] + self.sections:
            for r in section.rows:
                writer.writerow([section.title, r.key, r.label] + [
                    "" if v is None else f"{v:.4f}" for v in (r.value, r.best, r.median, r.worst)] + [r.note])
        return out.getvalue()


def compared_runs(evaluation):
    """The judged runs (judged priorities of the evaluation; all runs if it names none)."""
    runs = Run.objects.filter(evaluation=evaluation)
    priorities = judged_priorities(evaluation)
    return runs.filter(priority__in=priorities) if priorities else runs


def _spread_rows(run, scope, measure_filter, others):
    """({key: [values of the compared runs]}, {key: (this run's value, detail)}) for one scope."""
    values = {}
    mine = {}
    for run_id, topic_id, measure, value, detail in Score.objects.filter(
            run__evaluation=run.evaluation, scope=scope, **measure_filter).values_list(
            "run_id", "topic_id", "measure", "value", "detail"):
        key = topic_id if scope != Score.RUN else measure
        if run_id in others:
            values.setdefault(key, []).append(value)
        if run_id == run.id:
            mine[key] = (value, detail)
    return values, mine


def generic_report(run):
    evaluation = run.evaluation
    others = set(compared_runs(evaluation).values_list("id", flat=True))
    topics = {t.id: t for t in Topic.objects.filter(evaluation=evaluation)}
    notes = []

    values, mine = _spread_rows(run, Score.RUN, {}, others)
    order = [m for m in RUN_MEASURE_ORDER if m in mine] + sorted(set(mine) - set(RUN_MEASURE_ORDER))
    summary = []
    for m in order:
        value, detail = mine[m]
        sp = spread(values.get(m, []))
        summary.append(ReportRow(m, measure_label(m), value, sp.best, sp.median, sp.worst))
        if m == "score":
            if detail.get("left_out_questions"):
                notes.append("Left out of the averages (empty final answer set): "
                             + ", ".join(detail["left_out_questions"]))
            if detail.get("partial_series"):
                notes.append(f"{detail['partial_series']} series lack a question type: their score averages the "
                             "types present (flagged * below).")

    sections = []
    for scope, title, header in ((Score.SERIES, "Per series", "Series"), (Score.QUESTION, "Per question",
                                                                          "Question")):
        values, mine = _spread_rows(run, scope, {"measure": "score"}, others)
        rows = []
        for topic_id in sorted(mine, key=lambda t: (topics[t].position, topics[t].ident)):
            value, detail = mine[topic_id]
            sp = spread(values.get(topic_id, []))
            topic = topics[topic_id]
            note = ""
            if detail.get("missing"):
                note = "* no " + ", ".join(detail["missing"]).lower()
            elif detail.get("left_out"):
                note = "left out: empty final answer set"
            label = f"{topic.kind.lower()}" if scope == Score.QUESTION else (topic.text or "")[:80]
            rows.append(ReportRow(topic.ident, label, value, sp.best, sp.median, sp.worst, note))
        if rows:
            sections.append(ReportSection(title, rows, header))
    curve = _recall_by_length(run, others)
    if curve:
        sections.append(curve)
    question_rows = next((sec.rows for sec in sections if sec.title == "Per question"), [])
    plot = difference_plot([(r.key, r.diff) for r in question_rows]) if question_rows else ""
    return RunReport(evaluation=evaluation.slug, track=evaluation.track, run=run.tag, team=run.team.name,
                     compared_with=len(others), summary=summary, sections=sections, notes=notes, plot_svg=plot)


def _recall_by_length(run, others):
    """ciQA: the run's pyramid recall at each multiple of 50 characters, averaged over topics (Lin 2007), beside
    the best, median and worst run at the same length. Only questions whose detail stores recall points count."""
    per_run = {}
    for run_id, detail in Score.objects.filter(run__evaluation=run.evaluation, scope=Score.QUESTION,
                                               measure="score", detail__has_key="recall_points").values_list(
            "run_id", "detail"):
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


def build_report(run):
    builder = get_report_builder(run.evaluation.track) or generic_report
    return builder(run)
