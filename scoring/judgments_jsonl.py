"""Every judgment of an evaluation out and in: Assay's lossless JSON Lines, one record per line (the pool items the
assessors found, answer classes, nuggets, judgments with their full history, closures, the structure log), and its
import into an evaluation rebuilt from the same files (all or nothing). Any track's judgments go through it; a
track's own export formats (QA: NIST's) are registered with scoring.registry.register_exports.

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
of classes, nuggets, pool items and users are mapped like the judgments' (`structure_ids`).

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

from assess.kinds import InvalidValue, check_value
from assess.models import (
    AnswerClass,
    Assignment,
    Invitation,
    Judgment,
    JudgmentChange,
    Nugget,
    SearchLog,
    StructureChange,
    TopicClosure,
)
from assess.official import VOTE_KINDS
from config import safejson
from pooling.evaluations import LoadError, update_settings
from pooling.models import PoolItem, Topic

FORMAT = "assay-judgments/1"
# Version 1 files without "item" or "structure" records still import: those records are additions.


def export_jsonl(evaluation):
    """Every answer class, nugget, judgment (with its full history) and closure of the evaluation, one JSON
    object per line. Subjects are named by question ident and pool-item key, people by username."""
    ident = dict(Topic.objects.filter(evaluation=evaluation).values_list("id", "ident"))
    users = dict(User.objects.values_list("id", "username"))
    yield _line({"type": "header", "format": FORMAT, "evaluation": evaluation.slug, "track": evaluation.track})
    yield _line({"type": "settings", "settings": evaluation.settings or {}})
    decided = evaluation.track_spec.topic_decisions
    if decided:
        for tid, data in (
            Topic.objects.filter(evaluation=evaluation).order_by("position", "id").values_list("id", "data")
        ):
            for key in decided:
                if key in (data or {}):
                    yield _line({"type": "decision", "topic": ident[tid], "key": key, "value": data[key]})
    for a in Assignment.objects.filter(evaluation=evaluation).order_by("id"):
        yield _line(
            {
                "type": "assignment",
                "topic": ident[a.topic_id],
                "assessor": users[a.assessor_id],
                "role": a.role,
                "created_at": a.created_at.isoformat(),
            }
        )
    for inv in Invitation.objects.filter(evaluation=evaluation).order_by("id"):
        yield _line(
            {
                "type": "invitation",
                "kind": inv.kind,
                "topic": ident[inv.topic_id] if inv.topic_id else None,
                "user": users[inv.user_id],
                "invited_by": users[inv.invited_by_id],
                "created_at": inv.created_at.isoformat(),
            }
        )
    found = PoolItem.objects.filter(evaluation=evaluation, origin=PoolItem.ASSESSOR).order_by("topic_id", "id")
    for item in found:
        yield _line(
            {
                "type": "item",
                "topic": ident[item.topic_id],
                "key": item.key,
                "pool_id": item.pool_id,
                "docid": item.docid,
                "text": item.text,
                "position": item.position,
                "data": item.data,
                "created_at": item.created_at.isoformat(),
            }
        )
    for c in AnswerClass.objects.filter(topic__evaluation=evaluation).order_by("id"):
        yield _line(
            {
                "type": "answer_class",
                "id": c.id,
                "topic": ident[c.topic_id],
                "label": c.label,
                "created_by": users[c.created_by_id],
                "created_at": c.created_at.isoformat(),
            }
        )
    for n in Nugget.objects.filter(topic__evaluation=evaluation).order_by("id"):
        yield _line(
            {
                "type": "nugget",
                "id": n.id,
                "topic": ident[n.topic_id],
                "text": n.text,
                "position": n.position,
                "created_by": users[n.created_by_id],
                "created_at": n.created_at.isoformat(),
            }
        )
    history = defaultdict(list)
    for ch in JudgmentChange.objects.filter(judgment__evaluation=evaluation).order_by("judgment_id", "version", "id"):
        history[ch.judgment_id].append(
            {
                "changed_by": users[ch.changed_by_id],
                "changed_at": ch.changed_at.isoformat(),
                "version": ch.version,
                "before": ch.before,
                "after": ch.after,
            }
        )
    for j in Judgment.objects.filter(evaluation=evaluation).select_related("item").order_by("id"):
        yield _line(
            {
                "type": "judgment",
                "topic": ident[j.topic_id],
                "kind": j.kind,
                "item": {"topic": ident[j.item.topic_id], "key": j.item.key} if j.item_id else None,
                "nugget": j.nugget_id,
                "assessor": users[j.assessor_id],
                "role": j.role,
                "value": j.value,
                "version": j.version,
                "updated_at": j.updated_at.isoformat(),
                "history": history[j.id],
            }
        )
    for c in TopicClosure.objects.filter(topic__evaluation=evaluation).order_by("id"):
        yield _line(
            {
                "type": "closure",
                "topic": ident[c.topic_id],
                "closed_by": users[c.closed_by_id],
                "closed_at": c.closed_at.isoformat(),
            }
        )
    keys = {
        pk: (ident[topic_id], key)
        for pk, topic_id, key in PoolItem.objects.filter(evaluation=evaluation).values_list("id", "topic_id", "key")
    }
    for s in StructureChange.objects.filter(topic__evaluation=evaluation).order_by("at", "id"):
        yield _line(
            {
                "type": "structure",
                "topic": ident[s.topic_id],
                "actor": users[s.actor_id],
                "at": s.at.isoformat(),
                "action": s.action,
                "before": s.before,
                "after": s.after,
                "refs": _structure_refs(s, keys, users),
            }
        )

    for s in SearchLog.objects.filter(evaluation=evaluation).order_by("id"):
        # what the assessor searched while judging a topic (and item), and what they opened (issue 18)
        yield _line(
            {
                "type": "search",
                "topic": ident[s.topic_id],
                "item": {"topic": keys[s.item_id][0], "key": keys[s.item_id][1]} if s.item_id in keys else None,
                "assessor": users[s.assessor_id],
                "query": s.query,
                "filters": s.filters,
                "hits": s.hits,
                "opened": s.opened,
                "at": s.at.isoformat(),
            }
        )


def structure_ids(action, value, answer_class, nugget, item, user):
    """A structure-log value (before or after) with its ids put through the given functions (id -> id): the
    class or nugget the action is about ("id", "sources"), nugget orders, pool items ("item", "items") and the
    votes a merge or deletion took away ("nugget_id", "assessor_id"). The shapes are those of the QA saves
    (tracks.qa.instance_judging, nugget_judging) and assess.judging's closures."""
    if not isinstance(value, dict):
        return value
    own = answer_class if action.startswith("class.") else nugget if action.startswith("nugget.") else None
    out = dict(value)
    if own is not None and isinstance(out.get("id"), int):
        out["id"] = own(out["id"])
    if own is not None and isinstance(out.get("sources"), list):
        out["sources"] = [dict(x, id=own(x["id"])) if isinstance(x, dict) and "id" in x else x for x in out["sources"]]
    if isinstance(out.get("order"), list):
        out["order"] = [nugget(i) for i in out["order"]]
    if isinstance(out.get("item"), int):
        out["item"] = item(out["item"])
    if isinstance(out.get("items"), list):
        out["items"] = [item(i) for i in out["items"]]
    if isinstance(out.get("votes"), list):
        votes = []
        for v in out["votes"]:
            v = dict(v) if isinstance(v, dict) else v
            if isinstance(v, dict) and isinstance(v.get("nugget_id"), int):
                v["nugget_id"] = nugget(v["nugget_id"])
            if isinstance(v, dict) and isinstance(v.get("assessor_id"), int):
                v["assessor_id"] = user(v["assessor_id"])
            votes.append(v)
        out["votes"] = votes
    return out


def _structure_refs(change, keys, users):
    """{"items": {pk: [question, key]}, "users": {id: username}} for the pool items and users a structure-log row
    names by id, so the import can find them in the target."""
    items, people = {}, {}

    def item(pk):
        if pk in keys:
            items[str(pk)] = list(keys[pk])
        return pk

    def user(pk):
        if pk in users:
            people[str(pk)] = users[pk]
        return pk

    for value in (change.before, change.after):
        structure_ids(change.action, value, int, int, item, user)
    return {"items": items, "users": people}


def _line(obj):
    return json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n"


class ImportFailed(Exception):
    """A bad line: the message names the file and line, and nothing has been stored."""


def import_jsonl(evaluation, lines, filename="<input>"):
    """Load an export into `evaluation` (rebuilt from the same files: same questions and pools, no judgments
    but those the rebuild made on found items) in one transaction.

    Returns counts per record type. Any bad line raises ImportFailed naming FILE:LINE and changes nothing.
    """
    from django.utils.dateparse import parse_datetime

    # What rebuilding from the files judged itself: judgments on found items, replaced by the file's records.
    derived = defaultdict(list)  # (question ident, item key) -> judgment ids
    rebuilt = list(
        Judgment.objects.filter(evaluation=evaluation).values_list("id", "item__origin", "topic__ident", "item__key")
    )
    if (
        any(origin != PoolItem.ASSESSOR for _, origin, _, _ in rebuilt)
        or Nugget.objects.filter(topic__evaluation=evaluation).exists()
        or AnswerClass.objects.filter(topic__evaluation=evaluation).exists()
    ):
        raise ImportFailed(
            f"{filename}: evaluation {evaluation.slug} already has judgments, nuggets or answer "
            "classes; import into an evaluation without any (judgments on the found items its files gave aside)"
        )
    for pk, _, question_ident, key in rebuilt:
        derived[(question_ident, key)].append(pk)
    topics = {t.ident: t for t in Topic.objects.filter(evaluation=evaluation)}
    items = {
        (t, k): pk
        for pk, t, k in PoolItem.objects.filter(evaluation=evaluation).values_list("id", "topic__ident", "key")
    }
    counts = defaultdict(int)
    declared = evaluation.track_spec.judgment_kinds
    class_ids, nugget_ids, users = {}, {}, {}
    stamps = []  # (model, pk, field, value) to restore auto timestamps after creation
    settings_from_file = None  # applied once every line is read
    first_line = {}  # (record type, identity) -> the line that gave it first

    def once(identity, what, number, where):
        """Refuse a record that repeats an earlier one's id (or a judgment or closure of the same thing): the
        lines referring to that id would silently point at whichever came last."""
        if identity in first_line:
            raise ImportFailed(f"{where}: {what} is already on line {first_line[identity]}")
        first_line[identity] = number

    def user(name, where):
        if not isinstance(name, str) or not name:
            raise ImportFailed(f"{where}: missing user name")
        if name not in users:
            u, created = User.objects.get_or_create(username=name, defaults={"is_active": False})
            if created:
                u.set_unusable_password()
                u.save(update_fields=["password"])
                counts["users_created"] += 1
            users[name] = u
        return users[name]

    def topic(ident_, where):
        if ident_ not in topics:
            raise ImportFailed(f"{where}: unknown question {ident_!r} in evaluation {evaluation.slug}")
        return topics[ident_]

    def gone(ids, what, where):
        """id -> the target's id; an id no record defined is a class or nugget deleted in the source: negated."""

        def to(i):
            if i in ids:
                return ids[i]
            if not isinstance(i, int) or isinstance(i, bool):
                raise ImportFailed(f"{where}: {what} {i!r} is not an id")
            return -abs(i)

        return to

    def remap(kind, value, where, history=False):
        """A judgment value with the target's class and nugget ids. The current value must name classes and
        nuggets the file defines; a history value may name ones deleted in the source (negated, see above)."""
        if not isinstance(value, dict):
            raise ImportFailed(f"{where}: value must be an object")
        value = dict(value)
        if value.get("answer_class") is not None:
            if value["answer_class"] not in class_ids and not history:
                raise ImportFailed(f"{where}: answer class {value['answer_class']} not defined before this line")
            value["answer_class"] = gone(class_ids, "answer class", where)(value["answer_class"])
        if kind == "nugget_match":
            nuggets = value.get("nuggets", [])
            missing = [n for n in nuggets if n not in nugget_ids]
            if missing and not history:
                raise ImportFailed(f"{where}: nugget {missing[0]} not defined before this line")
            value["nuggets"] = [gone(nugget_ids, "nugget", where)(n) for n in nuggets]
        return value

    def structure_value(rec, value, where):
        refs = rec.get("refs") or {}
        ref_items, ref_users = refs.get("items") or {}, refs.get("users") or {}

        def item(pk):
            key = tuple(ref_items.get(str(pk)) or ())
            return items[key] if key in items else -abs(pk)

        def someone(pk):
            name = ref_users.get(str(pk))
            return user(name, where).id if name else -abs(pk)

        return structure_ids(
            rec["action"],
            value,
            gone(class_ids, "answer class", where),
            gone(nugget_ids, "nugget", where),
            item,
            someone,
        )

    def fitting(kind, value, where):
        """The value, if it fits its kind's declared shape (the same check as every save: assess.kinds)."""
        try:
            check_value(kind, value)
        except InvalidValue as exc:
            raise ImportFailed(f"{where}: {exc}") from None
        return value

    try:
        with transaction.atomic():
            seen_header = False
            for number, raw in enumerate(lines, start=1):
                where = f"{filename}:{number}"
                if not raw.strip():
                    continue
                try:
                    rec = safejson.loads(raw)
                except safejson.JSONDecodeError as e:
                    raise ImportFailed(f"{where}: not JSON ({e.msg})") from None
                if not isinstance(rec, dict) or "type" not in rec:
                    raise ImportFailed(f'{where}: expected an object with a "type"')
                kind = rec["type"]
                try:
                    if kind == "header":
                        if rec.get("format") != FORMAT:
                            raise ImportFailed(f"{where}: unknown format {rec.get('format')!r}, expected {FORMAT}")
                        if rec.get("track") != evaluation.track:
                            raise ImportFailed(
                                f"{where}: judgments of track {rec.get('track')!r} cannot go into "
                                f"a {evaluation.track} evaluation"
                            )
                        seen_header = True
                        continue
                    if not seen_header:
                        raise ImportFailed(f"{where}: the first line must be the header")
                    if kind == "settings":
                        once((kind,), "the settings record", number, where)
                        if not isinstance(rec.get("settings"), dict):
                            raise ImportFailed(f"{where}: settings must be an object")
                        settings_from_file = rec["settings"]
                    elif kind == "decision":
                        key = rec.get("key")
                        if key not in evaluation.track_spec.topic_decisions:
                            raise ImportFailed(
                                f"{where}: {key!r} is no decision of track {evaluation.track} "
                                f"({', '.join(evaluation.track_spec.topic_decisions) or 'it has none'})"
                            )
                        if not isinstance(rec.get("value"), bool):
                            raise ImportFailed(
                                f"{where}: decision {key} must be true or false, not {rec.get('value')!r}"
                            )
                        once((kind, rec["topic"], key), f"decision {key} of question {rec['topic']!r}", number, where)
                        question = topic(rec["topic"], where)
                        question.data = (question.data or {}) | {key: rec["value"]}
                        Topic.objects.filter(pk=question.pk).update(data=question.data)
                    elif kind == "assignment":
                        question, who = topic(rec["topic"], where), user(rec["assessor"], where)
                        what = f"the {rec['role']} assignment of {rec['topic']}"
                        once((kind, rec["topic"], rec["role"]), what, number, where)
                        if rec["role"] not in dict(Assignment.ROLES):
                            raise ImportFailed(f"{where}: unknown assignment role {rec['role']!r}")
                        held = Assignment.objects.filter(topic=question, role=rec["role"]).first()
                        if held is None:
                            held = Assignment.objects.create(
                                evaluation=evaluation, topic=question, assessor=who, role=rec["role"]
                            )
                        elif held.assessor_id != who.id:  # the rebuild assigned someone else: say so, change nothing
                            raise ImportFailed(
                                f"{where}: {rec['topic']} is assigned to {held.assessor.username} as {rec['role']} "
                                f"here, to {who.username} in the file"
                            )
                        # the rebuild's own (the same assignment made again) takes the source's time
                        stamps.append((Assignment, held.id, "created_at", rec.get("created_at")))
                    elif kind == "invitation":
                        series = topic(rec["topic"], where) if rec.get("topic") is not None else None
                        if rec["kind"] not in dict(Invitation.KINDS):
                            raise ImportFailed(f"{where}: unknown invitation kind {rec['kind']!r}")
                        inv, made = Invitation.objects.get_or_create(
                            evaluation=evaluation,
                            topic=series,
                            user=user(rec["user"], where),
                            kind=rec["kind"],
                            defaults={"invited_by": user(rec["invited_by"], where)},
                        )
                        stamps.append((Invitation, inv.id, "created_at", rec.get("created_at")))
                    elif kind == "item":
                        key = (rec["topic"], rec["key"])
                        once((kind, *key), f"found item {key[1]!r} of question {key[0]}", number, where)
                        question = topic(rec["topic"], where)
                        if key in items:  # the rebuild made it (a found citation of the topic file)
                            replaced = derived.pop(key, [])
                            if replaced:
                                Judgment.objects.filter(id__in=replaced).delete()
                                counts["judgments_replaced"] += len(replaced)
                        else:
                            if not isinstance(rec.get("key"), str) or not rec["key"]:
                                raise ImportFailed(f"{where}: a found item needs a key")
                            made = PoolItem.objects.create(
                                evaluation=evaluation,
                                topic=question,
                                key=rec["key"],
                                pool_id=rec.get("pool_id") or "",
                                docid=rec.get("docid") or "",
                                text=rec.get("text") or "",
                                origin=PoolItem.ASSESSOR,
                                position=int(rec.get("position") or 0),
                                data=rec.get("data") or {},
                            )
                            items[key] = made.id
                            stamps.append((PoolItem, made.id, "created_at", rec.get("created_at")))
                    elif kind == "answer_class":
                        once((kind, rec["id"]), f"answer class id {rec['id']!r}", number, where)
                        c = AnswerClass.objects.create(
                            topic=topic(rec["topic"], where),
                            label=rec["label"],
                            created_by=user(rec["created_by"], where),
                        )
                        class_ids[rec["id"]] = c.id
                        stamps.append((AnswerClass, c.id, "created_at", rec.get("created_at")))
                    elif kind == "nugget":
                        once((kind, rec["id"]), f"nugget id {rec['id']!r}", number, where)
                        n = Nugget.objects.create(
                            topic=topic(rec["topic"], where),
                            text=rec["text"],
                            position=rec.get("position", 0),
                            created_by=user(rec["created_by"], where),
                        )
                        nugget_ids[rec["id"]] = n.id
                        stamps.append((Nugget, n.id, "created_at", rec.get("created_at")))
                    elif kind == "judgment":
                        jkind = rec["kind"]
                        if jkind not in declared:
                            raise ImportFailed(
                                f"{where}: judgment kind {jkind!r} is not one of track "
                                f"{evaluation.track}'s ({', '.join(declared)})"
                            )
                        item_id = nugget_id = None
                        if rec.get("item"):
                            key = (rec["item"]["topic"], rec["item"]["key"])
                            if key not in items:
                                raise ImportFailed(f"{where}: no pool item {key[1]!r} for question {key[0]}")
                            item_id = items[key]
                        elif rec.get("nugget") is not None:
                            if rec["nugget"] not in nugget_ids:
                                raise ImportFailed(f"{where}: nugget {rec['nugget']} not defined before this line")
                            nugget_id = nugget_ids[rec["nugget"]]
                        else:
                            raise ImportFailed(f"{where}: a judgment needs an item or a nugget")
                        if (nugget_id is None) != (jkind not in VOTE_KINDS):
                            raise ImportFailed(
                                f"{where}: a {jkind} judgment is "
                                f"{'on a nugget' if jkind in VOTE_KINDS else 'on a pool item'}"
                            )
                        if rec.get("role") not in dict(Judgment.ROLES):
                            raise ImportFailed(f"{where}: unknown role {rec.get('role')!r}")
                        on = f"pool item {key[1]!r} of {key[0]}" if item_id else f"nugget {rec['nugget']}"
                        once(
                            (kind, jkind, item_id, nugget_id, rec.get("assessor")),
                            f"the {jkind} judgment of {rec.get('assessor')!r} on {on}",
                            number,
                            where,
                        )
                        question = topic(rec["topic"], where)
                        value = fitting(jkind, remap(jkind, rec["value"], where), where)
                        j = Judgment.objects.create(
                            evaluation=evaluation,
                            topic=question,
                            kind=jkind,
                            item_id=item_id,
                            nugget_id=nugget_id,
                            assessor=user(rec["assessor"], where),
                            role=rec["role"],
                            value=value,
                            version=int(rec.get("version", 1)),
                        )
                        stamps.append((Judgment, j.id, "updated_at", rec.get("updated_at")))
                        for h in rec.get("history", []):
                            ch = JudgmentChange.objects.create(
                                judgment=j,
                                changed_by=user(h["changed_by"], where),
                                version=int(h["version"]),
                                before=None
                                if h.get("before") is None
                                else remap(jkind, h["before"], where, history=True),
                                after=remap(jkind, h["after"], where, history=True),
                            )
                            stamps.append((JudgmentChange, ch.id, "changed_at", h.get("changed_at")))
                            counts["changes"] += 1
                    elif kind == "closure":
                        once((kind, rec["topic"]), f"the closure of question {rec['topic']!r}", number, where)
                        c = TopicClosure.objects.create(
                            topic=topic(rec["topic"], where), closed_by=user(rec["closed_by"], where)
                        )
                        stamps.append((TopicClosure, c.id, "closed_at", rec.get("closed_at")))
                    elif kind == "structure":
                        sc = StructureChange.objects.create(
                            topic=topic(rec["topic"], where),
                            actor=user(rec["actor"], where),
                            action=rec["action"],
                            before=structure_value(rec, rec.get("before"), where),
                            after=structure_value(rec, rec.get("after"), where),
                        )
                        stamps.append((StructureChange, sc.id, "at", rec.get("at")))
                    elif kind == "search":
                        t = topic(rec["topic"], where)
                        item = rec.get("item")
                        if item is not None and (item.get("topic"), item.get("key")) not in items:
                            raise ImportFailed(
                                f"{where}: no pool item {item.get('key')!r} in question {item.get('topic')!r}"
                            )
                        if not isinstance(rec.get("query"), str) or not isinstance(rec.get("opened", []), list):
                            raise ImportFailed(f"{where}: a search record has a query (text) and opened (a list)")
                        s = SearchLog.objects.create(
                            evaluation=evaluation,
                            assessor=user(rec["assessor"], where),
                            topic=t,
                            item_id=items[(item["topic"], item["key"])] if item else None,
                            query=rec["query"],
                            filters=rec.get("filters") or {},
                            hits=int(rec.get("hits") or 0),
                            opened=rec.get("opened") or [],
                        )
                        stamps.append((SearchLog, s.id, "at", rec.get("at")))
                    else:
                        raise ImportFailed(f"{where}: unknown record type {kind!r}")
                except ImportFailed:
                    raise
                except (KeyError, TypeError, ValueError) as e:
                    raise ImportFailed(f"{where}: bad {kind} record ({type(e).__name__}: {e})") from None
                except Exception as e:  # integrity errors (a duplicate judgment...) name the line too
                    raise ImportFailed(f"{where}: cannot store {kind} ({e})") from None
                counts[kind] += 1
            if not seen_header:
                raise ImportFailed(f"{filename}: empty file (no header line)")
            if settings_from_file is not None:
                try:
                    update_settings(evaluation, settings_from_file)
                except LoadError as e:
                    raise ImportFailed(f"{filename}: settings: {'; '.join(e.problems)}") from None
            for model, pk, fname, stamp in stamps:
                when = parse_datetime(stamp) if stamp else None
                if when is not None:
                    model.objects.filter(pk=pk).update(**{fname: when})
            from pooling.staleness import mark_stale_many

            mark_stale_many(t for t in topics.values() if t.kind != "series")
    except ImportFailed:
        raise
    return dict(counts)
