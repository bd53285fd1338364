"""BOLT's run report: scoring's generic report, with a note saying how passage characters were counted (the
setting `passage_white_space`: SPEC-NOTES' reading, the passage as submitted, unless the organizer chose to
collapse white space), since every character measure depends on it; a citation run's report says how many of its
citations were near-duplicates (false alarms), and a grouping run's gives its three grouping measures per topic.

A team sees its own runs' reports once released (scoring's access rules), grouping measures included: they are
the run's scores as much as character F is a citation run's."""

from pooling.evaluations import effective_settings
from pooling.models import RunEntry
from scoring import pool_counts
from scoring.measures.combine import spread
from scoring.models import Score
from scoring.registry import measure_label
from scoring.reports import ReportRow, ReportSection, comparison_for, generic_report, spread_rows
from tracks.bolt.formats.xml_common import AS_SUBMITTED, COLLAPSED
from tracks.bolt.scorer import GROUP_MEASURES

READINGS = {
    AS_SUBMITTED: "as submitted (SPEC-NOTES): every character of the passage, entities decoded, inner line breaks "
    "and indentation included, the layout white space at both ends trimmed",
    COLLAPSED: "with white space collapsed (runs of white space as one space, ends trimmed), not as submitted "
    "(SPEC-NOTES' reading)",
}


def characters_note(evaluation):
    settings = effective_settings(evaluation)
    reading = settings.get("passage_white_space", AS_SUBMITTED)
    limit = settings.get("max_passage_chars", 250)
    return (
        f"Passage characters are counted {READINGS.get(reading, reading)}; at most {limit} per citation "
        f"(setting passage_white_space = {reading!r})."
    )


def near_duplicates_note(run):
    n = RunEntry.objects.filter(run=run, data__near_dup=True).count()
    if not n:
        return "None of this run's citations is a near-duplicate of a higher-ranked one."
    return (
        f"{n} of this run's citations {'is a near-duplicate' if n == 1 else 'are near-duplicates'} of a "
        "higher-ranked citation of the same topic (at least 95 % of the word bigrams of the shorter in the other): "
        "each takes the judgment of its class's first citation but counts as returned characters with none "
        "relevant (a false alarm)."
    )


def grouping_section(run):
    """View precision, group precision and group skew per topic (each the mean over the topic's views), beside
    the best, median and worst of the compared runs that have them."""
    others, _ = comparison_for(run)
    rows = []
    shown = pool_counts.Shown(run.evaluation)  # (one for every measure: each would read the evaluation's counts)
    for m in GROUP_MEASURES:
        values, mine = spread_rows(run, Score.SERIES, {"measure": m}, others, shown)
        for topic_id, (value, _) in mine.items():
            sp = spread(values.get(topic_id, []))
            rows.append((topic_id, m, value, sp))
    idents = dict(run.evaluation.topics.filter(pk__in={r[0] for r in rows}).values_list("pk", "ident"))
    order = {m: i for i, m in enumerate(GROUP_MEASURES)}
    rows.sort(key=lambda r: (idents[r[0]], order[r[1]]))
    return ReportSection(
        "Grouping measures per topic",
        [
            ReportRow(idents[t], measure_label(m, run.evaluation.track), v, sp.best, sp.median, sp.worst)
            for t, m, v, sp in rows
        ],
        "Topic",
    )


def run_report(run):
    report = generic_report(run)
    if (run.data or {}).get("subtask") == "groups":
        report.sections.insert(0, grouping_section(run))
    else:
        report.notes.append(near_duplicates_note(run))
    report.notes.append(characters_note(run.evaluation))
    return report
