"""Which judgment counts, read in bulk for scoring. The contract between judging (assess) and scoring.

For each subject (pool item or nugget) and kind, the official value is the adjudicator's decision when there is
one, else the primary assessor's judgment. Second assessors' judgments count only through adjudication.

Values by kind (see assess.models.Judgment):
- "instance":     {"label": <one of the track's instance labels>, "answer_class": <AnswerClass id or None>}
- "nugget_match": {"nuggets": [<Nugget id>, ...]}        subject: a pool item
- "nugget_vote":  {"vote": "vital" | "okay"}             subject: a nugget; one row per voter (role tells whose)
- "nugget_revote": {"vote": "vital" | "okay"}            subject: a nugget; the primary assessor's later vote set,
                  asked for by the organizer (TREC 2006/2007: nine vote sets from eight assessors). It is one more
                  vote set for the pyramid weights, never the official vital/okay (that stays the first vote).
- "citation":     {"rel": "yes"|"maybe"|"no", "trans": ..., "chksrc": bool, "relspans": [[start, length], ...]}
"""

from assess.models import Judgment

_PRECEDENCE = {Judgment.ADJUDICATED: 2, Judgment.PRIMARY: 1}
# TIES: two judgments of the same rank on one subject (two adjudicators' decisions stored before
# assess.judging.claim_decision refused the second) resolve to the one stored last (the higher id), the same on
# every reading, without asking the database to sort tens of thousands of rows.

VOTE, REVOTE = "nugget_vote", "nugget_revote"
VOTE_KINDS = (VOTE, REVOTE)  # every vote set of the pyramid


def official_values(topic_ids, kind):
    """{subject id: value} for the given topics; subject is the item id, or the nugget id for nugget kinds."""
    best = {}
    rows = (
        Judgment.objects.filter(topic_id__in=list(topic_ids), kind=kind, role__in=list(_PRECEDENCE))
        .order_by()
        .values_list("id", "item_id", "nugget_id", "role", "value")
    )
    for pk, item_id, nugget_id, role, value in rows:
        subject = item_id if item_id is not None else nugget_id
        rank = (_PRECEDENCE[role], pk)  # see TIES
        if subject not in best or rank > best[subject][0]:
            best[subject] = (rank, value)
    return {subject: value for subject, (rank, value) in best.items()}


def nugget_votes(topic_ids):
    """{nugget id: [vote, ...]} with every vote set's vital/okay vote (the pyramid's vote sets: every voter's
    vote and the primary's later vote)."""
    votes = {}
    rows = (
        Judgment.objects.filter(topic_id__in=list(topic_ids), kind__in=VOTE_KINDS)
        .order_by()
        .values_list("nugget_id", "value")
    )
    for nugget_id, value in rows:
        votes.setdefault(nugget_id, []).append(value.get("vote"))
    return votes


def official_fields(topic_ids, kind, *keys):
    """official_values in bulk for scoring: {subject id: (value[key] as text or None, ...)} for the given
    top-level keys, pulled out by the database so no JSON is decoded in Python (tens of thousands of
    judgments per rescoring). Same precedence as official_values."""
    from django.db.models.fields.json import KT

    names = {f"k{i}": KT(f"value__{key}") for i, key in enumerate(keys)}
    rows = (
        Judgment.objects.filter(topic_id__in=list(topic_ids), kind=kind, role__in=list(_PRECEDENCE))
        .order_by()
        .annotate(**names)
        .values_list("id", "item_id", "nugget_id", "role", *names)
    )
    best = {}
    for pk, item_id, nugget_id, role, *fields in rows:
        subject = item_id if item_id is not None else nugget_id
        rank = (_PRECEDENCE[role], pk)  # see TIES
        if subject not in best or rank > best[subject][0]:
            best[subject] = (rank, tuple(fields))
    return {subject: fields for subject, (rank, fields) in best.items()}


def nugget_vote_sets(topic_ids):
    """Both readings of the nugget votes in one query: ({nugget id: official vote}, {nugget id: [every vote]}),
    i.e. official_values(topic_ids, "nugget_vote") reduced to the vote, and nugget_votes(topic_ids)."""
    from django.db.models.fields.json import KT

    official, votes = {}, {}
    rows = (
        Judgment.objects.filter(topic_id__in=list(topic_ids), kind__in=VOTE_KINDS)
        .order_by()
        .annotate(vote=KT("value__vote"))
        .values_list("id", "nugget_id", "kind", "role", "vote")
    )
    best = {}
    for pk, nugget_id, kind, role, vote in rows:
        votes.setdefault(nugget_id, []).append(vote)
        # a later vote set never becomes the official one; equal ranks: see TIES
        rank = (_PRECEDENCE[role], pk) if kind == VOTE and role in _PRECEDENCE else None
        if rank is not None and (nugget_id not in best or rank > best[nugget_id]):
            best[nugget_id] = rank
            official[nugget_id] = vote
    return official, votes
