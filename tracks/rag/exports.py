"""TREC RAG's nuggets and nugget assignments in nuggetizer's JSON Lines shapes (scoring/formats/nuggetizer.py):

- nuggets: one line per topic, its nuggets in list order with their official importance (vital|okay); the query
  is the topic's text;
- assignments: one line per (topic with nuggets, answer run), runs by tag, each nugget with its official
  assignment (support, partial_support, not_support; a nugget the answer was not assigned yet is left out, a
  topic the run did not answer supports none, as nuggetizer assigns a missing answer); answer_text is the
  answer's sentences joined by a space, response_length its words.
"""

import json

from assess.official import official_values
from pooling.formats.base import ParsedEntry
from pooling.models import PoolItem, Run, RunEntry, Topic
from scoring.formats.nuggetizer import Assigned, Assignments, Nuggets, write_assignments, write_nuggets
from scoring.formats.nuggetizer import Nugget as NuggetOut
from scoring.registry import Export
from tracks.rag.formats.runs import pool_key
from tracks.rag.labels import KIND
from tracks.rag.scorer import topic_nuggets


def _topics(evaluation):
    return list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))


def _texts(tids):
    from assess.models import Nugget

    return dict(Nugget.objects.filter(topic_id__in=tids).values_list("id", "text"))


def nuggetizer_nuggets(evaluation):
    topics = _topics(evaluation)
    tids = [t.pk for t in topics]
    nuggets, texts = topic_nuggets(tids), _texts(tids)
    return write_nuggets(
        Nuggets(t.ident, t.text, tuple(NuggetOut(texts[int(nid)], imp) for nid, imp in nuggets[t.pk])) for t in topics
    )


def nuggetizer_assignments(evaluation):
    topics = _topics(evaluation)
    tids = [t.pk for t in topics]
    nuggets, texts = topic_nuggets(tids), _texts(tids)
    items = {
        (tid, key): pk
        for pk, tid, key in PoolItem.objects.filter(topic_id__in=tids).values_list("id", "topic_id", "key")
    }
    official = official_values(tids, KIND)
    answers = {}
    for run_id, tid, docid, text, data in RunEntry.objects.filter(
        run__evaluation=evaluation, topic_id__in=tids, data__kind="answer"
    ).values_list("run_id", "topic_id", "docid", "text", "data"):
        key = pool_key(ParsedEntry("", 0, docid=docid, text=text, data=data))
        answers[(run_id, tid)] = (text, (official.get(items.get((tid, key))) or {}).get("nuggets") or {})
    records = []
    for run_id, tag, data in Run.objects.filter(evaluation=evaluation).order_by("tag").values_list("id", "tag", "data"):
        if (data or {}).get("shape") == "retrieval":
            continue
        for t in topics:
            if not nuggets[t.pk]:
                continue
            text, held = answers.get((run_id, t.pk), ("", {}))
            given = tuple(
                Assigned(texts[int(nid)], imp, held.get(nid) or "not_support")
                for nid, imp in nuggets[t.pk]
                if text == "" or nid in held
            )
            records.append(Assignments(t.ident, t.text, tag, text, len(text.split()), given))
    return write_assignments(records)


def run_of_assignment(line):
    """The run an assignments line names (scoring.team_downloads keeps a team's own)."""
    return json.loads(line)["run_id"]


EXPORTS = (
    Export("nuggetizer-nuggets", "nuggets (nuggetizer)", nuggetizer_nuggets, run_of=lambda line: None, ext="jsonl"),
    Export(
        "nuggetizer-assignments",
        "nugget assignments (nuggetizer)",
        nuggetizer_assignments,
        run_of=run_of_assignment,
        ext="jsonl",
    ),
)
