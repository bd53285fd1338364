"""How robust each run's rank is (issue 29, deliverable 4): its headline score and rank under the primary-only,
second-only and adjudicated (official) judgments and, for nugget questions, under the pyramid weights of every
voter but one; the run's rank interval over all of them; and bounds for unjudged items.

Bounds: the run's headline score if every unjudged pool item were judged the worst its kind allows, and if every
one were judged the best (JudgmentKind.bounds, declared by each track), beside the current score and the judged
share. Both worlds fill every unjudged item of the evaluation at once, not one run's only: where a run's score also
depends on other runs' items (a list question's final answer set, BioGen's document recall), the bound is that
world's score. Items no pool holds yet (answers of runs loaded after the pools were built) are not filled. When
judging is complete nothing is filled and both bounds are the score.
"""

from collections import defaultdict

from assess.models import Nugget
from assess.official import (
    OFFICIAL,
    PRIMARY_ONLY,
    SECOND,
    WithoutVoter,
    as_text,
    official_fields,
    reading,
    values_under,
    voters,
)
from pooling.models import PoolItem, Topic

WORST, BEST = 0, 1


class Filled:
    """A reading (assess.official.reading) of the official judgments with every unjudged pool item of a bounded kind
    judged its worst (WORST) or best (BEST) value. `filled` counts the items it fills, `topics` holds their topics
    (elsewhere the reading is the official one)."""

    def __init__(self, evaluation, which):
        track = evaluation.track_spec
        bounded = {k.name: k.bounds for k in track.kinds if k.bounds is not None}
        # kinds whose values hold nuggets (QA's matches, TREC RAG's assignments) get their topic's nugget ids
        with_nuggets = {k.name for k in track.kinds if isinstance(k.shape, dict) and "nuggets" in k.shape}
        self.fills = defaultdict(dict)  # (kind, topic id) -> {item id: value}
        by_kind = defaultdict(list)
        for tid, topic_kind in Topic.objects.filter(evaluation=evaluation).order_by().values_list("id", "kind"):
            kind = track.done_kinds.get((topic_kind or "").upper())
            if kind in bounded:
                by_kind[kind].append(tid)
        for kind, topics in by_kind.items():
            with reading(OFFICIAL):
                judged = official_fields(topics, kind)  # (no field: which subjects are judged)
            nuggets = defaultdict(list)
            if kind in with_nuggets:
                for nid, tid in Nugget.objects.filter(topic_id__in=topics).order_by().values_list("id", "topic_id"):
                    nuggets[tid].append(nid)
            items = PoolItem.objects.filter(topic_id__in=topics).order_by()
            for pk, tid, data in items.values_list("id", "topic_id", "data"):
                if pk not in judged:
                    pair = bounded[kind](data or {}, tuple(nuggets[tid]))
                    if pair is not None:
                        self.fills[(kind, tid)][pk] = pair[which]
        self.filled = sum(len(f) for f in self.fills.values())
        self.topics = {tid for _, tid in self.fills}

    def fields(self, topic_ids, kind, keys):
        """assess.official.official_fields under this reading: the official fields, the fills' beside them."""
        wanted = [tid for tid in topic_ids if (kind, tid) in self.fills]
        if not wanted:
            return None
        with reading(OFFICIAL):
            out = official_fields(topic_ids, kind, *keys)
        for tid in wanted:
            for item, value in self.fills[(kind, tid)].items():
                out[item] = tuple(as_text(value.get(key)) for key in keys)
        return out

    def rows(self, topic_ids, kind):
        wanted = [tid for tid in topic_ids if (kind, tid) in self.fills]
        if not wanted:
            return None
        values = values_under(OFFICIAL, topic_ids, kind)
        for tid in wanted:
            values.update(self.fills[(kind, tid)])
        return list(values.items())


def readings_for_robustness(evaluation, voter_names):
    """[(key, label, source)]: official, primary-only, second-only, then one per pyramid voter left out."""
    out = [
        ("official", "Adjudicated (official)", OFFICIAL),
        ("primary", "Primary assessors only", PRIMARY_ONLY),
        ("second", "Second assessors (else primary)", SECOND),
    ]
    questions = list(Topic.objects.filter(evaluation=evaluation).exclude(kind="series").values_list("id", flat=True))
    found = voters(questions)
    if len(found) > 1:  # with one voter, leaving them out leaves no pyramid
        for assessor_id in found:
            name = voter_names.get(assessor_id, f"#{assessor_id}")
            out.append((f"without:{assessor_id}", f"Pyramid without {name}'s votes", WithoutVoter(assessor_id)))
    return out
