"""BOLT IR phase 2 on the shared machinery: what the checker may know of the corpus, citation and grouping
judgments through assess.judging, assessor-found citations, agreement, and the export.

Loading topics and runs, pool building and scoring all go through the shared code (pooling.topics, pooling.runs,
pooling.pools, scoring.registry); this module only adds what BOLT needs on top. BOLT data lives in the JSON
fields: RunEntry.data (post, offset, length, score, rank, near_dup, leader; view/group for grouping lines),
PoolItem.data (post, offset, length; for a grouping view: bolt="view", run, view), Judgment.value.

Judgment kinds and values:
- "citation" on a citation pool item: {"rel": yes|maybe|no, "trans": accept|problematic|notaccept|na,
  "chksrc": bool, "relspans": [[start, length], ...]} (positions in the passage).
- "grouping" on a view item (origin "assessor", so pool rebuilds keep it; key "view\\t<run tag>\\t<view>"):
  {"relevant": bool|None, "useful": bool|None,
   "groups": {<group number>: {"relevant", "cohesive", "scope": bool|None, "members": {<pool key>: bool}}}}
  written whole (judge_view) or one answer at a time (judge_view_field).
"""

from django.db import transaction
from django.db.models import Max

from assess import judging as generic
from assess.models import Assignment, Judgment
from corpus.models import Document
from pooling.evaluations import effective_settings
from pooling.models import PoolItem, Run, RunEntry, Topic
from tracks.bolt.formats.citations import citation_key
from tracks.bolt.formats.xml_common import COLLAPSED, collapse_with_spans
from tracks.bolt.near_duplicates import leader_judgment

TRACK = "bolt-ir-p2"
RELS = ("yes", "maybe", "no")
TRANS = ("accept", "problematic", "notaccept", "na")


class BoltError(generic.JudgingError):
    pass


# --- what the checker may know --------------------------------------------------------------------------------


def check_extra(evaluation):
    """CheckContext.extra for BOLT run files: post lengths from the forum collection, and the evaluation's
    citation runs (for grouping files), read only when a file needs them."""
    collection_ids = list(evaluation.collections.values_list("pk", flat=True))

    known = {}  # thread: {post: length}, or None outside the collection; the batch's files share most threads

    def post_lengths(threads):
        threads = set(threads)
        missing = [t for t in threads if t not in known]
        for start in range(0, len(missing), 2000):
            batch = missing[start : start + 2000]
            known.update(dict.fromkeys(batch))
            rows = Document.objects.filter(collection_id__in=collection_ids, docno__in=batch)
            for docno, meta in rows.values_list("docno", "meta"):
                known[docno] = {p["id"]: p["length"] for p in (meta or {}).get("posts", ())}
        return {t: known[t] for t in threads if known[t] is not None}

    return {
        "post_lengths": post_lengths,
        "citation_runs": lambda: citation_runs(evaluation),
        "citation_run_teams": lambda: {r.tag: r.team.name for r in runs_of(evaluation)},
    }


def citation_runs(evaluation):
    """{run tag: {topic ident: [citation dicts]}} of the evaluation's citation runs, with pooling ids."""
    ids = {
        (ident, key): pid
        for ident, key, pid in PoolItem.objects.filter(evaluation=evaluation).values_list(
            "topic__ident", "key", "pool_id"
        )
    }
    runs = {}
    # A NULL-safe "not a grouping run" (exclude() on a missing JSON key would drop the row).
    tags = [r.tag for r in runs_of(evaluation, "citations")]
    rows = RunEntry.objects.filter(run__evaluation=evaluation, run__tag__in=tags).values_list(
        "run__tag", "topic__ident", "docid", "text", "data"
    )
    for tag, ident, thread, passage, data in rows:
        key = citation_key(thread, data.get("post"), data.get("offset"), data.get("length"), passage)
        runs.setdefault(tag, {}).setdefault(ident, []).append(
            {
                "thread": thread,
                "post": data.get("post"),
                "offset": data.get("offset"),
                "length": data.get("length"),
                "score": data.get("score"),
                "passage": passage,
                "id": ids.get((ident, key), ""),
            }
        )
    return runs


# --- topics and items -----------------------------------------------------------------------------------------


def bolt_topics(evaluation):
    return list(Topic.objects.filter(evaluation=evaluation, parent__isnull=True).order_by("position"))


def citation_items(topic):
    """The topic's citation pool items in assessor order (grouping view items left out)."""
    return [i for i in PoolItem.objects.filter(topic=topic).order_by("position", "id") if i.data.get("bolt") != "view"]


def collection_of(evaluation):
    return evaluation.collections.filter(format="bolt-forum").first()


def import_topic_citations(evaluation, user):
    """The citations LDC found while developing each topic (its <cite> elements) become assessor-found pool
    items with their judgment (rel and relspans from the file), recorded as `user`'s. Their passages are read
    as the evaluation reads the runs' (setting passage_white_space). Idempotent."""
    collapsed = effective_settings(evaluation).get("passage_white_space") == COLLAPSED
    created = 0
    for topic in bolt_topics(evaluation):
        for cite in (topic.data.get("assessor") or {}).get("citations", []):
            passage, relspans = cite["passage"], cite["relspans"]
            if collapsed:
                passage, relspans = collapse_with_spans(passage, relspans)
            item, new = _found_item(
                topic,
                cite["thread"],
                cite["post"],
                cite["offset"],
                cite["length"],
                passage,
                {"found_by": "topic file", "ldc_id": cite["id"]},
            )
            if new:
                created += 1
                generic.save_judgment(
                    user,
                    topic=topic,
                    kind="citation",
                    role=Judgment.PRIMARY,
                    item=item,
                    value={"rel": cite["rel"], "trans": "na", "chksrc": True, "relspans": relspans},
                    expected_version=0,
                )
    return created


def _found_item(topic, thread, post, offset, length, passage, data):
    key = citation_key(thread, post, offset, length, passage)
    with transaction.atomic():
        item = PoolItem.objects.select_for_update(of=("self",)).filter(topic=topic, key=key).first()
        if item is not None:
            return item, False
        count = PoolItem.objects.filter(topic=topic, origin=PoolItem.ASSESSOR, pool_id__contains="-A").count()
        position = (PoolItem.objects.filter(topic=topic).aggregate(m=Max("position"))["m"] or 0) + 1
        item = PoolItem.objects.create(
            evaluation_id=topic.evaluation_id,
            topic=topic,
            key=key,
            pool_id=f"{topic.ident}-A{count + 1}",
            docid=thread,
            text=passage,
            origin=PoolItem.ASSESSOR,
            position=position,
            data={"post": post, "offset": offset, "length": length} | data,
        )
    return item, True


# --- judging --------------------------------------------------------------------------------------------------


def role_on(user, topic):
    return Assignment.objects.filter(assessor=user, topic=topic).values_list("role", flat=True).first()


def clean_citation_value(value, passage_length):
    """A citation judgment value checked and normalised; BoltError naming what is wrong otherwise."""
    if not isinstance(value, dict):
        raise BoltError("a citation judgment is an object: rel, trans, chksrc and relspans")
    rel = value.get("rel")
    if rel not in RELS:
        raise BoltError(f"rel must be one of {', '.join(RELS)}, not {rel!r}")
    trans = value.get("trans") or "na"
    if trans not in TRANS:
        raise BoltError(f"trans must be one of {', '.join(TRANS)}, not {trans!r}")
    relspans = value.get("relspans") or []
    if not isinstance(relspans, list):
        raise BoltError(f"relspans is a list of [start, length], not {relspans!r}")
    spans = []
    for span in relspans:
        try:
            if not isinstance(span, (list, tuple)):
                raise TypeError
            start, length = int(span[0]), int(span[1])
        except (TypeError, ValueError, IndexError, OverflowError):  # OverflowError: int() of an infinite float
            raise BoltError(f"a relspan is [start, length], not {span!r}") from None
        if start < 0 or length <= 0 or start + length > passage_length:
            raise BoltError(f"relspan [{start}, {length}] lies outside the passage of {passage_length} characters")
        if [start, length] not in spans:
            spans.append([start, length])
    spans.sort()
    if rel == "no":
        trans, spans = "na", []
    return {"rel": rel, "trans": trans, "chksrc": bool(value.get("chksrc")), "relspans": spans}


def judge_citation(user, item, value, expected_version):
    """Save the user's citation judgment on a pool item of a topic assigned to them (primary or second)."""
    # read with the item by assess.judging.load_item (the save view's; BOLT topics have no series above them)
    role = item.my_role if hasattr(item, "my_role") else role_on(user, item.topic)
    if role is None:
        raise generic.Forbidden(f"topic {item.topic.ident} is not assigned to you")
    if item.data.get("bolt") == "view":
        raise BoltError("this item is a grouping view; judge it on the grouping page")
    clean = clean_citation_value(value, len(item.text))
    return generic.save_judgment(
        user,
        topic=item.topic,
        kind="citation",
        role=role,
        item=item,
        value=clean,
        expected_version=expected_version,
        closed=getattr(item, "closed", None),
    )


def add_found_citation(user, topic, thread, post, offset, length, passage, rel="yes"):
    """An assessor-found citation: a span the assessor selected in a thread, judged by them at once."""
    if role_on(user, topic) is None:
        raise generic.Forbidden(f"topic {topic.ident} is not assigned to you")
    passage = " ".join((passage or "").split())
    if not passage:
        raise BoltError("select some text in a post first")
    if len(passage) > 250:
        raise BoltError(f"a citation is at most 250 characters; the selection has {len(passage)}")
    doc = Document.objects.filter(collection__in=topic.evaluation.collections.all(), docno=thread).first()
    posts = {p["id"]: p["length"] for p in (doc.meta.get("posts", ()) if doc else ())}
    if post not in posts:
        raise BoltError(f"post {post!r} is not in thread {thread!r}")
    offset, length = int(offset), int(length)
    if offset < 0 or length <= 0 or offset + length > posts[post]:
        raise BoltError(f"offset {offset} + length {length} lies outside post {post!r} ({posts[post]} characters)")
    item, new = _found_item(topic, thread, post, offset, length, passage, {"found_by": user.username})
    saved = judge_citation(
        user, item, {"rel": rel, "trans": "na", "chksrc": True, "relspans": []}, None if not new else 0
    )
    return item, saved


def my_judgments(user, items, kind="citation"):
    return {j.item_id: j for j in Judgment.objects.filter(assessor=user, kind=kind, item__in=items)}


# --- grouping -------------------------------------------------------------------------------------------------


def grouping_views(topic):
    """{(run tag, view number): view item} for the topic's grouping runs, creating the view items that are
    missing (origin "assessor": a pool rebuild neither deletes nor relinks them)."""
    rows = (
        RunEntry.objects.filter(topic=topic, run__data__subtask="groups")
        .order_by("run__tag", "line_no")
        .values_list("run__tag", "data")
    )
    wanted = {}
    for tag, data in rows:
        wanted.setdefault((tag, data["view"]), data["view_label"])
    items = {
        (i.data.get("run"), i.data.get("view")): i for i in PoolItem.objects.filter(topic=topic, data__bolt="view")
    }
    for (tag, view), label in wanted.items():
        if (tag, view) not in items:
            item, _ = PoolItem.objects.get_or_create(
                topic=topic,
                key=f"view\t{tag}\t{view}",
                defaults={
                    "evaluation_id": topic.evaluation_id,
                    "origin": PoolItem.ASSESSOR,
                    "text": label,
                    "pool_id": f"{topic.ident}-V-{tag}-{view}",
                    "data": {"bolt": "view", "run": tag, "view": view},
                },
            )
            items[(tag, view)] = item
    return dict(sorted(items.items()))


def view_structure(item):
    """The groups of a view item: [{number, label, misc, citations: [{key, passage, thread, post, ...}]}]."""
    return groups_of(item.topic_id, item.data["run"], item.data["view"])


def grouping_views_of(topic_ids):
    """[(topic id, grouping run tag, view number)] of every view the grouping runs return for the topics."""
    # JSON keys are read in Python: SQLite's JSON functions turn a view number such as "0" into an integer.
    rows = RunEntry.objects.filter(topic_id__in=list(topic_ids), run__data__subtask="groups").values_list(
        "topic_id", "run__tag", "data"
    )
    return sorted({(tid, tag, data["view"]) for tid, tag, data in rows})


def groups_of(topic_id, tag, view):
    groups = {}
    rows = (
        RunEntry.objects.filter(topic_id=topic_id, run__tag=tag)
        .order_by("line_no")
        .values_list("docid", "text", "data")
    )
    for thread, passage, data in rows:
        if data.get("view") != view:
            continue
        group = groups.setdefault(
            data["group"],
            {"number": data["group"], "label": data["group_label"], "misc": data["misc"], "citations": []},
        )
        group["citations"].append(
            {
                "key": citation_key(thread, data["post"], data["offset"], data["length"], passage),
                "thread": thread,
                "post": data["post"],
                "offset": data["offset"],
                "length": data["length"],
                "passage": passage,
                "grpscore": data["grpscore"],
            }
        )
    return list(groups.values())


def _flag(value):
    return None if value in (None, "") else value in (True, "yes", "1", "true", 1)


def judge_view(user, item, value, expected_version):
    """Save the user's grouping judgment of one view (the whole view at once, checked against its groups)."""
    role = role_on(user, item.topic)
    if role is None:
        raise generic.Forbidden(f"topic {item.topic.ident} is not assigned to you")
    if item.data.get("bolt") != "view":
        raise BoltError("this item is not a grouping view")
    structure = {g["number"]: g for g in view_structure(item)}
    clean = {"relevant": _flag(value.get("relevant")), "useful": _flag(value.get("useful")), "groups": {}}
    for number, g in (value.get("groups") or {}).items():
        if number not in structure:
            raise BoltError(f"view {item.data['view']} has no group {number!r}")
        if structure[number]["misc"]:
            continue  # the miscellaneous group is not judged
        keys = {c["key"] for c in structure[number]["citations"]}
        members = {k: _flag(v) for k, v in (g.get("members") or {}).items() if k in keys and _flag(v) is not None}
        clean["groups"][number] = {
            "relevant": _flag(g.get("relevant")),
            "cohesive": _flag(g.get("cohesive")),
            "scope": _flag(g.get("scope")),
            "members": members,
        }
    return generic.save_judgment(
        user, topic=item.topic, kind="grouping", role=role, item=item, value=clean, expected_version=expected_version
    )


# What a view and each of its groups are asked (the seed's grouping assessment), as the pages word it.
VIEW_LABELS = {"relevant": "Relevant to the topic", "useful": "A useful way to cluster the citations"}
GROUP_LABELS = {
    "relevant": "Relevant to the topic",
    "cohesive": "A reasonable member of the view",
    "scope": "At the right level of granularity",
}
VIEW_QUESTIONS, GROUP_QUESTIONS = tuple(VIEW_LABELS), tuple(GROUP_LABELS)


def judge_view_field(user, item, group, name, member, answer, expected_version):
    """Save one yes/no answer of the user's grouping judgment of a view, keeping the rest of the value: the view's
    `name` (relevant, useful) when `group` is empty, else group `group`'s `name` (relevant, cohesive, scope), or,
    with `member` (a citation's pool key), whether that citation belongs in the group. `answer` None clears it.
    The change is applied to the stored value under its row lock, after the version check."""
    role = role_on(user, item.topic)
    if role is None:
        raise generic.Forbidden(f"topic {item.topic.ident} is not assigned to you")
    if item.data.get("bolt") != "view":
        raise BoltError("this item is not a grouping view")
    flag = _flag(answer)
    if group in (None, ""):
        if name not in VIEW_QUESTIONS or member:
            raise BoltError(f"a view is asked {' and '.join(VIEW_QUESTIONS)}, not {name!r}")
    else:
        structure = {g["number"]: g for g in view_structure(item)}
        group = str(group)
        if group not in structure:
            raise BoltError(f"view {item.data['view']} has no group {group!r}")
        if structure[group]["misc"]:
            raise BoltError("the miscellaneous group is not judged")
        if member:
            if member not in {c["key"] for c in structure[group]["citations"]}:
                raise BoltError(f"group {group} has no such citation")
        elif name not in GROUP_QUESTIONS:
            raise BoltError(f"a group is asked {', '.join(GROUP_QUESTIONS)}, not {name!r}")

    def answered(current):
        value = {"relevant": None, "useful": None, **(current or {})}
        value["groups"] = {
            n: {**g, "members": dict(g.get("members") or {})} for n, g in (value.get("groups") or {}).items()
        }
        if group in (None, ""):
            value[name] = flag
            return value
        judged = value["groups"].setdefault(group, {"relevant": None, "cohesive": None, "scope": None, "members": {}})
        if not member:
            judged[name] = flag
        elif flag is None:
            judged["members"].pop(member, None)
        else:
            judged["members"][member] = flag
        return value

    return generic.save_judgment(
        user, topic=item.topic, kind="grouping", role=role, item=item, value=answered, expected_version=expected_version
    )


# --- agreement ------------------------------------------------------------------------------------------------


def agreement(evaluation):
    """Per double-judged topic and overall: items judged by both assessors, percent agreement and Cohen's kappa
    on yes/maybe/no, and on relevant (yes or maybe) against not."""
    from assess.agreement import cohens_kappa, percent_agreement

    rows = Judgment.objects.filter(
        evaluation=evaluation, kind="citation", role__in=[Judgment.PRIMARY, Judgment.SECONDARY]
    ).values_list("topic_id", "item_id", "role", "value")
    by_item = {}
    for topic_id, item_id, role, value in rows:
        by_item.setdefault((topic_id, item_id), {})[role] = value.get("rel")
    per_topic = {}
    for (topic_id, _), roles in by_item.items():
        if Judgment.PRIMARY in roles and Judgment.SECONDARY in roles:
            per_topic.setdefault(topic_id, []).append((roles[Judgment.PRIMARY], roles[Judgment.SECONDARY]))
    idents = dict(Topic.objects.filter(pk__in=list(per_topic)).values_list("pk", "ident"))

    def summary(pairs):
        binary = [(a in ("yes", "maybe"), b in ("yes", "maybe")) for a, b in pairs]
        return {
            "items": len(pairs),
            "agreement": percent_agreement(pairs),
            "kappa": cohens_kappa(pairs),
            "binary_agreement": percent_agreement(binary),
            "binary_kappa": cohens_kappa(binary),
        }

    topics = [{"topic": idents[t], **summary(p)} for t, p in sorted(per_topic.items(), key=lambda kv: idents[kv[0]])]
    everything = [pair for p in per_topic.values() for pair in p]
    return {"topics": topics, "overall": summary(everything)}


# --- export ---------------------------------------------------------------------------------------------------


def export_run(run):
    """The run's citations with their official judgments as DTD-valid XML bytes (tracks.bolt.formats.export)."""
    from assess.official import official_values
    from corpus.formats.bolt_forum import post_raw_text
    from tracks.bolt.formats import export

    evaluation = run.evaluation
    topics = {t.pk: t for t in bolt_topics(evaluation)}
    items = {(i.topic_id, i.key): i for i in PoolItem.objects.filter(evaluation=evaluation)}
    official = official_values(list(topics), "citation")
    entries = list(RunEntry.objects.filter(run=run).order_by("line_no"))
    threads = {e.docid for e in entries}
    docs = {d.docno: d for d in Document.objects.filter(collection__in=evaluation.collections.all(), docno__in=threads)}
    by_line = {(e.topic_id, e.line_no): e for e in entries}
    responses = {}
    for e in entries:
        d = e.data
        key = citation_key(e.docid, d["post"], d["offset"], d["length"], e.text)
        item = items.get((e.topic_id, key))
        judgment = official.get(item.pk) if item is not None else None
        if d.get("near_dup"):  # takes the judgment of its class leader, relevant parts carried to its own text
            leader = by_line.get((e.topic_id, d.get("leader")))
            if leader is not None:
                lkey = citation_key(
                    leader.docid, leader.data["post"], leader.data["offset"], leader.data["length"], leader.text
                )
                judged_by = items.get((e.topic_id, lkey))
                judgment = leader_judgment(leader.text, e.text, official.get(judged_by.pk) if judged_by else None)
        doc = docs.get(e.docid)
        original = post_raw_text(bytes(doc.raw), doc.meta, d["post"]) if doc else None
        if original is not None:
            original = original[d["offset"] : d["offset"] + d["length"]]
        responses.setdefault(e.topic_id, []).append(
            {
                "id": item.pool_id if item is not None else "-1",
                "score": d["score"],
                "thread": e.docid,
                "post": d["post"],
                "offset": d["offset"],
                "length": d["length"],
                "passage": e.text,
                "original": original,
                "judgment": judgment,
                "rank": d.get("rank", 0),
            }
        )
    ordered = [(topics[t].ident, sorted(c, key=lambda c: c["rank"])) for t in topics for c in [responses.get(t, [])]]
    header = {name: run.data.get(name, "") for name in ("team", "date", "eval", "contact")}
    header["team"] = header["team"] or run.team.name
    return export.export_citations(header, ordered)


def runs_of(evaluation, subtask="citations"):
    runs = Run.objects.filter(evaluation=evaluation).select_related("team").order_by("tag")
    return [r for r in runs if (r.data or {}).get("subtask", "citations") == subtask]
