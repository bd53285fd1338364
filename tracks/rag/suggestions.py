"""Machine-proposed nuggets in (TREC 2024 RAG: LLM-proposed nuggets post-edited by assessors): a nuggetizer nuggets
file (scoring/formats/nuggetizer.py) becomes each topic's suggestions, shown on its nugget page to accept, edit or
reject (tracks.rag.judging). All or nothing in one transaction, in the audit log (`manage.py rag_suggestions`).
A topic's pending suggestions are replaced; its nuggets are never touched."""

from django.db import transaction

from core import audit
from pooling.models import Topic
from scoring.formats.nuggetizer import read_nuggets
from tracks.rag.judging import SUGGESTIONS, TRACK


class SuggestionError(ValueError):
    """Every problem of the file, one `FILE:LINE: message` a line; nothing was stored."""


def load_suggestions(evaluation, data, filename, by):
    """Store the suggestions of `data` (bytes of a nuggets file); returns (topics, suggestions). Refuses the whole
    file, naming each line, for a qid that is not a topic of the evaluation."""
    if evaluation.track != TRACK:
        raise SuggestionError(f"{evaluation.slug} is a {evaluation.track} evaluation, not a TREC RAG one")
    problems, records = read_nuggets(data, filename)
    if problems:
        raise SuggestionError("\n".join(p.format(filename) for p in problems))
    with transaction.atomic():
        found = {
            t.ident: t
            for t in Topic.objects.select_for_update(no_key=True, of=("self",)).filter(
                evaluation=evaluation, ident__in=[r.qid for r in records]
            )
        }
        missing = [
            f"{filename}:{r.line}: {evaluation.slug} has no topic {r.qid!r}" for r in records if r.qid not in found
        ]
        if missing:
            raise SuggestionError("\n".join(missing))
        count = 0
        for r in records:
            topic = found[r.qid]
            topic.data = dict(
                topic.data or {}, **{SUGGESTIONS: [{"text": n.text, "importance": n.importance} for n in r.nuggets]}
            )
            topic.save(update_fields=["data"])
            count += len(r.nuggets)
        audit.record(
            by,
            "rag.suggestions",
            evaluation.slug,
            after={"file": filename, "topics": [r.qid for r in records], "suggestions": count},
        )
    return len(records), count
