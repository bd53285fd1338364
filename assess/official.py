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

Readings (issue 29): `with reading(source):` makes every function below read other judgments as if they were the
official ones, so a scorer called inside scores the runs under them (scoring.rankings; nothing it returns is
stored as an official Score). `source` is
- "official" (the default): as above;
- "primary": the primary assessors' judgments only (adjudications and second judgments ignored);
- "second": the second assessor's judgment where there is one, else the primary's (adjudications ignored);
- WithoutVoter(assessor id): the official judgments, but the pyramid's vote list without that voter's vote sets
  (the official vital/okay vote stays);
- any object with `rows(topic_ids, kind)` returning (subject id, value) pairs in the shapes above, or None for
  "this source has none of this kind: read the official ones" (scoring.set_reading, scoring.robustness's fills);
  it may also offer `fields(topic_ids, kind, keys)`, official_fields' answer pulled out by the database, or None.
Assisted judging (issue 30, docs/assist.md): with the evaluation setting `assist_official` = "pre_reveal", a
primary judgment made under *reveal after* and revised after the suggestion was shown reads, wherever this module
reads a primary judgment, as its value from before the showing (the JudgmentChange of that version); off by default
("revised": the judgment as it stands, as without assistance). `pre_reveal_values` finds them.

Under "primary" and "second" the nugget votes (the official vital/okay vote and the pyramid's vote list) stay the
official ones: those readings vary the item judgments, WithoutVoter varies the pyramid.
"""

import json
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from assess.models import Judgment, JudgmentChange, SuggestionShown
from pooling.models import Evaluation, Topic

_PRECEDENCE = {Judgment.ADJUDICATED: 2, Judgment.PRIMARY: 1}
# TIES: two judgments of the same rank on one subject (two adjudicators' decisions stored before
# assess.judging.claim_decision refused the second) resolve to the one stored last (the higher id), the same on
# every reading, without asking the database to sort tens of thousands of rows.

VOTE, REVOTE = "nugget_vote", "nugget_revote"
VOTE_KINDS = (VOTE, REVOTE)  # every vote set of the pyramid


OFFICIAL, PRIMARY_ONLY, SECOND = "official", "primary", "second"
_SOURCE = ContextVar("assess_official_source", default=OFFICIAL)
_ROLE_PRECEDENCE = {
    PRIMARY_ONLY: {Judgment.PRIMARY: 1},
    SECOND: {Judgment.SECONDARY: 2, Judgment.PRIMARY: 1},
}


@dataclass(frozen=True)
class WithoutVoter:
    """The official judgments with one voter's vital/okay vote sets left out of the pyramid's vote list."""

    assessor_id: int


@contextmanager
def reading(source):
    """Within the block, this module's functions read `source` (see the module's docstring) as the official
    judgments. A context variable: other threads and tasks keep their own reading."""
    if not (source in (OFFICIAL, PRIMARY_ONLY, SECOND) or isinstance(source, WithoutVoter) or hasattr(source, "rows")):
        raise ValueError(f"unknown judgment source {source!r}")
    token = _SOURCE.set(source)
    try:
        yield source
    finally:
        _SOURCE.reset(token)


def current_source():
    return _SOURCE.get()


ASSIST_OFFICIAL, REVISED, PRE_REVEAL = "assist_official", "revised", "pre_reveal"


def pre_reveal_values(topic_ids, kinds):
    """{judgment id: value before the suggestion was shown} of the primary judgments of `kinds` on the topics
    whose evaluation makes the pre-reveal value official (setting assist_official) and that were revised after a
    *reveal after* suggestion was shown to their assessor. {} when no evaluation of the topics has it on (one
    query)."""
    topic_ids = list(topic_ids)
    # Every rescoring reads through here: the usual answer (no evaluation has it on) costs one query of the small
    # evaluation table, not a join to the topics (benchmarks/assist_official.py). No track declares the setting,
    # so the evaluation's own settings are all there is to read.
    on = list(Evaluation.objects.filter(settings__assist_official=PRE_REVEAL).values_list("pk", flat=True))
    if not on:
        return {}
    line = {}  # (assessor, item, kind): the assessor's judgment version when the suggestion was first shown
    shown = (
        SuggestionShown.objects.filter(
            condition="reveal_after",
            judgment_version__gt=0,
            item__topic_id__in=topic_ids,
            item__evaluation_id__in=on,
            suggestion__kind__in=list(kinds),
        )
        .order_by("id")
        .values_list("assessor_id", "item_id", "suggestion__kind", "judgment_version")
    )
    for assessor, item, kind, version in shown:
        line.setdefault((assessor, item, kind), version)
    if not line:
        return {}
    revised = {
        pk: line[(assessor, item, kind)]
        for pk, assessor, item, kind, version in Judgment.objects.filter(
            item_id__in={item for _, item, _ in line}, kind__in=list(kinds), role=Judgment.PRIMARY
        ).values_list("id", "assessor_id", "item_id", "kind", "version")
        if (assessor, item, kind) in line and version > line[(assessor, item, kind)]
    }
    found = JudgmentChange.objects.filter(judgment_id__in=list(revised)).values_list("judgment_id", "version", "after")
    return {pk: after for pk, version, after in found if revised[pk] == version}


def _by_precedence(topic_ids, kinds, precedence):
    """{subject: value} of the judgments of `kinds` whose role is in `precedence`, the highest (then latest) one."""
    best = {}
    earlier = pre_reveal_values(topic_ids, kinds)
    rows = (
        Judgment.objects.filter(topic_id__in=list(topic_ids), kind__in=list(kinds), role__in=list(precedence))
        .order_by()
        .values_list("id", "item_id", "nugget_id", "role", "value")
    )
    for pk, item_id, nugget_id, role, value in rows:
        subject = item_id if item_id is not None else nugget_id
        rank = (precedence[role], pk)  # see TIES
        if subject not in best or rank > best[subject][0]:
            best[subject] = (rank, earlier.get(pk, value))
    return {subject: value for subject, (rank, value) in best.items()}


def values_under(source, topic_ids, kind):
    """{subject id: value} of `kind` as `source` reads it (official_values under reading(source)); for a
    source object that sources the kind, its rows as they are (a later row of a subject wins)."""
    if isinstance(source, str) and source in _ROLE_PRECEDENCE:
        return _by_precedence(topic_ids, (kind,), _ROLE_PRECEDENCE[source])
    if hasattr(source, "rows"):
        rows = source.rows(topic_ids, kind)
        if rows is not None:
            return dict(rows)
    return _by_precedence(topic_ids, (kind,), _PRECEDENCE)


def as_text(value):
    """A JSON value as the database's ->> gives it (official_fields): text as is, anything else as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


def key_texts(queryset, fields, keys):
    """queryset.values_list(*fields, then each of `keys` of its jsonb `value` as text), as PostgreSQL's ->> gives
    it (as_text): pulled out by the database there. Elsewhere (the demo's SQLite) the values are read and the keys
    taken in Python: SQLite's JSON functions give a JSON null as 'null' and a number as a number."""
    from django.db import connection
    from django.db.models.fields.json import KT

    if connection.vendor == "postgresql":
        names = {f"k{i}": KT(f"value__{key}") for i, key in enumerate(keys)}
        return list(queryset.annotate(**names).values_list(*fields, *names))
    return [
        (*row, *(as_text(value.get(key)) if isinstance(value, dict) else None for key in keys))
        for *row, value in queryset.values_list(*fields, "value")
    ]


def official_values(topic_ids, kind):
    """{subject id: value} for the given topics; subject is the item id, or the nugget id for nugget kinds."""
    source = _SOURCE.get()
    if source != OFFICIAL and not isinstance(source, WithoutVoter):  # (which changes only the votes)
        return values_under(source, topic_ids, kind)
    best = {}
    earlier = pre_reveal_values(topic_ids, (kind,))
    rows = (
        Judgment.objects.filter(topic_id__in=list(topic_ids), kind=kind, role__in=list(_PRECEDENCE))
        .order_by()
        .values_list("id", "item_id", "nugget_id", "role", "value")
    )
    for pk, item_id, nugget_id, role, value in rows:
        subject = item_id if item_id is not None else nugget_id
        rank = (_PRECEDENCE[role], pk)  # see TIES
        if subject not in best or rank > best[subject][0]:
            best[subject] = (rank, earlier.get(pk, value))
    return {subject: value for subject, (rank, value) in best.items()}


def nugget_votes(topic_ids):
    """{nugget id: [vote, ...]} with every vote set's vital/okay vote (the pyramid's vote sets: every voter's
    vote and the primary's later vote)."""
    if _SOURCE.get() != OFFICIAL:
        return nugget_vote_sets(topic_ids)[1]
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
    source = _SOURCE.get()
    precedence = _PRECEDENCE
    if isinstance(source, str) and source in _ROLE_PRECEDENCE:
        precedence = _ROLE_PRECEDENCE[source]
    elif hasattr(source, "rows"):
        # a source's own fields where it offers them (pulled out by the database too), else its values
        found = source.fields(topic_ids, kind, keys) if hasattr(source, "fields") else None
        if found is not None:
            return found
        rows = source.rows(topic_ids, kind)
        if rows is not None:
            return {subject: tuple(as_text(value.get(key)) for key in keys) for subject, value in dict(rows).items()}
    # (WithoutVoter changes only the votes: the official fields)
    rows = key_texts(
        Judgment.objects.filter(topic_id__in=list(topic_ids), kind=kind, role__in=list(precedence)).order_by(),
        ("id", "item_id", "nugget_id", "role"),
        keys,
    )
    best = {}
    earlier = pre_reveal_values(topic_ids, (kind,))
    for pk, item_id, nugget_id, role, *fields in rows:
        subject = item_id if item_id is not None else nugget_id
        rank = (precedence[role], pk)  # see TIES
        if subject not in best or rank > best[subject][0]:
            fields = tuple(as_text(earlier[pk].get(key)) for key in keys) if pk in earlier else tuple(fields)
            best[subject] = (rank, fields)
    return {subject: fields for subject, (rank, fields) in best.items()}


def nugget_vote_sets(topic_ids):
    """Both readings of the nugget votes in one query: ({nugget id: official vote}, {nugget id: [every vote]}),
    i.e. official_values(topic_ids, "nugget_vote") reduced to the vote, and nugget_votes(topic_ids)."""
    source = _SOURCE.get()
    if source != OFFICIAL:
        return _vote_sets_under(source, topic_ids)
    official, votes = {}, {}
    rows = key_texts(
        Judgment.objects.filter(topic_id__in=list(topic_ids), kind__in=VOTE_KINDS).order_by(),
        ("id", "nugget_id", "kind", "role"),
        ("vote",),
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


def _vote_sets_under(source, topic_ids):
    """nugget_vote_sets under a reading other than the official one (see the module's docstring)."""
    if hasattr(source, "rows"):
        first = source.rows(topic_ids, VOTE)
        if first is not None:  # the source's own votes: its first vote is the official one
            later = source.rows(topic_ids, REVOTE) or ()
            official, votes = {}, {}
            for nugget_id, value in first:
                official[nugget_id] = value.get("vote")
                votes.setdefault(nugget_id, []).append(value.get("vote"))
            for nugget_id, value in later:
                votes.setdefault(nugget_id, []).append(value.get("vote"))
            return official, votes
    with reading(OFFICIAL):
        official, votes = nugget_vote_sets(topic_ids)
    if isinstance(source, WithoutVoter):
        votes = {}
        rows = (
            Judgment.objects.filter(topic_id__in=list(topic_ids), kind__in=VOTE_KINDS)
            .exclude(assessor_id=source.assessor_id)
            .order_by()
            .values_list("nugget_id", "value")
        )
        for nugget_id, value in rows:
            votes.setdefault(nugget_id, []).append(value.get("vote"))
    return official, votes


def official_by_subject(evaluation_id, kinds):
    """{(kind, subject id): (topic id, value)} of the official judgments of `kinds` in the evaluation (what a
    judgment set is compared with to find the topics where its reading differs)."""
    best = {}
    earlier = pre_reveal_values(Topic.objects.filter(evaluation_id=evaluation_id).values_list("pk", flat=True), kinds)
    rows = (
        Judgment.objects.filter(evaluation_id=evaluation_id, kind__in=list(kinds), role__in=list(_PRECEDENCE))
        .order_by()
        .values_list("id", "kind", "topic_id", "item_id", "nugget_id", "role", "value")
    )
    for pk, kind, topic_id, item_id, nugget_id, role, value in rows:
        key = (kind, item_id if item_id is not None else nugget_id)
        rank = (_PRECEDENCE[role], pk)  # see TIES
        if key not in best or rank > best[key][0]:
            best[key] = (rank, (topic_id, earlier.get(pk, value)))
    return {key: found for key, (rank, found) in best.items()}


def topics_judged_by(evaluation_id, *, roles=(), assessor_id=None, kinds=None, exclude_kinds=()):
    """The topics holding a judgment of one of `roles` (or by `assessor_id`), of `kinds` (None: any) but not of
    `exclude_kinds`: where a reading other than the official one can differ from it."""
    found = Judgment.objects.filter(evaluation_id=evaluation_id).exclude(kind__in=list(exclude_kinds))
    if roles:
        found = found.filter(role__in=list(roles))
    if assessor_id is not None:
        found = found.filter(assessor_id=assessor_id)
    if kinds is not None:
        found = found.filter(kind__in=list(kinds))
    return set(found.order_by().values_list("topic_id", flat=True).distinct())


def voters(topic_ids):
    """The assessor ids who cast a vital/okay vote on the topics' nuggets (the pyramid's voters)."""
    return sorted(
        set(
            Judgment.objects.filter(topic_id__in=list(topic_ids), kind__in=VOTE_KINDS)
            .order_by()
            .values_list("assessor_id", flat=True)
        )
    )
