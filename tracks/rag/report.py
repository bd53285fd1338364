"""TREC RAG's run report for scoring's shared report page and downloads: every measure for the whole run, then
per topic the nugget All and Vital scores and support precision and recall (a retrieval run: nDCG@20), each
beside the best, median and worst of the compared runs, and a plot of the run's per-topic main score against the
median."""

from pooling.models import Topic
from scoring.measures.combine import spread
from scoring.registry import measure_label
from scoring.reports import ReportRow, ReportSection, assemble_report, comparison_for, measure_rows, short_list
from tracks.rag.measures import MEASURES

PER_TOPIC = ("nugget_all", "nugget_vital", "support_precision", "support_recall", "ndcg_cut_20")
NOTE = (
    'Measures as SPEC-NOTES ("TREC RAG") gives them: nugget scores per answer (All and Vital count partial support '
    "as ½, Strict All and Strict Vital count only support; 0 when the set is empty), then averaged over topics; "
    "support weighted precision over the answer's (sentence, cited segment) pairs and recall over its sentences, "
    "a sentence taking its best citation's weight (full 1, partial ½) and an uncited one 0; a topic not answered "
    "scores 0. Answers whose nuggets are not all assigned yet and unjudged pairs are left out until judged; "
    'nDCG@20 for retrieval runs over the relevance grades 0–3. "–" marks an undefined value.'
)


def run_report(run):
    evaluation = run.evaluation
    others, _ = comparison_for(run)
    values, mine = measure_rows(run, others)
    summary, notes = [], []
    for name in [m.name for m in MEASURES] + ["judged"]:
        if (None, name) not in mine:
            continue
        value, detail = mine[(None, name)]
        sp = spread(values.get((None, name), []))
        summary.append(ReportRow(name, measure_label(name, evaluation.track), value, sp.best, sp.median, sp.worst))
        if name in ("nugget_all", "ndcg_cut_20") and detail.get("unjudged_questions"):
            notes.append(
                "Not fully judged yet: topics "
                + short_list(detail["unjudged_questions"])
                + ". They are left out of the means until judged, so these scores will change."
            )
    topics = list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))
    sections = []
    for name in PER_TOPIC:
        section = []
        for topic in topics:
            if (topic.pk, name) not in mine:
                continue
            value, detail = mine[(topic.pk, name)]
            sp = spread(values.get((topic.pk, name), []))
            judged = f"{detail.get('judged', 0)} of {detail.get('judgeable', 0)} items judged"
            section.append(ReportRow(topic.ident, (topic.text or "")[:80], value, sp.best, sp.median, sp.worst, judged))
        if section:
            sections.append(ReportSection(f"{measure_label(name, evaluation.track)} per topic", section, "Topic"))
    plotted = sections[0].rows if sections else []
    title = sections[0].title.removesuffix(" per topic") if sections else "Score"
    return assemble_report(
        run, others, summary, sections, notes, plotted, measures_note=NOTE,
        plot_title=f"{title}: difference from the median, per topic",
    )  # fmt: skip
