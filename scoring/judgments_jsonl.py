"""Every judgment of an evaluation out and in: Assay's lossless JSON Lines, one record per line (answer classes,
nuggets, judgments with their full history, closures), and its import into an evaluation with the same questions
and pools (all or nothing). Any track's judgments go through it; a track's own export formats (QA: NIST's) are
registered with scoring.registry.register_exports.
"""

import json
from collections import defaultdict

from django.contrib.auth.models import User
from django.db import transaction

from assess.kinds import InvalidValue, check_value
from assess.models import AnswerClass, Judgment, JudgmentChange, Nugget, SearchLog, TopicClosure
from assess.official import VOTE_KINDS
from pooling.models import PoolItem, Topic

FORMAT = "assay-judgments/1"


def export_jsonl(evaluation):
    """Every answer class, nugget, judgment (with its full history) and closure of the evaluation, one JSON
    object per line. Subjects are named by question ident and pool-item key, people by username."""
    ident = dict(Topic.objects.filter(evaluation=evaluation).values_list("id", "ident"))
    users = dict(User.objects.values_list("id", "username"))
    yield _line({"type": "header", "format": FORMAT, "evaluation": evaluation.slug, "track": evaluation.track})
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
    keys = dict(PoolItem.objects.filter(evaluation=evaluation).values_list("id", "key"))
    for s in SearchLog.objects.filter(evaluation=evaluation).order_by("id"):
        # what the assessor searched while judging a topic (and item), and what they opened (issue 18)
        yield _line(
            {
                "type": "search",
                "topic": ident[s.topic_id],
                "item": {"topic": ident[s.topic_id], "key": keys[s.item_id]} if s.item_id in keys else None,
                "assessor": users[s.assessor_id],
                "query": s.query,
                "filters": s.filters,
                "hits": s.hits,
                "opened": s.opened,
                "at": s.at.isoformat(),
            }
        )


def _line(obj):
    return json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n"


class ImportFailed(Exception):
    """A bad line: the message names the file and line, and nothing has been stored."""


def import_jsonl(evaluation, lines, filename="<input>"):
    """Load an export into `evaluation` (same questions and pools, no judgments yet) in one transaction.

    Returns counts per record type. Any bad line raises ImportFailed naming FILE:LINE and changes nothing.
    """
    from django.utils.dateparse import parse_datetime

    if (
        Judgment.objects.filter(evaluation=evaluation).exists()
        or Nugget.objects.filter(topic__evaluation=evaluation).exists()
        or AnswerClass.objects.filter(topic__evaluation=evaluation).exists()
    ):
        raise ImportFailed(
            f"{filename}: evaluation {evaluation.slug} already has judgments, nuggets or answer "
            "classes; import into an evaluation without any"
        )
    topics = {t.ident: t for t in Topic.objects.filter(evaluation=evaluation)}
    items = {
        (t, k): pk
        for pk, t, k in PoolItem.objects.filter(evaluation=evaluation).values_list("id", "topic__ident", "key")
    }
    counts = defaultdict(int)
    declared = evaluation.track_spec.judgment_kinds
    class_ids, nugget_ids, users = {}, {}, {}
    stamps = []  # (model, pk, field, value) to restore auto timestamps after creation
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

    def remap(kind, value, where):
        if not isinstance(value, dict):
            raise ImportFailed(f"{where}: value must be an object")
        value = dict(value)
        if value.get("answer_class") is not None:
            if value["answer_class"] not in class_ids:
                raise ImportFailed(f"{where}: answer class {value['answer_class']} not defined before this line")
            value["answer_class"] = class_ids[value["answer_class"]]
        if kind == "nugget_match":
            try:
                value["nuggets"] = [nugget_ids[n] for n in value.get("nuggets", [])]
            except KeyError as missing:
                raise ImportFailed(f"{where}: nugget {missing} not defined before this line") from None
        return value

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
                    rec = json.loads(raw)
                except json.JSONDecodeError as e:
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
                    if kind == "answer_class":
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
                                before=None if h.get("before") is None else remap(jkind, h["before"], where),
                                after=remap(jkind, h["after"], where),
                            )
                            stamps.append((JudgmentChange, ch.id, "changed_at", h.get("changed_at")))
                            counts["changes"] += 1
                    elif kind == "closure":
                        once((kind, rec["topic"]), f"the closure of question {rec['topic']!r}", number, where)
                        c = TopicClosure.objects.create(
                            topic=topic(rec["topic"], where), closed_by=user(rec["closed_by"], where)
                        )
                        stamps.append((TopicClosure, c.id, "closed_at", rec.get("closed_at")))
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
            for model, pk, fname, stamp in stamps:
                when = parse_datetime(stamp) if stamp else None
                if when is not None:
                    model.objects.filter(pk=pk).update(**{fname: when})
            from pooling.staleness import mark_stale_many

            mark_stale_many(t for t in topics.values() if t.kind != "series")
    except ImportFailed:
        raise
    return dict(counts)
