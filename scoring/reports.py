"""Per-run reports: a run's stored scores beside the best, median and worst of all judged runs.

`build_report(run)` looks up the track's builder in scoring.registry (REPORTS) and falls back to the generic one
below, which needs nothing but Score rows: run-scope measures become the summary, series-scope "score" rows the
per-series table and question-scope "score" rows the per-question table and the difference plot. A track that
wants more (QA4MRE's c@1 per reading test and topic, BOLT's character measures) registers its own builder that
returns a RunReport; the views, downloads, access rules and templates stay shared.

Every report says what it is (`RunReport.status`, added by `build_report` whatever the builder): provisional or
final, how far judging has got (judged pool items of the questions the run is scored on), the instant the scores
are as of, and which runs best/median/worst are taken over (frozen at release, or live). Builders take their
comparison runs from `comparison_for(run)`, so a release's frozen comparison holds for every track.
"""

import csv
import io
from dataclasses import asdict, dataclass, field
from datetime import datetime

from core import audit
from core import extension_points as ep
from pooling.models import Run, Topic
from scoring import pool_counts
from scoring.measures.combine import spread
from scoring.models import Score
from scoring.registry import measure_label
from scoring.release import FROZEN, LIVE, release_record, when
from scoring.results import compared_runs, measure_order, run_judging
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
    plot_svg: str = ""  # a server-drawn SVG of the section (a track's report builder draws it), shown above it


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
    measures_note: str = ""  # how the track's measures are computed (the QA wording when empty)
    plot_title: str = ""  # the plot's heading ("Difference from the median, per question" when empty)
    status: dict = field(default_factory=dict)  # what the report is (report_status), filled by build_report

    def as_dict(self):
        data = asdict(self)
        data.pop("plot_svg")
        for section in data["sections"]:
            section.pop("plot_svg", None)
        return data

    def csv_text(self):
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["section", "id", "label", "value", "best", "median", "worst", "note"])
        for key, label, value, note in _status_rows(self.status):
            writer.writerow(["Report", key, label, "" if value is None else f"{value:.4f}", "", "", "", note])
        for section in [ReportSection("Run", self.summary)] + self.sections:
            for r in section.rows:
                writer.writerow(
                    [section.title, r.key, r.label]
                    + ["" if v is None else f"{v:.4f}" for v in (r.value, r.best, r.median, r.worst)]
                    + [r.note]
                )
        for note in self.notes:
            writer.writerow(["Notes", "", "", "", "", "", "", note])
        return out.getvalue()


def comparison_for(run):
    """(ids of the runs best/median/worst are taken over, how in words: {"mode", "runs", "since", "joined"}).

    Frozen at the release the run's team sees: the runs compared then (those still loaded). Otherwise the judged
    runs now; a released report also says how many joined since its release."""
    evaluation = run.evaluation
    record = release_record(evaluation, run.team_id)
    live = set(compared_runs(evaluation).values_list("id", flat=True))
    at_release = set((record or {}).get("runs") or ())
    if record and record.get("comparison") == FROZEN:
        kept = set(Run.objects.filter(evaluation=evaluation, id__in=at_release).values_list("id", flat=True))
        return kept, {
            "mode": FROZEN,
            "runs": len(kept),
            "since": record.get("at"),
            "joined": 0,
            "not_included": len(live - kept),
        }
    joined = len(live - at_release) if record and "runs" in record else 0
    return live, {
        "mode": LIVE,
        "runs": len(live),
        "since": (record or {}).get("at"),
        "joined": joined,
        "not_included": 0,
    }


def short_list(idents, limit=20):
    """A list of question ids for a note, cut short early in judging when nearly every question is in it."""
    shown = ", ".join(idents[:limit])
    return shown if len(idents) <= limit else f"{shown} … ({len(idents)} in all)"


def _question_note(detail):
    """Why a question's value is what it is: a missing type, judging not done, an empty final answer set."""
    if detail.get("missing"):
        note = "* no " + ", ".join(detail["missing"]).lower()
    else:
        note = ""
    judged, items = detail.get("pool", (None, None))
    unpooled = detail.get("unpooled", 0)
    unjudged = detail.get("unjudged")
    if unjudged:
        if judged == 0 and not unpooled:
            what = "not judged yet"
        else:
            parts = [f"{judged} of {items} judged"] if items and judged < items else []
            if unpooled:
                parts.append(f"{unpooled} answer{'s' if unpooled != 1 else ''} not pooled yet")
            what = f"judging incomplete ({'; '.join(parts)})"
        note = f"left out: {what}, no correct answer known yet" if detail.get("left_out") else what
    elif detail.get("left_out"):
        note = "left out: empty final answer set"
    elif detail.get("unjudged_questions"):  # a series
        n = len(detail["unjudged_questions"])
        note = (note + "; " if note else "") + f"{n} question{'s' if n != 1 else ''} not fully judged"
    return note


def spread_rows(run, scope, measure_filter, others, shown=None):
    """({key: [values of the compared runs]}, {key: (this run's value, detail)}) for one scope. The details are
    read for this run only: decoding every run's JSON was most of a report's time (304,000 details at ten times
    TREC 2007's size, issue 32). `shown`: the evaluation's scoring.pool_counts.Shown, if the caller has one."""
    rows = Score.objects.filter(run__evaluation=run.evaluation, scope=scope, **measure_filter)
    values = {}
    for topic_id, measure, value in rows.filter(run_id__in=list(others)).values_list("topic_id", "measure", "value"):
        values.setdefault(topic_id if scope != Score.RUN else measure, []).append(value)
    shown = shown or pool_counts.Shown(run.evaluation)
    mine = {}
    for topic_id, measure, value, detail in rows.filter(run=run).values_list("topic_id", "measure", "value", "detail"):
        mine[topic_id if scope != Score.RUN else measure] = (value, shown.detail(scope, topic_id, measure, detail))
    return values, mine


def measure_rows(run, others):
    """({(topic id or None, measure): [values of the compared runs]}, {(topic id or None, measure): (this run's
    value, detail)}) over the run-level and per-series Score rows of the run's evaluation (details of this run
    only, as spread_rows)."""
    rows = Score.objects.filter(run__evaluation=run.evaluation, scope__in=[Score.RUN, Score.SERIES])
    values = {}
    for scope, topic_id, measure, value in rows.filter(run_id__in=list(others)).values_list(
        "scope", "topic_id", "measure", "value"
    ):
        values.setdefault((topic_id if scope == Score.SERIES else None, measure), []).append(value)
    shown = pool_counts.Shown(run.evaluation)
    mine = {}
    for scope, topic_id, measure, value, detail in rows.filter(run=run).values_list(
        "scope", "topic_id", "measure", "value", "detail"
    ):
        key = (topic_id if scope == Score.SERIES else None, measure)
        mine[key] = (value, shown.detail(scope, topic_id, measure, detail))
    return values, mine


def generic_report(run):
    evaluation = run.evaluation
    others, _ = comparison_for(run)
    topics = {t.id: t for t in Topic.objects.filter(evaluation=evaluation)}
    notes = []
    shown = pool_counts.Shown(evaluation)  # (one for the three scopes: each reads the evaluation's counts)

    values, mine = spread_rows(run, Score.RUN, {}, others, shown)
    order = measure_order(evaluation, mine)
    summary = []
    for m in order:
        value, detail = mine[m]
        sp = spread(values.get(m, []))
        summary.append(ReportRow(m, measure_label(m, evaluation.track), value, sp.best, sp.median, sp.worst))
        if m == "score":
            if detail.get("unjudged_questions"):
                notes.append(
                    "Not fully judged yet: "
                    + short_list(detail["unjudged_questions"])
                    + ". Their unjudged answers count as wrong, and a list question without a known "
                    "correct answer is left out of the averages, so these scores will change."
                )
            if detail.get("left_out_questions"):
                notes.append(
                    "Left out of the averages (empty final answer set): " + ", ".join(detail["left_out_questions"])
                )
            if detail.get("partial_series"):
                notes.append(
                    f"{detail['partial_series']} series lack a question type: their score averages the "
                    "types present (flagged * below)."
                )

    sections = []
    for scope, title, header in ((Score.SERIES, "Per series", "Series"), (Score.QUESTION, "Per question", "Question")):
        values, mine = spread_rows(run, scope, {"measure": "score"}, others, shown)
        rows = []
        for topic_id in sorted(mine, key=lambda t: (topics[t].position, topics[t].ident)):
            value, detail = mine[topic_id]
            sp = spread(values.get(topic_id, []))
            topic = topics[topic_id]
            note = _question_note(detail)
            label = f"{topic.kind.lower()}" if scope == Score.QUESTION else (topic.text or "")[:80]
            rows.append(ReportRow(topic.ident, label, value, sp.best, sp.median, sp.worst, note))
        if rows:
            sections.append(ReportSection(title, rows, header))
    question_rows = next((sec.rows for sec in sections if sec.title == "Per question"), [])
    return assemble_report(run, others, summary, sections, notes, question_rows)


def assemble_report(run, others, summary, sections, notes, question_rows, measures_note="", plot_title=""):
    """The RunReport of `run` compared with `others`, with the per-question difference plot drawn from
    `question_rows` (none without them). For report builders: they compute the rows, this puts them together."""
    plot = difference_plot([(r.key, r.diff) for r in question_rows]) if question_rows else ""
    return RunReport(
        evaluation=run.evaluation.slug,
        track=run.evaluation.track,
        run=run.tag,
        team=run.team.name,
        compared_with=len(others),
        summary=summary,
        sections=sections,
        notes=notes,
        plot_svg=plot,
        measures_note=measures_note,
        plot_title=plot_title,
    )


def report_status(run):
    """What the report is: {"status": "final" | "provisional", "released", "released_at", "released_as",
    "judging": Judging.as_dict(), "scores_as_of", "comparison": comparison_for's words, "score_at_release",
    "summary": one sentence}. Final only while both hold: the organizer released it as final, and judging is
    still complete (a run or pool item added since, or a question reopened, makes it provisional again)."""
    evaluation = run.evaluation
    record = release_record(evaluation, run.team_id)
    judging = run_judging(run)
    final = bool(record and record.get("final")) and judging.complete
    _, comparison = comparison_for(run)
    scores_then = (record or {}).get("scores") or {}
    at_release = scores_then.get(str(run.id))
    # (one row: .first()'s ORDER BY id made PostgreSQL walk the whole table's id index, 67 ms at ten times TREC
    # 2007's size; topic IS NULL lets the partial unique index of run-level rows answer)
    now = next(
        iter(
            Score.objects.filter(run=run, scope=Score.RUN, topic__isnull=True, measure="score")
            .order_by()
            .values_list("value", flat=True)[:1]
        ),
        None,
    )
    status = "final" if final else "provisional"
    rescored = rescorings_since(evaluation, record)
    if final:
        reason = f"judging is complete ({judging.describe()}); these scores will not change."
    elif record and record.get("final"):
        reason = f"released as final, but judging has changed since: {judging.describe()}."
    elif judging.complete:
        reason = "judging is complete, but the organizers have not declared these scores final."
    else:
        reason = f"judging is incomplete: {judging.describe()}; these scores will change."
    return {
        "status": status,
        "summary": f"{status.capitalize()}: {reason}",
        "reason": reason,
        "released": record is not None,
        "released_at": (record or {}).get("at"),
        "released_as": (None if record is None else "final" if record.get("final") else "provisional"),
        "scores_as_of": judging.as_dict()["scores_as_of"],
        "judging": judging.as_dict(),
        "comparison": comparison,
        "score_at_release": at_release,
        "score_changed": str(run.id) in scores_then and at_release != now,
        "rescored": rescored,
    }


def rescorings_since(evaluation, record):
    """The organizer actions that changed scores of the evaluation after the release `record` (frozen runs loaded
    or deleted, gold answers changed, a judgment set promoted; core.audit.RESCORING), oldest first, each {"at",
    "by", "what", "because"}; [] for a report not released. A released score changes only through them (issue 26)."""
    if record is None:
        return []
    since = record.get("at")
    since = datetime.fromisoformat(since) if isinstance(since, str) else since
    words = {
        audit.FROZEN_RUN_LOADED: "run {} loaded",
        audit.RUN_DELETED: "run {} deleted",
        audit.GOLD_CHANGED: "gold changed",
        audit.SET_PROMOTED: "judgment set {} made official judgments",
    }
    return [
        {
            "at": e.at.isoformat(),
            "by": e.username,
            "what": words[e.action].format(e.target.partition(":")[2]),
            "because": e.reason,
        }
        for e in audit.rescorings(evaluation.slug, since)
    ]


def _status_rows(status):
    """(id, label, value, note) lines saying what the report is, for the CSV."""
    if not status:
        return []
    j, c = status["judging"], status["comparison"]
    share = "unknown" if j["share"] is None else f"{j['judged']} of {j['items']} {j['unit']}"
    if j.get("questions"):
        share += f"; {j['questions_judged']} of {j['questions']} questions fully judged"
    if j.get("unpooled_answers"):
        share += f"; {j['unpooled_answers']} answers of judged runs not pooled yet"
    rows = [
        ("status", status["status"].capitalize(), None, status["summary"]),
        ("judged", f"Pools judged ({j['unit']} of every judged run)", j["share"], share),
        ("as_of", "Scores as of", None, status["scores_as_of"] or "never scored"),
        ("comparison", "Best/median/worst over", None, comparison_words(c)),
    ]
    if status["released"]:
        rows.append(
            ("released", "Released", None, f"{status['released_at'] or 'date not recorded'} as {status['released_as']}")
        )
    if status["score_changed"]:
        rows.append(("score_at_release", "Score at release", status["score_at_release"], "changed since"))
    rows += [
        ("rescored", "Re-scored", None, f"on {when(r['at'])} because {r['because']} ({r['what']}, by {r['by']})")
        for r in status.get("rescored") or ()
    ]
    return rows


def comparison_words(c):
    """The comparison's run set in words, for the page and the CSV."""
    runs = f"{c['runs']} judged run{'s' if c['runs'] != 1 else ''}"
    if c["mode"] == FROZEN:
        text = f"{runs}, frozen at the release of {when(c['since'])}"
        if c["not_included"]:
            text += f"; {c['not_included']} loaded since not included"
        return text
    text = f"{runs}, live: runs loaded later join"
    if c["joined"]:
        text += f" ({c['joined']} joined since the release)"
    return text


def build_report(run):
    builder = ep.report.get(run.evaluation.track) or generic_report
    report = builder(run)
    report.status = report_status(run)
    return report
