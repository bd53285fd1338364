"""Every judgment of an evaluation out and in: Assay's lossless JSON Lines, one record per line (the pool items the
assessors found, answer classes, nuggets, judgments with their full history, closures, the structure log), and its
import into an evaluation rebuilt from the same files (all or nothing). Any track's judgments go through it; a
track's own export formats (QA: NIST's) are registered with scoring.registry.register_exports.

One writer (WRITERS, in file order) and one reader (READERS) per record type. The records a track adds (QA's
answer classes and nuggets) and the ids of them its judgment values and structure-log rows name are the track's:
its TrackRecords subclass, registered at core.extension_points.judgments_jsonl (tracks/qa/judgments_jsonl.py).

The files rebuild every pool item the runs gave, but not the ones assessors found (QA found answers, BOLT
citations found in a thread), so those travel as "item" records and the import creates them. Rebuilding can
itself judge found items (BOLT: the citations of the topic file, `bolt_import_found`); the import then replaces
those judgments with the file's records of the same items, which hold the same judgments as they stood in the
source, later changes included. Any other judgment already in the evaluation makes the import refuse.

Assignments and invitations (who judges, votes or adjudicates) travel too: the rebuild's own identical ones are
kept (with the source's creation time), a different assessor in the same role is refused.

Answer classes and nuggets merged away or deleted in the source are still named by the history of the judgments
that held them and by the structure log (answer classes and nuggets created, merged, split, deleted; answers
found; questions closed). Their ids have no row to map to, so the import writes them negated (-id): they can never
name a class or nugget of the target, and each still tells which of the source's it was. The structure log's ids
of classes, nuggets, pool items and users are mapped like the judgments' (`TrackRecords.structure_ids`).

Organizer decisions that change scores without being judgments travel too: the evaluation's settings (nugget
method, series weights...: a "settings" record, which the import applies, audit-logged) and each question's
decisions the track names in `Track.topic_decisions` (QA: NIL decisions, `Topic.data["answer_is_nil"]`: "decision"
records). With the judgments, answer classes, nuggets, votes, adjudications, found items and closures, an import
into an evaluation rebuilt from the same files gives every Score row it had (tests/test_judgments_round_trip.py).
"""

import json
from collections import defaultdict

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.dateparse import parse_datetime

from assess import assist_nuggets
from assess.kinds import InvalidValue, check_value
from assess.models import (
    Assignment,
    AssistCondition,
    AssistDesign,
    Invitation,
    Judgment,
    JudgmentChange,
    SearchLog,
    StructureChange,
    Suggestion,
    SuggestionShown,
    TopicClosure,
)
from assess.official import VOTE_KINDS
from config import safejson
from core import extension_points as ep
from pooling.evaluations import LoadError, update_settings
from pooling.models import PoolItem, Topic

FORMAT = "assay-judgments/1"
# Version 1 files without "item" or "structure" records still import: those records are additions.


class ImportFailed(Exception):
    """A bad line: the message names the file and line, and nothing has been stored."""


def item_ids(value, item):
    """A structure-log value with its pool-item ids ("item", "items") put through `item` (id -> id)."""
    if not isinstance(value, dict):
        return value
    out = dict(value)
    if isinstance(out.get("item"), int):
        out["item"] = item(out["item"])
    if isinstance(out.get("items"), list):
        out["items"] = [item(i) for i in out["items"]]
    return out


class TrackRecords:
    """What a track adds to the file: its own records, the ids its judgment values and structure-log values name.
    A track subclasses it and registers the subclass (core.extension_points.judgments_jsonl); this base adds
    nothing. One instance serves one export (`importing` None) or one import (the `Importing` in progress)."""

    def __init__(self, evaluation, importing=None):
        self.evaluation = evaluation
        self.importing = importing
        self.readers = {}  # record type -> read(importing, rec): store one of the track's records

    def export(self, names):
        """The track's records (dicts with a "type"), written after the found items, before the judgments."""
        return ()

    def held(self):
        """Whether the evaluation already holds some of the track's records (the import then refuses)."""
        return False

    def value(self, kind, value, history):
        """A judgment value (a dict, copied) with the target's ids; a history value may name deleted ones."""
        return value

    def nugget(self, source_id):
        """The target's id of the nugget a judgment is on (Judgment.nugget)."""
        raise self.importing.error(f"nugget {source_id} not defined before this line")

    def structure_ids(self, action, value, item, user):
        """A structure-log value with its ids put through `item` and `user` (id -> id) and the track's own."""
        return item_ids(value, item)


def track_records(evaluation, importing=None):
    return (ep.judgments_jsonl.get(evaluation.track) or TrackRecords)(evaluation, importing)


# --- export ----------------------------------------------------------------------------------------------------


class Names:
    """What the export names rows by: question idents, usernames, pool items' (question ident, key), by id."""

    def __init__(self, evaluation):
        self.ident = dict(Topic.objects.filter(evaluation=evaluation).values_list("id", "ident"))
        self.users = dict(User.objects.values_list("id", "username"))
        items = PoolItem.objects.filter(evaluation=evaluation).values_list("id", "topic_id", "key")
        self.keys = {pk: (self.ident[topic_id], key) for pk, topic_id, key in items}


def export_jsonl(evaluation):
    """Every record of the evaluation's judgments (see the module's docstring), one JSON object per line.
    Subjects are named by question ident and pool-item key, people by username."""
    names = Names(evaluation)
    track = track_records(evaluation)
    for write in WRITERS:
        for record in write(evaluation, names, track):
            yield _line(record)


def _header(evaluation, names, track):
    yield {"type": "header", "format": FORMAT, "evaluation": evaluation.slug, "track": evaluation.track}
    yield {"type": "settings", "settings": evaluation.settings or {}}


def _decisions(evaluation, names, track):
    decided = evaluation.track_spec.topic_decisions
    if not decided:
        return
    for tid, data in Topic.objects.filter(evaluation=evaluation).order_by("position", "id").values_list("id", "data"):
        for key in decided:
            if key in (data or {}):
                yield {"type": "decision", "topic": names.ident[tid], "key": key, "value": data[key]}


def _assignments(evaluation, names, track):
    for a in Assignment.objects.filter(evaluation=evaluation).order_by("id"):
        yield {
            "type": "assignment",
            "topic": names.ident[a.topic_id],
            "assessor": names.users[a.assessor_id],
            "role": a.role,
            "created_at": a.created_at.isoformat(),
        }


def _invitations(evaluation, names, track):
    for inv in Invitation.objects.filter(evaluation=evaluation).order_by("id"):
        yield {
            "type": "invitation",
            "kind": inv.kind,
            "topic": names.ident[inv.topic_id] if inv.topic_id else None,
            "user": names.users[inv.user_id],
            "invited_by": names.users[inv.invited_by_id],
            "created_at": inv.created_at.isoformat(),
        }


def _found_items(evaluation, names, track):
    for item in PoolItem.objects.filter(evaluation=evaluation, origin=PoolItem.ASSESSOR).order_by("topic_id", "id"):
        yield {
            "type": "item",
            "topic": names.ident[item.topic_id],
            "key": item.key,
            "pool_id": item.pool_id,
            "docid": item.docid,
            "text": item.text,
            "position": item.position,
            "data": item.data,
            "created_at": item.created_at.isoformat(),
        }


def _track_records(evaluation, names, track):
    return track.export(names)


def _judgments(evaluation, names, track):
    history = defaultdict(list)
    for ch in JudgmentChange.objects.filter(judgment__evaluation=evaluation).order_by("judgment_id", "version", "id"):
        history[ch.judgment_id].append(
            {
                "changed_by": names.users[ch.changed_by_id],
                "changed_at": ch.changed_at.isoformat(),
                "version": ch.version,
                "before": ch.before,
                "after": ch.after,
            }
        )
    for j in Judgment.objects.filter(evaluation=evaluation).select_related("item").order_by("id"):
        yield {
            "type": "judgment",
            "topic": names.ident[j.topic_id],
            "kind": j.kind,
            "item": {"topic": names.ident[j.item.topic_id], "key": j.item.key} if j.item_id else None,
            "nugget": j.nugget_id,
            "assessor": names.users[j.assessor_id],
            "role": j.role,
            "value": j.value,
            "version": j.version,
            "updated_at": j.updated_at.isoformat(),
            "history": history[j.id],
        }


def _closures(evaluation, names, track):
    for c in TopicClosure.objects.filter(topic__evaluation=evaluation).order_by("id"):
        yield {
            "type": "closure",
            "topic": names.ident[c.topic_id],
            "closed_by": names.users[c.closed_by_id],
            "closed_at": c.closed_at.isoformat(),
        }


def _structure(evaluation, names, track):
    for s in StructureChange.objects.filter(topic__evaluation=evaluation).order_by("at", "id"):
        yield {
            "type": "structure",
            "topic": names.ident[s.topic_id],
            "actor": names.users[s.actor_id],
            "at": s.at.isoformat(),
            "action": s.action,
            "before": s.before,
            "after": s.after,
            "refs": _structure_refs(s, names, track),
        }


def _structure_refs(change, names, track):
    """{"items": {pk: [question, key]}, "users": {id: username}} for the pool items and users a structure-log row
    names by id, so the import can find them in the target."""
    items, people = {}, {}

    def item(pk):
        if pk in names.keys:
            items[str(pk)] = list(names.keys[pk])
        return pk

    def user(pk):
        if pk in names.users:
            people[str(pk)] = names.users[pk]
        return pk

    for value in (change.before, change.after):
        track.structure_ids(change.action, value, item, user)
    return {"items": items, "users": people}


def _searches(evaluation, names, track):
    keys = names.keys
    for s in SearchLog.objects.filter(evaluation=evaluation).order_by("id"):
        # what the assessor searched while judging a topic (and item), and what they opened (issue 18)
        yield {
            "type": "search",
            "topic": names.ident[s.topic_id],
            "item": {"topic": keys[s.item_id][0], "key": keys[s.item_id][1]} if s.item_id in keys else None,
            "assessor": names.users[s.assessor_id],
            "query": s.query,
            "filters": s.filters,
            "hits": s.hits,
            "opened": s.opened,
            "at": s.at.isoformat(),
        }


def _assist_design(evaluation, names, track):
    """The assisted-judging design and its split as drawn (issue 30): the seed alone would not give the same split
    in a rebuild whose pool items' ids come in another order."""
    design = AssistDesign.objects.filter(evaluation=evaluation).first()
    if design is None:
        return
    split = AssistCondition.objects.filter(evaluation=evaluation).order_by("item_id")
    yield {
        "type": "assist_design",
        "unit": design.unit,
        "conditions": design.conditions,
        "seed": design.seed,
        "created_by": names.users.get(design.created_by_id),
        "created_at": design.created_at.isoformat(),
        "split": [[*names.keys[c.item_id], c.condition] for c in split.only("item_id", "condition")],
        "topics": design.topics,  # {topic ident: condition} of the per-topic work (nugget proposals)
    }


def _suggestions(evaluation, names, track):
    """Assisted judging's machine suggestions (issue 30, docs/assist.md) with their provenance, error rows too, and
    when each was first shown to whom (the line between an assessor's own judgment and one made with it)."""
    shown = defaultdict(list)
    for row in SuggestionShown.objects.filter(suggestion__evaluation=evaluation).order_by("id"):
        shown[row.suggestion_id].append(
            {
                "assessor": names.users[row.assessor_id],
                "condition": row.condition,
                "judgment_version": row.judgment_version,
                "at": row.at.isoformat(),
            }
        )
    keys = names.keys
    handled = {  # which nugget proposals the assessor took or rejected, kept on the topic's row by suggestion id
        topic_id: data.get(assist_nuggets.HANDLED) or {}
        for topic_id, data in Topic.objects.filter(evaluation=evaluation).values_list("id", "data")
        if data
    }
    for s in Suggestion.objects.filter(evaluation=evaluation).order_by("id"):
        taken = handled.get(s.topic_id, {}).get(str(s.id)) if s.kind == assist_nuggets.KIND else None
        yield {
            "type": "suggestion",
            "topic": names.ident[s.topic_id],
            "kind": s.kind,
            "item": {"topic": keys[s.item_id][0], "key": keys[s.item_id][1]} if s.item_id else None,
            "nugget": s.nugget_id,
            **s.provenance(),
            "created_by": names.users.get(s.created_by_id),
            "created_at": s.created_at.isoformat(),
            "shown": shown[s.id],
            **({"handled": taken} if taken else {}),
        }


# In file order: a judgment may name the found items and the track's records (nuggets) before it.
WRITERS = (
    _header,
    _decisions,
    _assignments,
    _invitations,
    _found_items,
    _track_records,
    _judgments,
    _closures,
    _structure,
    _searches,
    _assist_design,
    _suggestions,
)


def _line(obj):
    return json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n"


# --- import ----------------------------------------------------------------------------------------------------


class Importing:
    """One import in progress: the target's questions, pool items and users, the line being read (`where`),
    and what is left for the end (timestamps, settings). The track's records read through it too."""

    def __init__(self, evaluation, filename):
        self.evaluation = evaluation
        self.filename = filename
        self.number, self.where = 0, filename  # the line being read
        self.counts = defaultdict(int)
        self.users = {}
        self.stamps = []  # (model, pk, field, value) to restore auto timestamps after creation
        self.settings = None  # applied once every line is read
        self.seen_header = False
        self.first_line = {}  # (record type, identity) -> the line that gave it first
        self.topics = {t.ident: t for t in Topic.objects.filter(evaluation=evaluation)}
        self.items = {
            (t, k): pk
            for pk, t, k in PoolItem.objects.filter(evaluation=evaluation).values_list("id", "topic__ident", "key")
        }
        self.track = track_records(evaluation, self)
        self.derived = self._derived()

    def _derived(self):
        """(question ident, item key) -> ids of what rebuilding from the files judged itself (judgments on found
        items, replaced by the file's records); any other judgment, or the track's records, refuse the import."""
        rebuilt = list(
            Judgment.objects.filter(evaluation=self.evaluation).values_list(
                "id", "item__origin", "topic__ident", "item__key"
            )
        )
        if any(origin != PoolItem.ASSESSOR for _, origin, _, _ in rebuilt) or self.track.held():
            raise ImportFailed(
                f"{self.filename}: evaluation {self.evaluation.slug} already has judgments, nuggets or answer "
                "classes; import into an evaluation without any (judgments on the found items its files gave aside)"
            )
        derived = defaultdict(list)
        for pk, _, question_ident, key in rebuilt:
            derived[(question_ident, key)].append(pk)
        return derived

    def error(self, message):
        return ImportFailed(f"{self.where}: {message}")

    def once(self, identity, what):
        """Refuse a record that repeats an earlier one's id (or a judgment or closure of the same thing): the
        lines referring to that id would silently point at whichever came last."""
        if identity in self.first_line:
            raise self.error(f"{what} is already on line {self.first_line[identity]}")
        self.first_line[identity] = self.number

    def user(self, name):
        if not isinstance(name, str) or not name:
            raise self.error("missing user name")
        if name not in self.users:
            u, created = User.objects.get_or_create(username=name, defaults={"is_active": False})
            if created:
                u.set_unusable_password()
                u.save(update_fields=["password"])
                self.counts["users_created"] += 1
            self.users[name] = u
        return self.users[name]

    def topic(self, ident):
        if ident not in self.topics:
            raise self.error(f"unknown question {ident!r} in evaluation {self.evaluation.slug}")
        return self.topics[ident]

    def source_ids(self, ids, what):
        """id -> the target's id; an id no record defined is a class or nugget deleted in the source: negated."""

        def to(i):
            if i in ids:
                return ids[i]
            if not isinstance(i, int) or isinstance(i, bool):
                raise self.error(f"{what} {i!r} is not an id")
            return -abs(i)

        return to

    def stamp(self, model, pk, field_name, value):
        self.stamps.append((model, pk, field_name, value))


def import_jsonl(evaluation, lines, filename="<input>"):
    """Load an export into `evaluation` (rebuilt from the same files: same questions and pools, no judgments
    but those the rebuild made on found items) in one transaction.

    Returns counts per record type. Any bad line raises ImportFailed naming FILE:LINE and changes nothing.
    """
    importing = Importing(evaluation, filename)
    readers = READERS | importing.track.readers
    with transaction.atomic():
        for number, raw in enumerate(lines, start=1):
            if raw.strip():
                importing.number, importing.where = number, f"{filename}:{number}"
                _read_line(importing, readers, raw)
        _finish(importing)
    return dict(importing.counts)


def _read_line(imp, readers, raw):
    try:
        rec = safejson.loads(raw)
    except safejson.JSONDecodeError as e:
        raise imp.error(f"not JSON ({e.msg})") from None
    if not isinstance(rec, dict) or "type" not in rec:
        raise imp.error('expected an object with a "type"')
    kind = rec["type"]
    try:
        if kind == "header":
            _read_header(imp, rec)
            return
        if not imp.seen_header:
            raise imp.error("the first line must be the header")
        if kind not in readers:
            raise imp.error(f"unknown record type {kind!r}")
        readers[kind](imp, rec)
    except ImportFailed:
        raise
    except (KeyError, TypeError, ValueError) as e:
        raise imp.error(f"bad {kind} record ({type(e).__name__}: {e})") from None
    except Exception as e:  # integrity errors (a duplicate judgment...) name the line too
        raise imp.error(f"cannot store {kind} ({e})") from None
    imp.counts[kind] += 1


def _read_header(imp, rec):
    if rec.get("format") != FORMAT:
        raise imp.error(f"unknown format {rec.get('format')!r}, expected {FORMAT}")
    if rec.get("track") != imp.evaluation.track:
        raise imp.error(f"judgments of track {rec.get('track')!r} cannot go into a {imp.evaluation.track} evaluation")
    imp.seen_header = True


def _read_settings(imp, rec):
    imp.once(("settings",), "the settings record")
    if not isinstance(rec.get("settings"), dict):
        raise imp.error("settings must be an object")
    imp.settings = rec["settings"]


def _read_decision(imp, rec):
    key, decisions = rec.get("key"), imp.evaluation.track_spec.topic_decisions
    if key not in decisions:
        raise imp.error(
            f"{key!r} is no decision of track {imp.evaluation.track} ({', '.join(decisions) or 'it has none'})"
        )
    if not isinstance(rec.get("value"), bool):
        raise imp.error(f"decision {key} must be true or false, not {rec.get('value')!r}")
    imp.once(("decision", rec["topic"], key), f"decision {key} of question {rec['topic']!r}")
    question = imp.topic(rec["topic"])
    question.data = (question.data or {}) | {key: rec["value"]}
    Topic.objects.filter(pk=question.pk).update(data=question.data)


def _read_assignment(imp, rec):
    question, who = imp.topic(rec["topic"]), imp.user(rec["assessor"])
    imp.once(("assignment", rec["topic"], rec["role"]), f"the {rec['role']} assignment of {rec['topic']}")
    if rec["role"] not in dict(Assignment.ROLES):
        raise imp.error(f"unknown assignment role {rec['role']!r}")
    held = Assignment.objects.filter(topic=question, role=rec["role"]).first()
    if held is None:
        held = Assignment.objects.create(evaluation=imp.evaluation, topic=question, assessor=who, role=rec["role"])
    elif held.assessor_id != who.id:  # the rebuild assigned someone else: say so, change nothing
        raise imp.error(
            f"{rec['topic']} is assigned to {held.assessor.username} as {rec['role']} "
            f"here, to {who.username} in the file"
        )
    # the rebuild's own (the same assignment made again) takes the source's time
    imp.stamp(Assignment, held.id, "created_at", rec.get("created_at"))


def _read_invitation(imp, rec):
    series = imp.topic(rec["topic"]) if rec.get("topic") is not None else None
    if rec["kind"] not in dict(Invitation.KINDS):
        raise imp.error(f"unknown invitation kind {rec['kind']!r}")
    inv, _ = Invitation.objects.get_or_create(
        evaluation=imp.evaluation,
        topic=series,
        user=imp.user(rec["user"]),
        kind=rec["kind"],
        defaults={"invited_by": imp.user(rec["invited_by"])},
    )
    imp.stamp(Invitation, inv.id, "created_at", rec.get("created_at"))


def _read_item(imp, rec):
    key = (rec["topic"], rec["key"])
    imp.once(("item", *key), f"found item {key[1]!r} of question {key[0]}")
    question = imp.topic(rec["topic"])
    if key in imp.items:  # the rebuild made it (a found citation of the topic file)
        replaced = imp.derived.pop(key, [])
        if replaced:
            Judgment.objects.filter(id__in=replaced).delete()
            imp.counts["judgments_replaced"] += len(replaced)
        return
    if not isinstance(rec.get("key"), str) or not rec["key"]:
        raise imp.error("a found item needs a key")
    made = PoolItem.objects.create(
        evaluation=imp.evaluation,
        topic=question,
        key=rec["key"],
        pool_id=rec.get("pool_id") or "",
        docid=rec.get("docid") or "",
        text=rec.get("text") or "",
        origin=PoolItem.ASSESSOR,
        position=int(rec.get("position") or 0),
        data=rec.get("data") or {},
    )
    imp.items[key] = made.id
    imp.stamp(PoolItem, made.id, "created_at", rec.get("created_at"))


def _read_judgment(imp, rec):
    jkind, declared = rec["kind"], imp.evaluation.track_spec.judgment_kinds
    if jkind not in declared:
        raise imp.error(f"judgment kind {jkind!r} is not one of track {imp.evaluation.track}'s ({', '.join(declared)})")
    item_id, nugget_id, on = _judgment_subject(imp, rec, jkind)
    if rec.get("role") not in dict(Judgment.ROLES):
        raise imp.error(f"unknown role {rec.get('role')!r}")
    imp.once(
        ("judgment", jkind, item_id, nugget_id, rec.get("assessor")),
        f"the {jkind} judgment of {rec.get('assessor')!r} on {on}",
    )
    question = imp.topic(rec["topic"])
    value = _fitting(imp, jkind, _value(imp, jkind, rec["value"]))
    j = Judgment.objects.create(
        evaluation=imp.evaluation,
        topic=question,
        kind=jkind,
        item_id=item_id,
        nugget_id=nugget_id,
        assessor=imp.user(rec["assessor"]),
        role=rec["role"],
        value=value,
        version=int(rec.get("version", 1)),
    )
    imp.stamp(Judgment, j.id, "updated_at", rec.get("updated_at"))
    for h in rec.get("history", []):
        _read_change(imp, j, h)


def _judgment_subject(imp, rec, jkind):
    """(item id, nugget id, words for it) of the target: a pool item, or a nugget (the vote kinds)."""
    item_id = nugget_id = None
    if rec.get("item"):
        key = (rec["item"]["topic"], rec["item"]["key"])
        if key not in imp.items:
            raise imp.error(f"no pool item {key[1]!r} for question {key[0]}")
        item_id, on = imp.items[key], f"pool item {key[1]!r} of {key[0]}"
    elif rec.get("nugget") is not None:
        nugget_id, on = imp.track.nugget(rec["nugget"]), f"nugget {rec['nugget']}"
    else:
        raise imp.error("a judgment needs an item or a nugget")
    if (nugget_id is None) != (jkind not in VOTE_KINDS):
        raise imp.error(f"a {jkind} judgment is {'on a nugget' if jkind in VOTE_KINDS else 'on a pool item'}")
    return item_id, nugget_id, on


def _read_change(imp, judgment, h):
    ch = JudgmentChange.objects.create(
        judgment=judgment,
        changed_by=imp.user(h["changed_by"]),
        version=int(h["version"]),
        before=None if h.get("before") is None else _value(imp, judgment.kind, h["before"], history=True),
        after=_value(imp, judgment.kind, h["after"], history=True),
    )
    imp.stamp(JudgmentChange, ch.id, "changed_at", h.get("changed_at"))
    imp.counts["changes"] += 1


def _value(imp, kind, value, history=False):
    """A judgment value with the target's ids (the track maps its own: QA's classes and nuggets). The current
    value must name ones the file defines; a history value may name ones deleted in the source (negated)."""
    if not isinstance(value, dict):
        raise imp.error("value must be an object")
    return imp.track.value(kind, dict(value), history)


def _fitting(imp, kind, value):
    """The value, if it fits its kind's declared shape (the same check as every save: assess.kinds)."""
    try:
        check_value(kind, value)
    except InvalidValue as exc:
        raise imp.error(str(exc)) from None
    return value


def _read_closure(imp, rec):
    imp.once(("closure", rec["topic"]), f"the closure of question {rec['topic']!r}")
    c = TopicClosure.objects.create(topic=imp.topic(rec["topic"]), closed_by=imp.user(rec["closed_by"]))
    imp.stamp(TopicClosure, c.id, "closed_at", rec.get("closed_at"))


def _read_structure(imp, rec):
    sc = StructureChange.objects.create(
        topic=imp.topic(rec["topic"]),
        actor=imp.user(rec["actor"]),
        action=rec["action"],
        before=_structure_value(imp, rec, rec.get("before")),
        after=_structure_value(imp, rec, rec.get("after")),
    )
    imp.stamp(StructureChange, sc.id, "at", rec.get("at"))


def _structure_value(imp, rec, value):
    refs = rec.get("refs") or {}
    ref_items, ref_users = refs.get("items") or {}, refs.get("users") or {}

    def item(pk):
        key = tuple(ref_items.get(str(pk)) or ())
        return imp.items[key] if key in imp.items else -abs(pk)

    def someone(pk):
        name = ref_users.get(str(pk))
        return imp.user(name).id if name else -abs(pk)

    return imp.track.structure_ids(rec["action"], value, item, someone)


def _read_search(imp, rec):
    t = imp.topic(rec["topic"])
    item = rec.get("item")
    if item is not None and (item.get("topic"), item.get("key")) not in imp.items:
        raise imp.error(f"no pool item {item.get('key')!r} in question {item.get('topic')!r}")
    if not isinstance(rec.get("query"), str) or not isinstance(rec.get("opened", []), list):
        raise imp.error("a search record has a query (text) and opened (a list)")
    s = SearchLog.objects.create(
        evaluation=imp.evaluation,
        assessor=imp.user(rec["assessor"]),
        topic=t,
        item_id=imp.items[(item["topic"], item["key"])] if item else None,
        query=rec["query"],
        filters=rec.get("filters") or {},
        hits=int(rec.get("hits") or 0),
        opened=rec.get("opened") or [],
    )
    imp.stamp(SearchLog, s.id, "at", rec.get("at"))


def _read_assist_design(imp, rec):
    imp.once(("assist_design",), "the assisted-judging design")
    if rec.get("unit") not in dict(AssistDesign.UNITS):
        raise imp.error(f"an assist design's unit is item or topic, not {rec.get('unit')!r}")
    known = dict(AssistCondition.CONDITIONS)
    conditions = rec.get("conditions")
    if not isinstance(conditions, list) or not conditions or any(c not in known for c in conditions):
        raise imp.error(f"an assist design's conditions are some of {', '.join(known)}")
    topics = rec.get("topics") or {}
    if not isinstance(topics, dict) or any(c not in conditions and c != "none" for c in topics.values()):
        raise imp.error("an assist design's topics map topic ids to conditions of the design")
    missing = sorted(set(topics) - set(imp.evaluation.topics.values_list("ident", flat=True)))
    if missing:
        raise imp.error(f"an assist design names topic {missing[0][:50]!r}, not a topic of the evaluation")
    design = AssistDesign.objects.create(
        evaluation=imp.evaluation,
        unit=rec["unit"],
        conditions=conditions,
        seed=int(rec["seed"]),
        topics=topics,
        created_by=imp.user(rec["created_by"]) if rec.get("created_by") else None,
    )
    imp.stamp(AssistDesign, design.id, "created_at", rec.get("created_at"))
    rows = []
    for topic, key, condition in rec.get("split") or []:
        if (topic, key) not in imp.items:
            raise imp.error(f"no pool item {key!r} for question {topic}")
        if condition not in conditions:
            raise imp.error(f"pool item {key!r} of {topic}: {condition!r} is not a condition of the design")
        rows.append(AssistCondition(evaluation=imp.evaluation, item_id=imp.items[(topic, key)], condition=condition))
    AssistCondition.objects.bulk_create(rows)


def _read_handled(imp, made, handled):
    """Which of the proposals the source's assessor accepted or rejected, kept under the new suggestion's id (they
    would show as pending again otherwise)."""
    count = len((made.value or {}).get("nuggets") or [])
    if not isinstance(handled, dict) or not all(
        isinstance(k, str) and k.isdigit() and int(k) < count and v in ("accepted", "rejected")
        for k, v in handled.items()
    ):
        raise imp.error(f'handled is {{"INDEX": "accepted" or "rejected"}}, INDEX below {count}')
    topic = Topic.objects.select_for_update().get(pk=made.topic_id)
    data = dict(topic.data or {})
    data[assist_nuggets.HANDLED] = dict(data.get(assist_nuggets.HANDLED) or {}, **{str(made.id): handled})
    topic.data = data
    topic.save(update_fields=["data"])


def _read_suggestion(imp, rec):
    """A suggestion as the source stored it: its subject found like a judgment's, its value mapped like a history
    value (a nugget deleted in the source stays named, negated), an error row kept with no value."""
    jkind = rec["kind"]
    proposals = jkind == assist_nuggets.KIND  # a topic's nugget list: no item, texts only
    if jkind not in imp.evaluation.track_spec.judgment_kinds and not proposals:
        raise imp.error(f"judgment kind {jkind!r} is not one of track {imp.evaluation.track}'s")
    item_id, nugget_id = (None, None) if proposals else _judgment_subject(imp, rec, jkind)[:2]
    if proposals and rec.get("value") is not None:
        found = rec["value"].get("nuggets") if isinstance(rec["value"], dict) else None
        if not isinstance(found, list) or not all(
            isinstance(n, dict) and isinstance(n.get("text"), str) and n.get("importance") in ("vital", "okay")
            for n in found
        ):
            raise imp.error('nugget proposals are {"nuggets": [{"text", "importance": vital or okay}]}')
    if rec.get("source") not in dict(Suggestion.SOURCES):
        raise imp.error(f"a suggestion's source is file or model, not {rec.get('source')!r}")
    value = rec.get("value")
    if value is None and not rec.get("error"):
        raise imp.error("a suggestion without a value must be a failed call (error)")
    shown = rec.get("shown") or []
    if not isinstance(shown, list):
        raise imp.error("shown must be a list")
    made = Suggestion.objects.create(
        evaluation=imp.evaluation,
        topic=imp.topic(rec["topic"]),
        kind=jkind,
        item_id=item_id,
        nugget_id=nugget_id,
        value=value if proposals else None if value is None else _value(imp, jkind, value, history=True),
        rationale=str(rec.get("rationale") or ""),
        source=rec["source"],
        source_name=str(rec.get("source_name") or "")[:300],
        prompt=str(rec.get("prompt") or ""),
        parameters=rec.get("parameters") or {},
        raw_output=str(rec.get("raw_output") or ""),
        seconds=None if rec.get("seconds") is None else float(rec["seconds"]),
        cost=rec.get("cost"),
        error=str(rec.get("error") or ""),
        created_by=imp.user(rec["created_by"]) if rec.get("created_by") else None,
    )
    imp.stamp(Suggestion, made.id, "created_at", rec.get("created_at"))
    if proposals and rec.get("handled"):
        _read_handled(imp, made, rec["handled"])
    for h in shown:
        row = SuggestionShown.objects.create(
            suggestion=made,
            assessor=imp.user(h["assessor"]),
            item_id=item_id,
            condition=str(h["condition"]),
            judgment_version=int(h.get("judgment_version") or 0),
        )
        imp.stamp(SuggestionShown, row.id, "at", h.get("at"))


# Record type -> reader(importing, rec); the track's own records are read by its TrackRecords.readers.
READERS = {
    "settings": _read_settings,
    "decision": _read_decision,
    "assignment": _read_assignment,
    "invitation": _read_invitation,
    "item": _read_item,
    "judgment": _read_judgment,
    "closure": _read_closure,
    "structure": _read_structure,
    "search": _read_search,
    "assist_design": _read_assist_design,
    "suggestion": _read_suggestion,
}


def _finish(imp):
    """Once every line is read: the settings, the source's timestamps, every question stale."""
    if not imp.seen_header:
        raise ImportFailed(f"{imp.filename}: empty file (no header line)")
    if imp.settings is not None:
        try:
            update_settings(imp.evaluation, imp.settings)
        except LoadError as e:
            raise ImportFailed(f"{imp.filename}: settings: {'; '.join(e.problems)}") from None
    for model, pk, fname, stamp in imp.stamps:
        when = parse_datetime(stamp) if stamp else None
        if when is not None:
            model.objects.filter(pk=pk).update(**{fname: when})
    from pooling.staleness import mark_stale_many

    mark_stale_many(t for t in imp.topics.values() if t.kind != "series")
