"""ciQA results for the organizer's board and the participant's report: the runs with their stage and pairing,
pyramid F per run (stored by the QA scorer), recall-by-length curves (the points the scorer stored per topic,
averaged by tracks.qa.measures.recall_by_length) and the initial-versus-final comparison (seed 001 Table 7,
Figure 3). Only reads Score rows; scoring writes them."""

from scoring.models import Score
from tracks.qa.ciqa.plots import recall_plot, scatter_plot
from tracks.qa.ciqa.rules import INITIAL, Submission, pairs
from tracks.qa.ciqa.stats import pair_rows
from tracks.qa.ciqa.submissions import INITIAL_TAG, STAGE
from tracks.qa.measures import recall_by_length
from tracks.qa.report import qa_report

RUN_MEASURE = "ciqa"  # the mean over the run's ciQA topics of the pyramid F(β=3)


def run_scores(evaluation):
    """{run id: pyramid F} of every scored run (the run's "ciqa" score, else its overall "score")."""
    found = {}
    for run_id, measure, value in Score.objects.filter(
        run__evaluation=evaluation, scope=Score.RUN, measure__in=(RUN_MEASURE, "score")
    ).values_list("run_id", "measure", "value"):
        if measure == RUN_MEASURE or run_id not in found:
            found[run_id] = value
    return found


def curves(evaluation):
    """{run id: [(length, mean recall)]} from the recall points stored per topic."""
    per_run = {}
    for run_id, detail in Score.objects.filter(
        run__evaluation=evaluation, scope=Score.QUESTION, measure="score", detail__has_key="recall_points"
    ).values_list("run_id", "detail"):
        per_run.setdefault(run_id, []).append([tuple(p) for p in detail["recall_points"]])
    return {run_id: recall_by_length(points) for run_id, points in per_run.items()}


def stage_of(run):
    return (run.data or {}).get(STAGE) or INITIAL


def board(evaluation):
    """Everything the organizer's board shows: runs (with .stage, .initial, .pyramid_f), the pair rows, the
    recall-by-length plot of every run and the scatter plot."""
    runs = list(evaluation.runs.select_related("team").order_by("team__name", "tag"))
    scores = run_scores(evaluation)
    for run in runs:
        run.stage, run.initial, run.pyramid_f = stage_of(run), (run.data or {}).get(INITIAL_TAG, ""), scores.get(run.pk)
    submissions = [Submission(r.tag, r.team.name, r.stage, r.initial) for r in runs]
    rows = pair_rows(
        pairs(submissions), {r.tag: (r.team.name, r.is_manual) for r in runs}, {r.tag: r.pyramid_f for r in runs}
    )
    all_curves = curves(evaluation)
    tags = {r.pk: r.tag for r in runs}
    recall_svg = recall_plot(
        [
            (tags[rid], pts)
            for rid, pts in sorted(all_curves.items(), key=lambda kv: tags.get(kv[0], ""))
            if rid in tags
        ],
        title="Recall by length, every run",
    )
    scatter_svg = scatter_plot([(f"{r.initial} → {r.final}", r.initial_score, r.final_score) for r in rows])
    return {"runs": runs, "pairs": rows, "recall_svg": recall_svg, "scatter_svg": scatter_svg, "curves": all_curves}


def ciqa_report(run):
    """The QA report (tracks.qa.report) with its recall-by-length section drawn: this run beside the others it is
    compared with; and a note naming the run's stage and pairing."""
    report = qa_report(run)
    section = next((s for s in report.sections if s.title == "Recall by length"), None)
    if section is not None:  # others' runs stay anonymous: their best, median and worst at each length
        lines = [(run.tag, [(int(r.key), r.value) for r in section.rows if r.value is not None])]
        for name, label in (("best", "best run"), ("median", "median run"), ("worst", "worst run")):
            points = [(int(r.key), getattr(r, name)) for r in section.rows if getattr(r, name) is not None]
            if points:
                lines.append((label, points))
        section.plot_svg = recall_plot(lines, title=f"Recall by length: {run.tag}", highlight=run.tag)
    stage = stage_of(run)
    initial = (run.data or {}).get(INITIAL_TAG)
    report.notes.append(f"ciQA {stage} run" + (f", following initial run {initial}" if initial else "") + ".")
    return report
