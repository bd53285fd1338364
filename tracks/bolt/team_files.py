"""The topics BOLT teams get while the evaluation runs: seed 004, "At evaluation time, teams will only receive the
'query' and 'language-target' fields of the topics; the full topic content will be released with the relevance
judgments." Built from the stored topics; the full file (pooling.models.EvaluationFile) follows with the judgments."""

from xml.sax.saxutils import quoteattr

from pooling.models import Topic


def evaluation_topics(evaluation):
    """(filename, bytes) of the reduced topic file: each topic's number, query and language target only."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<bolt-1ir-topics eval="BOLT-IR-P2">']
    for topic in Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"):
        query = topic.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        lang = (topic.data or {}).get("language_target") or "none"
        lines += [
            f"<topic number={quoteattr(topic.ident)}>",
            f"<query>{query}</query>",
            f"<language-target lang={quoteattr(lang)}/>",
            "</topic>",
        ]
    lines.append("</bolt-1ir-topics>")
    return f"{evaluation.slug}-topics.xml", ("\n".join(lines) + "\n").encode()
