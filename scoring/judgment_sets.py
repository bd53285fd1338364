"""Judgment sets (issue 29): judgments beside the official ones — a machine judge's labels, an external assessor's
qrels, a team's judge run — loaded as a named set with provenance, for any track, compared with the assessors'
(scoring.agreement_store) and read as if they were the judgments (`SetSource`, for assess.official.reading).

A set never writes assess.models.Judgment, never marks a score stale and is never shown to assessors; a team sees
it only once the organizer releases it. Its values become official only through `promote`, an organizer action
saved judgment by judgment through assess.judging.save_judgment (history, stale marks) and audited.

Three file shapes load (docs/formats.md, "Judgment sets"), each all or nothing with every problem as FILE:LINE:
- "qrels": `TOPIC ITERATION DOCNO REL` (scoring.formats.trec.read_qrels), a grade becoming the track's value
  through core.extension_points.judgment_scales, the items it names through core.extension_points.qrels_items;
- "nuggetizer": nuggetizer's assignments (scoring.formats.nuggetizer.read_assignments) for QA's nugget questions;
- "jsonl": Assay's judgment records ({"type": "judgment", "topic", "kind", "item": {"topic", "key"} | "nugget",
  "value"}), so an export_judgments file loads too (its official values: adjudicated over primary, second
  assessors' left out; other record types skipped).
"""

import hashlib
from collections import defaultdict

from django.db import transaction

from assess.kinds import InvalidValue, check_value
from assess.models import Judgment, Nugget
from assess.official import VOTE_KINDS, official_values
from config import safejson
from core import audit
from core import extension_points as ep
from core.label_scales import NUGGETS, scale_for_kind
from pooling.evaluations import LoadError
from pooling.models import PoolItem, RunEntry, Topic
from scoring.formats import nuggetizer, trec
from scoring.models import JudgmentSet, SetJudgment

FORMATS = ("qrels", "nuggetizer", "jsonl")
PROVENANCE_KEYS = ("producer", "model", "prompt", "version", "date", "note")
MAX_PROVENANCE_CHARS = 2000
MAX_FILE_BYTES = 256 << 20  # as config.uploads' "judgments" (the pages and the API check that limit)
MAX_JSONL_DEPTH = 8  # record > value > groups > group > members: deeper is no judgment's value
SET_LOADED, SET_RELEASED, SET_DELETED = "judgment set loaded", "judgment set released", "judgment set deleted"


def scales(evaluation):
    """{kind: LabelScale} the evaluation's track declares (empty: nothing is compared)."""
    declared = ep.judgment_scales.get(evaluation.track)
    return declared() if declared is not None else {}


def clean_provenance(provenance):
    """The provenance kept: the known keys as text, each at most MAX_PROVENANCE_CHARS; anything else refused."""
    provenance = provenance or {}
    unknown = sorted(set(provenance) - set(PROVENANCE_KEYS))
    if unknown:
        raise LoadError([f"provenance: unknown field {unknown[0]!r}; known: {', '.join(PROVENANCE_KEYS)}"])
    kept = {}
    for key in PROVENANCE_KEYS:
        value = provenance.get(key)
        if value in (None, ""):
            continue
        if not isinstance(value, str) or len(value) > MAX_PROVENANCE_CHARS:
            raise LoadError([f"provenance: {key} must be text of at most {MAX_PROVENANCE_CHARS} characters"])
        kept[key] = value.strip()
    return kept


def load_set(evaluation, data, filename, fmt, name, *, by, provenance=None, team=None, origin=JudgmentSet.FILE):
    """Read `data` (bytes of a `fmt` file) into a new judgment set named `name`; returns it. Raises LoadError with
    every problem (FILE:LINE: message) and stores nothing then. Audited; nothing official changes."""
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise LoadError(["a judgment set needs a name of 1 to 100 characters"])
    if fmt not in FORMATS:
        raise LoadError([f"no judgment set format {fmt!r}; choose {', '.join(FORMATS)}"])
    provenance = clean_provenance(provenance)
    if len(data) > MAX_FILE_BYTES:
        raise LoadError([f"{filename}: {len(data):,} bytes, over the limit of {MAX_FILE_BYTES:,}"])
    if JudgmentSet.objects.filter(evaluation=evaluation, name=name).exists():
        raise LoadError([f"{evaluation.slug} already has a judgment set named {name!r}"])
    rows, skipped = READERS[fmt](evaluation, data, filename)
    with transaction.atomic():
        made = JudgmentSet.objects.create(
            evaluation=evaluation,
            name=name,
            origin=origin,
            provenance=provenance,
            team=team,
            created_by=by,
            file_name=filename[:255],
            sha256=hashlib.sha256(data).hexdigest(),
        )
        SetJudgment.objects.bulk_create(
            [
                SetJudgment(judgment_set=made, topic_id=t, kind=k, item_id=i, nugget_id=n, value=v)
                for t, k, i, n, v in rows
            ],
            batch_size=2000,
        )
        audit.record(
            by,
            SET_LOADED,
            f"{evaluation.slug}:{name}",
            after={"format": fmt, "file": filename, "judgments": len(rows), "skipped": skipped, **provenance},
        )
    made.loaded_count, made.skipped = len(rows), skipped
    return made


def _problems(filename, problems):
    return LoadError([p.format(filename) for p in problems])


def _read_qrels(evaluation, data, filename):
    """(rows, skipped lines): one value per pool item a line names; lines of unjudged (-1) or unpooled documents
    are skipped and counted (a machine judge may label documents no run returned)."""
    finding = ep.qrels_items.get(evaluation.track)
    if finding is None:
        raise LoadError([f"{filename}: track {evaluation.track} has no items a qrels file can name"])
    problems, qrels = trec.read_qrels(data, filename)
    if problems:
        raise _problems(filename, problems)
    kind, index = finding(evaluation)
    scale = scale_for_kind(scales(evaluation), kind)  # (TREC RAG: its relevance scale of kind "rag")
    grades = sorted(scale.grades) if scale else []
    topics = set(Topic.objects.filter(evaluation=evaluation).values_list("ident", flat=True))
    bad, rows, seen, skipped = [], {}, {}, 0
    for line, q in _numbered(data, qrels):
        if q.topic not in topics:
            bad.append(f"{filename}:{line}: topic {q.topic} is not a topic of {evaluation.slug}")
            continue
        if q.rel == trec.UNJUDGED:
            skipped += 1
            continue
        value = scale.value_of_grade(q.rel) if scale else None
        if value is not None and (q.topic, q.docno) not in index:
            skipped += 1
            continue
        if value is None:
            bad.append(
                f"{filename}:{line}: grade {q.rel} has no {kind} label in track {evaluation.track} "
                f"(grades: {', '.join(map(str, grades))})"
            )
            continue
        if (q.topic, q.docno) in seen:
            bad.append(
                f"{filename}:{line}: {q.docno} of topic {q.topic} again (first on line {seen[q.topic, q.docno]}); "
                "a set holds one judgment per document: load each judgment group as a set of its own"
            )
            continue
        seen[q.topic, q.docno] = line
        for topic_id, item_id in index[q.topic, q.docno]:
            rows[item_id] = (topic_id, kind, item_id, None, value)
    if bad:
        raise LoadError(bad)
    return list(rows.values()), skipped


def _numbered(data, qrels):
    """(line number, Qrel) pairs: read_qrels keeps the lines' order and skips blank and comment lines."""
    lines = [
        n
        for n, text in enumerate(data.decode("utf-8").splitlines(), start=1)
        if text.split() and not text.split()[0].startswith("#")
    ]
    return zip(lines, qrels, strict=True)


def _assignment_scale(evaluation):
    """(kind, scale) of the track's scale whose values map each nugget to nuggetizer's assignment (TREC RAG's answers),
    or (None, None): the track's nugget judgments are binary matches (QA's nugget_match)."""
    for name, scale in scales(evaluation).items():
        if scale.per_nugget_labels and set(nuggetizer.ASSIGNMENTS) <= set(scale.labels):
            return scale.judged_kind(name), scale
    return None, None


def _read_nuggetizer(evaluation, data, filename):
    """Each (question, run) line's nuggets become, for every pool item of that run's response to the question (an
    item two runs share holds the union), either a nugget_match of the supported nuggets (QA: matches are binary,
    so partial_support is no match, as nuggetizer's Strict scores count it) or, for a track with a scale of
    per-nugget assignments (TREC RAG), the answer's assignment {nugget id: support|partial_support|not_support},
    nuggetizer's three levels kept (partial support the ordinal middle); its importances, nugget_vote judgments on
    the nuggets. Nuggets are found by their text (compared as assess.models.Nugget.comparable)."""
    problems, records = nuggetizer.read_assignments(data, filename)
    if problems:
        raise _problems(filename, problems)
    assign_kind, assign_scale = _assignment_scale(evaluation)
    if assign_scale is None and "nugget_match" not in scales(evaluation):
        raise LoadError([f"{filename}: track {evaluation.track} judges no nugget matches"])
    questions = {t.ident: t for t in Topic.objects.filter(evaluation=evaluation)}
    texts = defaultdict(dict)
    for n in Nugget.objects.filter(topic__evaluation=evaluation):
        texts[n.topic_id].setdefault(Nugget.comparable(n.text), n.id)
    items_of = defaultdict(set)  # (question id, run tag) -> pool item ids
    for item_id, topic_id, tag, key in PoolItem.sources.through.objects.filter(
        poolitem__evaluation=evaluation
    ).values_list("poolitem_id", "poolitem__topic_id", "runentry__run__tag", "poolitem__key"):
        if assign_scale is None or assign_scale.takes(key):
            items_of[topic_id, tag].add(item_id)
    tags = set(RunEntry.objects.filter(run__evaluation=evaluation).values_list("run__tag", flat=True).distinct())
    bad, matches, assigned, votes, skipped = [], defaultdict(set), defaultdict(dict), {}, 0
    for line, rec in records:
        question = questions.get(rec.qid)
        if question is None:
            bad.append(f"{filename}:{line}: qid {rec.qid} is not a question of {evaluation.slug}")
            continue
        if rec.run_id not in tags:
            bad.append(f"{filename}:{line}: run {rec.run_id} is not a run of {evaluation.slug}")
            continue
        supported, held = set(), {}
        for a in rec.nuggets:
            nugget_id = texts[question.id].get(Nugget.comparable(a.text))
            if nugget_id is None:
                bad.append(
                    f"{filename}:{line}: nugget {a.text[:60]!r} is not one of question {rec.qid}'s "
                    "(load the nuggets first: import_nuggets)"
                )
                break
            if a.assignment == "support":  # partial support is not a match: QA's matches are binary
                supported.add(nugget_id)
            held[str(nugget_id)] = a.assignment
            if votes.setdefault(nugget_id, (question.id, a.importance, line))[1] != a.importance:
                bad.append(
                    f"{filename}:{line}: nugget {a.text[:60]!r} is {a.importance} here but "
                    f"{votes[nugget_id][1]} on line {votes[nugget_id][2]}"
                )
        items = items_of.get((question.id, rec.run_id), set())
        if not items:
            skipped += 1  # the run gave no response to this question, so nothing of it is pooled
        for item_id in items:
            matches[item_id, question.id] |= supported
            assigned[item_id, question.id].update(held)
    if bad:
        raise LoadError(bad)
    if assign_scale is not None:
        rows = [
            (q, assign_kind, i, None, assign_scale.template | {NUGGETS: dict(sorted(held.items()))})
            for (i, q), held in assigned.items()
        ]
    else:
        rows = [(q, "nugget_match", i, None, {"nuggets": sorted(n)}) for (i, q), n in matches.items()]
    rows += [(q, "nugget_vote", None, n, {"vote": vote}) for n, (q, vote, _) in votes.items()]
    return rows, skipped


_ROLE_RANK = {Judgment.ADJUDICATED: 2, Judgment.PRIMARY: 1, None: 1}


def _read_jsonl(evaluation, data, filename):
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise LoadError([f"{filename}:0: not UTF-8 text (byte {error.start})"]) from None
    kinds = evaluation.track_spec.judgment_kinds
    items = {
        (ident, key): (pk, tid)
        for pk, tid, ident, key in PoolItem.objects.filter(evaluation=evaluation).values_list(
            "id", "topic_id", "topic__ident", "key"
        )
    }
    nuggets = dict(Nugget.objects.filter(topic__evaluation=evaluation).values_list("id", "topic_id"))
    split = [(s.judged_kind(name), s) for name, s in scales(evaluation).items() if s.items]
    bad, rows, skipped = [], {}, 0
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{filename}:{line}"
        try:
            rec = safejson.loads(raw, max_depth=MAX_JSONL_DEPTH)
        except safejson.JSONDecodeError as error:
            bad.append(f"{where}: not JSON: {error.msg} (column {error.colno})")
            continue
        if not isinstance(rec, dict) or rec.get("type") != "judgment":
            skipped += 1  # a header, an assignment, a search...: the set holds judgments only
            continue
        role = rec.get("role")
        if role == Judgment.SECONDARY:
            skipped += 1
            continue
        if role not in _ROLE_RANK:
            bad.append(f"{where}: unknown role {role!r}")
            continue
        kind = rec.get("kind")
        if kind not in kinds:
            bad.append(f"{where}: judgment kind {kind!r} is not one of track {evaluation.track}'s ({', '.join(kinds)})")
            continue
        subject = rec.get("item")
        if kind in VOTE_KINDS:
            nugget = rec.get("nugget")
            if nugget not in nuggets or isinstance(nugget, bool):
                bad.append(f"{where}: no nugget {nugget!r} in {evaluation.slug}")
                continue
            topic_id, item_id, nugget_id = nuggets[nugget], None, nugget
        else:
            if not isinstance(subject, dict) or (subject.get("topic"), subject.get("key")) not in items:
                bad.append(f'{where}: a {kind} judgment needs an item {{"topic", "key"}} pooled in {evaluation.slug}')
                continue
            (item_id, topic_id), nugget_id = items[subject["topic"], subject["key"]], None
        value = rec.get("value")
        try:
            check_value(kind, value)
        except InvalidValue as error:
            bad.append(f"{where}: {error}")
            continue
        if isinstance(value, dict) and NUGGETS in value and any(nuggets.get(n) != topic_id for n in _ids(value)):
            bad.append(f"{where}: a nugget of this judgment is not one of its question's")
            continue
        scale = next((s for k, s in split if k == kind and s.takes(subject["key"])), None) if item_id else None
        if scale is not None and scale.key != NUGGETS and scale.label(value) not in scale.labels:
            # (a kind holding several scales: the label must be one of this item's, e.g. a grade for a segment)
            allowed = ", ".join(scale.labels)
            bad.append(f"{where}: {scale.label(value)!r} is not a label of this item (one of {allowed})")
            continue
        key = (kind, item_id, nugget_id)
        rank = _ROLE_RANK[role]
        if key in rows and rows[key][0] == rank:
            bad.append(f"{where}: the same {kind} judgment again (first on line {rows[key][1]})")
            continue
        if key not in rows or rank > rows[key][0]:
            rows[key] = (rank, line, (topic_id, kind, item_id, nugget_id, value))
    if bad:
        raise LoadError(bad)
    return [row for _, _, row in rows.values()], skipped


def _ids(value):
    """The nugget ids a value holds: a list of ids (QA's matches) or a map's keys, ids as text (TREC RAG's)."""
    return [int(n) if isinstance(n, str) and n.isdigit() else n for n in value[NUGGETS]]


READERS = {"qrels": _read_qrels, "nuggetizer": _read_nuggetizer, "jsonl": _read_jsonl}


def set_release(judgment_set, released, *, by):
    """Release the set to the teams (or withdraw it): the organizer's decision, audited."""
    with transaction.atomic():
        before = judgment_set.released
        judgment_set.released = bool(released)
        judgment_set.save(update_fields=["released"])
        audit.record(
            by,
            SET_RELEASED,
            _target(judgment_set),
            before={"released": before},
            after={"released": judgment_set.released},
        )


def delete_set(judgment_set, *, by):
    with transaction.atomic():
        audit.record(by, SET_DELETED, _target(judgment_set), before={"judgments": judgment_set.judgments.count()})
        judgment_set.delete()


def _target(judgment_set):
    return f"{judgment_set.evaluation.slug}:{judgment_set.name}"


class SetSource:
    """A judgment set read as if it were the judgments (assess.official.reading's source object): rows(topic ids,
    kind) -> (subject id, value) pairs, the subject a pool item or, for nugget kinds, a nugget."""

    def __init__(self, judgment_set):
        self.judgment_set = judgment_set

    def rows(self, topic_ids, kind):
        found = SetJudgment.objects.filter(
            judgment_set=self.judgment_set, topic_id__in=list(topic_ids), kind=kind
        ).values_list("item_id", "nugget_id", "value")
        return [(item if item is not None else nugget, value) for item, nugget, value in found]


def promote(judgment_set, *, by, reason, only_unjudged=False):
    """Make the set's values the official judgments (issue 28's "judgments in from qrels"): each value that differs
    from the official one (or, with only_unjudged, each on a subject nobody has judged) is saved as `by`'s
    adjudicated decision through assess.judging.save_judgment — history, one decision per item, closed questions
    refused, stale marks, so rescoring follows — all or nothing, audited with the reason (released reports list
    it, core.audit.RESCORING). Votes are not promoted: a vote counts as one more voter in the pyramid weights.
    Returns {"promoted", "unchanged", "skipped_judged", "votes_left"}."""
    from assess.judging import AlreadyDecided, QuestionClosed, claim_decision, save_judgment

    if not (reason or "").strip():
        raise LoadError(["promoting a judgment set changes official judgments: give a reason"])
    counts = {"promoted": 0, "unchanged": 0, "skipped_judged": 0, "votes_left": 0}
    rows = list(judgment_set.judgments.select_related("topic", "item", "nugget").order_by("topic_id", "kind", "id"))
    by_kind = defaultdict(list)
    for row in rows:
        by_kind[row.kind].append(row)
    with transaction.atomic():
        for kind, mine in by_kind.items():
            if kind in VOTE_KINDS:
                counts["votes_left"] += len(mine)
                continue
            official = official_values({r.topic_id for r in mine}, kind)
            for row in mine:
                subject = row.item_id if row.item_id is not None else row.nugget_id
                if subject in official and only_unjudged:
                    counts["skipped_judged"] += 1
                    continue
                if official.get(subject) == row.value:
                    counts["unchanged"] += 1
                    continue
                try:
                    if row.item is not None:
                        claim_decision(by, row.item, kind)
                    save_judgment(
                        by,
                        topic=row.topic,
                        kind=kind,
                        role=Judgment.ADJUDICATED,
                        value=row.value,
                        expected_version=None,
                        item=row.item,
                        nugget=row.nugget,
                    )
                except AlreadyDecided as error:
                    who = error.current.assessor
                    raise LoadError(
                        [f"{row.topic.ident}: {who} already decided {_subject(row)}; nothing promoted"]
                    ) from None
                except QuestionClosed:
                    raise LoadError(
                        [f"question {row.topic.ident} is closed; reopen it to promote; nothing promoted"]
                    ) from None
                counts["promoted"] += 1
        audit.record(
            by,
            audit.SET_PROMOTED,
            _target(judgment_set),
            after=counts | {"only_unjudged": only_unjudged},
            reason=reason.strip(),
        )
    return counts


def _subject(row):
    return f"pool item {row.item.pool_id or row.item.key}" if row.item is not None else f"nugget {row.nugget_id}"


def as_jsonl(judgment_set):
    """The set's judgments as Assay JSON Lines judgment records (what the "jsonl" reader loads back)."""
    import json

    rows = judgment_set.judgments.select_related("topic", "item__topic").order_by("topic__position", "kind", "id")
    for j in rows.iterator():
        record = {
            "type": "judgment",
            "topic": j.topic.ident,
            "kind": j.kind,
            "item": {"topic": j.item.topic.ident, "key": j.item.key} if j.item_id else None,
            "nugget": j.nugget_id,
            "value": j.value,
        }
        yield json.dumps(record, ensure_ascii=False) + "\n"
