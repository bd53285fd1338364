"""QA's nuggets and nugget matches out in nuggetizer's JSON Lines shapes (scoring/formats/nuggetizer.py; issue 28),
for the Other, squishy-list and ciQA questions; registered beside NIST's formats (tracks/qa/nist_exports.py).

- nuggets: one line per nugget question (an empty list while it has none), its nuggets in the list's order,
  importance the official vote (vital|okay) as in NIST's nugget lists; the query is the question's text, or for
  an Other question (which has none) its series' target.
- assignments: one line per (question with nuggets, run), runs by tag: a nugget is "support" when an answer
  string of that run's response to the question was matched with it, else "not_support" (a run with no response
  supports none, as nuggetizer assigns a missing answer). QA's matches are binary, so "partial_support" is never
  written. answer_text is the response's strings joined by a space (nuggetizer joins a RAG answer's sentences so),
  response_length its number of words.
"""

import json
from collections import defaultdict

from assess.models import Nugget
from assess.official import official_values
from pooling.models import Run
from scoring.formats.nuggetizer import Assigned, Assignments, Nuggets, write_assignments, write_nuggets
from scoring.formats.nuggetizer import Nugget as NuggetOut
from scoring.registry import Export
from tracks.qa.nist_exports import _answers, _questions, _run_entries
from tracks.qa.scorer import NUGGET_TYPES


def _query(question):
    if question.text.strip() or question.parent is None:
        return question.text
    return question.parent.text


def _nugget_lists(evaluation):
    """[(question, [(nugget id, text, importance)])] of the evaluation's nugget questions, in question order."""
    questions = _questions(evaluation, NUGGET_TYPES)
    qids = [q.id for q in questions]
    official = official_values(qids, "nugget_vote")
    by_topic = defaultdict(list)
    for n in Nugget.objects.filter(topic_id__in=qids).order_by("position", "id"):
        by_topic[n.topic_id].append((n.id, n.text, (official.get(n.id) or {}).get("vote") or "okay"))
    return [(q, by_topic[q.id]) for q in questions]


def nuggetizer_nuggets(evaluation):
    lists = _nugget_lists(evaluation)
    return write_nuggets(
        Nuggets(q.ident, _query(q), tuple(NuggetOut(text, vote) for _, text, vote in nuggets)) for q, nuggets in lists
    )


def nuggetizer_assignments(evaluation):
    lists = [(q, nuggets) for q, nuggets in _nugget_lists(evaluation) if nuggets]
    qids = [q.id for q, _ in lists]
    matches = official_values(qids, "nugget_match")
    entries, item_of = _run_entries(qids)
    strings, matched = defaultdict(list), defaultdict(set)
    for e in _answers(entries):
        strings[(e.run_id, e.topic_id)].append(e.text)
        matched[(e.run_id, e.topic_id)].update((matches.get(item_of.get(e.id)) or {}).get("nuggets", ()))
    records = []
    for run_id, tag in Run.objects.filter(evaluation=evaluation).order_by("tag").values_list("id", "tag"):
        for q, nuggets in lists:
            answer = " ".join(strings[(run_id, q.id)])
            held = matched[(run_id, q.id)]
            assigned = tuple(
                Assigned(text, vote, "support" if nid in held else "not_support") for nid, text, vote in nuggets
            )
            records.append(Assignments(q.ident, _query(q), tag, answer, len(answer.split()), assigned))
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
