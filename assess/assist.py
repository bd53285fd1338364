"""Assisted judging as a controlled condition (issue 30; docs/assist.md): the design (conditions drawn per item
or per topic from a recorded seed), the suggestions (loaded from files here, from a model server by
assess.assist_client), and the one rule of what an assessor may see:

- only the primary assessor of an item is ever shown a suggestion (second assessors and adjudicators judge
  unassisted: they are the human reference);
- *none*: never; *suggest first*: from the start; *reveal after*: only once that assessor has saved a judgment
  of that kind on that item (checked by the server each time it renders, so nothing is sent earlier);
- the first time the server sends a suggestion to an assessor, a SuggestionShown row says when: a judgment saved
  after it was made with the suggestion visible, and the value before it is the assessor's own.

The judging pages include the panel (assess/templatetags/assist.py), which asks `visible` here; the API asks the
same function. Nothing here is on the save path: saves go through assess.judging unchanged.
"""

import random
import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from assess.formats import suggestion_files as files
from assess.kinds import declared_kinds, problems
from assess.models import (
    Assignment,
    AssistCondition,
    AssistDesign,
    Judgment,
    Nugget,
    Suggestion,
    SuggestionShown,
)
from core import audit
from core import extension_points as ep
from pooling.evaluations import LoadError
from pooling.models import PoolItem, Topic

NONE, REVEAL_AFTER, SUGGEST_FIRST = AssistCondition.NONE, AssistCondition.REVEAL_AFTER, AssistCondition.SUGGEST_FIRST
CONDITIONS = (NONE, REVEAL_AFTER, SUGGEST_FIRST)


class AssistError(LoadError):
    """A refused design or suggestion file; `problems` name what is wrong and where."""


# --- the design ---------------------------------------------------------------------------------------------------


def draw(units, conditions, seed):
    """{unit: condition}: the units (ids) in a balanced random order from `seed` — sorted, shuffled by
    random.Random(seed), then dealt out to the conditions in turn, so the groups differ in size by at most one.
    The same units, conditions and seed always give the same split."""
    order = sorted(units)
    random.Random(seed).shuffle(order)
    return {unit: conditions[n % len(conditions)] for n, unit in enumerate(order)}


def _units(evaluation, unit):
    items = list(PoolItem.objects.filter(evaluation=evaluation).values_list("pk", "topic_id", "topic__parent_id"))
    if unit == AssistDesign.ITEM:
        return {pk: pk for pk, _, _ in items}
    return {pk: parent or topic for pk, topic, parent in items}  # a QA question's series is its topic


def set_design(evaluation, *, unit, conditions, seed=None, by=None):
    """Draw the conditions of every pool item and record the design with its seed (a new random seed if none is
    given). Refused once any judgment of the evaluation exists: a design changed mid-judging could not be
    defended. Returns the AssistDesign."""
    conditions = list(dict.fromkeys(conditions))
    bad = [c for c in conditions if c not in CONDITIONS]
    if bad or not conditions:
        raise AssistError([f"conditions must be some of {', '.join(CONDITIONS)}, not {', '.join(bad) or 'none'}"])
    if unit not in (AssistDesign.ITEM, AssistDesign.TOPIC):
        raise AssistError([f"unit must be 'item' or 'topic', not {unit!r}"])
    if seed is None:
        seed = secrets.randbits(48)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise AssistError([f"seed must be a whole number from 0 to 2**63-1, not {seed!r}"])
    with transaction.atomic():
        if Judgment.objects.filter(evaluation=evaluation).exists():
            raise AssistError(
                [f"{evaluation.slug} has judgments already: the conditions are drawn before judging starts"]
            )
        units = _units(evaluation, unit)
        split = draw(set(units.values()), conditions, seed)
        AssistDesign.objects.filter(evaluation=evaluation).delete()
        AssistCondition.objects.filter(evaluation=evaluation).delete()
        design = AssistDesign.objects.create(
            evaluation=evaluation,
            unit=unit,
            conditions=conditions,
            seed=seed,
            topics=_topic_split(evaluation, unit, split, conditions, seed),
            created_by=by,
        )
        AssistCondition.objects.bulk_create(
            AssistCondition(evaluation=evaluation, item_id=item, condition=split[u]) for item, u in units.items()
        )
        audit.record(
            by, "assist design set", evaluation.slug, after={"unit": unit, "conditions": conditions, "seed": seed}
        )
    return design


def _topic_split(evaluation, unit, split, conditions, seed):
    """{topic ident: condition} of the work done per topic (a nugget list built from machine proposals). Per
    topic: the condition its items were drawn (a question: its series'); a topic without items has nothing to
    propose from (none). Per item: the topics that hold items of their own (not a QA series) drawn in turn with
    the same seed, so a topic's list is an experimental unit of its own."""
    topics = list(Topic.objects.filter(evaluation=evaluation).values_list("pk", "ident", "parent_id"))
    if unit == AssistDesign.TOPIC:
        return {ident: split.get(parent or pk, NONE) for pk, ident, parent in topics}
    parents = {parent for _, _, parent in topics if parent}
    leaves = draw({pk for pk, _, _ in topics if pk not in parents}, conditions, seed)
    return {ident: leaves.get(pk, NONE) for pk, ident, _ in topics}


def topic_condition(topic):
    """The condition of a topic's own work (its nugget list): none without a design or for a topic drawn none."""
    design = AssistDesign.objects.filter(evaluation_id=topic.evaluation_id).values_list("topics", flat=True).first()
    return (design or {}).get(topic.ident, NONE)


def condition_of(item):
    """The item's condition (an item the draw did not see, e.g. one an assessor found later: none)."""
    found = AssistCondition.objects.filter(item_id=item.pk).values_list("condition", flat=True).first()
    return found or NONE


def split_counts(evaluation):
    """{condition: items} of the evaluation's draw."""
    out = dict.fromkeys(CONDITIONS, 0)
    for condition in AssistCondition.objects.filter(evaluation=evaluation).values_list("condition", flat=True):
        out[condition] += 1
    return out


# --- what an assessor may see -------------------------------------------------------------------------------------


@dataclass
class Visible:
    condition: str
    state: str  # "off" (nothing to show, ever), "waiting" (reveal after: after the first save), "shown"
    suggestion: Suggestion | None = None  # only when state is "shown"
    shown_at: object = None  # when the server first sent it to this assessor
    shown_version: int = 0  # the version of the assessor's judgment then (0: none): later versions saw it


def current_suggestion(item, kind):
    """The newest good suggestion of `kind` for the item (error rows never count)."""
    return Suggestion.objects.filter(item_id=item.pk, kind=kind, error="").order_by("-id").first()


def visible(user, item, kind):
    """What `user` may see of the machine suggestion for `kind` on `item`, and, if it is shown now, the record of
    its first showing. The only gate: pages, panel and API all ask here."""
    condition = condition_of(item)
    if condition == NONE:
        return Visible(condition, "off")
    primary = Assignment.objects.filter(
        assessor=user, role=Assignment.PRIMARY, topic_id__in={item.topic_id, item.topic.parent_id or item.topic_id}
    ).exists()
    if not primary:
        return Visible(condition, "off")
    suggestion = current_suggestion(item, kind)
    if suggestion is None:
        return Visible(condition, "off")
    if condition == REVEAL_AFTER and not Judgment.objects.filter(item_id=item.pk, kind=kind, assessor=user).exists():
        return Visible(condition, "waiting")
    row = _mark_shown(user, item, kind, suggestion, condition)
    return Visible(condition, "shown", suggestion, row.at, row.judgment_version)


def _mark_shown(user, item, kind, suggestion, condition):
    """The assessor's first showing of any suggestion of this kind on this item (a newer suggestion shown later
    gets its own row, but the line stays at the first)."""
    rows = SuggestionShown.objects.filter(assessor=user, item_id=item.pk, suggestion__kind=kind).order_by("id")
    first = rows.first()
    if not rows.filter(suggestion=suggestion).exists():
        version = (
            Judgment.objects.filter(item_id=item.pk, kind=kind, assessor=user).values_list("version", flat=True).first()
        )
        try:
            with transaction.atomic():
                made = SuggestionShown.objects.create(
                    suggestion=suggestion,
                    assessor=user,
                    item_id=item.pk,
                    condition=condition,
                    judgment_version=version or 0,
                )
        except IntegrityError:  # two requests at once: the first row stands
            made = None
        first = first or made or rows.first()
    return first


def shown_versions(item):
    """{(assessor id, kind): version of their judgment when a suggestion was first shown} for one item: the
    versions after it were saved with the suggestion visible (the history marks them)."""
    out = {}
    for row in SuggestionShown.objects.filter(item_id=item.pk).select_related("suggestion").order_by("id"):
        out.setdefault((row.assessor_id, row.suggestion.kind), row.judgment_version)
    return out


# --- values -------------------------------------------------------------------------------------------------------


def label_key(kind):
    """The key of a kind's value that holds its label ("label", BOLT's "rel"), or None (nugget matches)."""
    declared = declared_kinds().get(kind)
    shape = declared.shape if declared else {}
    return next((k for k in ("label", "rel") if isinstance(shape, dict) and k in shape), None)


def decisive(kind, value):
    """The part of a value that agreement compares: its label, the set of nuggets of a match, else the value."""
    if not isinstance(value, dict):
        return None
    key = label_key(kind)
    if key:
        return value.get(key)
    if "nuggets" in value:
        return tuple(sorted(value["nuggets"]))
    return tuple(sorted((k, repr(v)) for k, v in value.items()))


def labels_of(item, kind):
    """The labels a suggestion of `kind` for the item may give: the track's for the item (ep.item_labels) or the
    kind's."""
    track = item.evaluation.track
    by_item = ep.item_labels.get(track)
    return tuple(by_item(item, kind)) if by_item else item.evaluation.track_spec.labels(kind)


def value_problems(evaluation, kind, value, where, labels=None):
    """What is wrong with a suggested value: its keys must be the kind's and fit their shapes (a suggestion may
    give only some of them, its label at least), its label one of `labels` (default: the track's for the kind)."""
    declared = declared_kinds().get(kind)
    if declared is None or kind not in evaluation.track_spec.judgment_kinds:
        return [f"{where}: {evaluation.track} has no judgment kind {kind!r}"]
    shape = declared.shape
    if not isinstance(value, dict) or not value:
        return [f"{where}: the value must be a non-empty object"]
    found = [f"{where}: {kind} has no field {k!r}" for k in value if k not in shape]
    found += [f"{where}: {p}" for k, v in value.items() if k in shape for p in problems(v, shape[k], f"value.{k}")]
    key = label_key(kind)
    if key and key not in value:
        found.append(f"{where}: the value must give its {key!r}")
    labels = labels if labels is not None else evaluation.track_spec.labels(kind)
    if key and labels and key in value and value[key] not in labels:
        found.append(f"{where}: {value[key]!r} is not a label of {kind} ({', '.join(labels)})")
    return found


# --- suggestions from files ---------------------------------------------------------------------------------------

FORMATS = ("jsonl", "qrels", "nuggetizer")


def read_file(fmt, data, filename, grades=None):
    """The records of a suggestion file (assess.formats.suggestion_files); AssistError with its problems."""
    try:
        if fmt == "jsonl":
            return files.parse_jsonl(data, filename)
        if fmt == "qrels":
            if not grades:
                raise files.SuggestionFileError(["qrels need a grade mapping, e.g. 0=no,1=maybe,2=yes"])
            return files.parse_qrels(data, filename, grades)
        if fmt == "nuggetizer":
            return files.parse_nuggetizer_assignments(data, filename)
    except files.SuggestionFileError as e:
        raise AssistError(e.problems) from None
    raise AssistError([f"format must be one of {', '.join(FORMATS)}, not {fmt!r}"])


def load_suggestions(evaluation, fmt, data, filename, *, kind=None, grades=None, by=None):
    """Store the suggestions of a file, all or none: every line must name a topic and item of the evaluation and
    give a value that fits its kind (AssistError lists every problem, with file and line). `kind` is the kind of
    a qrels file's labels. Returns the stored Suggestions."""
    records = read_file(fmt, data, filename, grades)
    topics = {t.ident: t for t in Topic.objects.filter(evaluation=evaluation)}
    items = list(PoolItem.objects.filter(evaluation=evaluation).select_related("topic", "evaluation"))
    by_topic = {}
    for item in items:
        by_topic.setdefault(item.topic_id, []).append(item)
    found, rows = [], []
    for record in records:
        where = f"{filename}:{record.line}"
        topic = topics.get(record.topic)
        if topic is None:
            found.append(f"{where}: {evaluation.slug} has no topic {record.topic!r}")
            continue
        matches = _items(topic, by_topic, record.subject)
        if not matches:
            name, value = next(iter(record.subject.items()))
            found.append(f"{where}: topic {topic.ident} has no pool item with {name} {value[:80]!r}")
            continue
        record_kind = record.kind or kind
        if len(matches) > 1 and fmt == "qrels" and label_key(kind or ""):
            # a segment may be pooled under several item kinds (TREC RAG: relevance and support): a grade goes to
            # the items whose labels it is
            fitting = [i for i in matches if grades.get(record.grade) in labels_of(i, kind)]
            matches = fitting or matches[:1]  # none fits: the label check below names the problem
        if len(matches) > 1 and "answer_text" not in record.subject:
            found.append(f"{where}: {len(matches)} pool items of topic {topic.ident} match; name it by pool_id or key")
            continue
        if fmt == "qrels":
            if not kind or not label_key(kind):
                found.append(f"{where}: name the labelled judgment kind the qrels' grades are labels of")
                continue
            value = {label_key(kind): grades[record.grade]}
        elif fmt == "nuggetizer":
            value, missing = _nugget_ids(topic, record.nuggets)
            if missing:
                found.append(f"{where}: topic {topic.ident} has no nugget {missing[0][:80]!r}")
                continue
        else:
            value = record.value
        bad = value_problems(evaluation, record_kind, value, where)
        if not bad and label_key(record_kind):  # labels that depend on the item (BioGen's answer, sentence, citation)
            for item in matches:
                bad += value_problems(evaluation, record_kind, value, where, labels_of(item, record_kind))[:1]
        if bad:
            found += bad
            continue
        for item in matches:
            rows.append(
                Suggestion(
                    evaluation=evaluation,
                    topic=item.topic,
                    kind=record_kind,
                    item=item,
                    value=value,
                    rationale=record.rationale,
                    source=Suggestion.FILE,
                    source_name=filename[:300],
                    parameters={
                        "format": fmt,
                        "line": record.line,
                        **({"model": record.model} if record.model else {}),
                    },
                    created_by=by,
                )
            )
    if found:
        raise AssistError(found)
    with transaction.atomic():
        stored = Suggestion.objects.bulk_create(rows)
        audit.record(
            by, "suggestions loaded", evaluation.slug, after={"file": filename, "format": fmt, "rows": len(rows)}
        )
    return stored


def _items(topic, by_topic, subject):
    name, value = next(iter(subject.items()))
    candidates = by_topic.get(topic.pk, []) + [
        i for t in topic.children.all() for i in by_topic.get(t.pk, [])
    ]  # a series names its questions' items too
    if name == "answer_text":
        wanted = Nugget.comparable(value)
        return [i for i in candidates if Nugget.comparable(i.text) == wanted]
    return [i for i in candidates if getattr(i, name) == value]


def _nugget_ids(topic, texts):
    known = {Nugget.comparable(n.text): n.pk for n in Nugget.objects.filter(topic=topic)}
    missing = [t for t in texts if Nugget.comparable(t) not in known]
    return {"nuggets": sorted({known[Nugget.comparable(t)] for t in texts if Nugget.comparable(t) in known})}, missing
