"""What BOLT teams receive (seed 004): "At evaluation time, teams will only receive the 'query' and
'language-target' fields of the topics; the full topic content will be released with the relevance judgments."
The reduced topic file while the evaluation runs (core.extension_points.participant_topics), and once released each
citation run's assessed citations in the seed's DTD form (core.extension_points.run_judgments); the full topic file
as loaded is released with them by pooling.campaign."""

from tracks.bolt import judging
from tracks.bolt.formats.export import team_topics, validate_export


def evaluation_topics(evaluation):
    """(filename, bytes): each topic's number, query and language target only."""
    topics = [(t.ident, t.text, t.data.get("language_target", "none")) for t in judging.bolt_topics(evaluation)]
    return f"{evaluation.slug}-topics.xml", team_topics(evaluation.setting("eval_id", "BOLT-IR-P2"), "", topics)


def assessed_run(run):
    """(filename, bytes) of a citation run's assessed citations, DTD-valid; None for a grouping run or a file that
    would not validate (never handed out, as on the organizer's export page)."""
    if not assessed_run.applies(run):
        return None
    xml = judging.export_run(run)
    return None if validate_export(xml) else (f"{run.tag}-assessed.xml", xml)


assessed_run.applies = lambda run: (run.data or {}).get("subtask", "citations") == "citations"
