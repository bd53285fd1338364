"""BioGen's run report for scoring's shared report page and downloads: every measure for the whole run, then per
topic the accuracy, precision, citation support rate and document recall, each beside the best, median and worst
of the compared runs, and a plot of the run's per-topic precision against the median."""

from pooling.models import Topic
from scoring.measures.combine import spread
from scoring.registry import measure_label
from scoring.reports import ReportRow, ReportSection, assemble_report, comparison_for, measure_rows, short_list
from tracks.biogen.measures import MEASURES

PER_TOPIC = ("accuracy", "precision", "citation_support_rate", "document_recall")
NOTE = (
    "Measures as SPEC-NOTES restores them for TREC BioGen (seed 002): accuracy is the share of answers judged "
    "accurate; precision, redundancy and harmfulness are the shares of an answer's sentences judged required, "
    "unnecessary and inappropriate, per topic then averaged; citation coverage, support and contradict rates are "
    "shares over all the run's sentences and citations (a PMID cited twice in a sentence counts once); document "
    "recall is over the union of the relevant PMIDs every run cited for the topic. Unjudged sentences and citations "
    'are left out until judged; "–" marks an undefined value.'
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
        if name == "accuracy" and detail.get("unjudged_questions"):
            notes.append(
                "Not fully judged yet: topics "
                + short_list(detail["unjudged_questions"])
                + ". Their unjudged answers, sentences and citations are left out, so these scores will change."
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
    precision = next((s.rows for s in sections if s.title.startswith("Precision")), [])
    return assemble_report(
        run, others, summary, sections, notes, precision, measures_note=NOTE,
        plot_title="Precision: difference from the median, per topic",
    )  # fmt: skip
