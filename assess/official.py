"""Which judgment counts, read in bulk for scoring. The contract between judging (assess) and scoring.

For each subject (pool item or nugget) and kind, the official value is the adjudicator's decision when there is
one, else the primary assessor's judgment. Second assessors' judgments count only through adjudication.

Values by kind (see assess.models.Judgment):
- "instance":     {"label": <one of the track's instance labels>, "answer_class": <AnswerClass id or None>}
- "nugget_match": {"nuggets": [<Nugget id>, ...]}        subject: a pool item
- "nugget_vote":  {"vote": "vital" | "okay"}             subject: a nugget; one row per voter (role tells whose)
- "citation":     {"rel": "yes"|"maybe"|"no", "trans": ..., "chksrc": bool, "relspans": [[start, length], ...]}
"""
from assess.models import Judgment

_PRECEDENCE = {Judgment.ADJUDICATED: 2, Judgment.PRIMARY: 1}


def official_values(topic_ids, kind):
    """{subject id: value} for the given topics; subject is the item id, or the nugget id for nugget kinds."""
    best = {}
    rows = Judgment.objects.filter(topic_id__in=list(topic_ids), kind=kind,
                                   role__in=list(_PRECEDENCE)).values_list("item_id", "nugget_id", "role", "value")
    for item_id, nugget_id, role, value in rows:
        subject = item_id if item_id is not None else nugget_id
        rank = _PRECEDENCE[role]
        if subject not in best or rank > best[subject][0]:
            best[subject] = (rank, value)
    return {subject: value for subject, (rank, value) in best.items()}


def nugget_votes(topic_ids):
    """{nugget id: [vote, ...]} with every voter's vital/okay vote (the pyramid's vote sets)."""
    votes = {}
    rows = Judgment.objects.filter(topic_id__in=list(topic_ids), kind="nugget_vote").values_list("nugget_id", "value")
    for nugget_id, value in rows:
        votes.setdefault(nugget_id, []).append(value.get("vote"))
    return votes
