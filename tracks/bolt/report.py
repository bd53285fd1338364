"""BOLT's run report: scoring's generic report, with a note saying how passage characters were counted (the
setting `passage_white_space`: SPEC-NOTES' reading, the passage as submitted, unless the organizer chose to
collapse white space), since every character measure depends on it."""

from pooling.loading import effective_settings
from scoring.reports import generic_report
from tracks.bolt.formats.xml_common import AS_SUBMITTED, COLLAPSED

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


def run_report(run):
    report = generic_report(run)
    report.notes.append(characters_note(run.evaluation))
    return report
