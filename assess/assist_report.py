"""What the organizer sees of an assisted-judging experiment (issue 30; docs/assist.md defines each number): per
condition and primary assessor, agreement with the suggestions before and after the reveal, the anchoring rate,
time per item and agreement with a second human. The page, the API and the CSV all read `report`.

`facts` reads one row per primary judgment from the database; `summarize` is plain arithmetic over them, so a
fixture's numbers can be counted by hand.
"""

import csv
import io
from dataclasses import dataclass

from django.contrib.auth import get_user_model

from assess.assist import CONDITIONS, NONE, decisive
from assess.models import (
    Assignment,
    AssistCondition,
    AssistDesign,
    Judgment,
    JudgmentChange,
    Nugget,
    StructureChange,
    Suggestion,
    SuggestionShown,
)
from assess.official import ASSIST_OFFICIAL, REVISED
from assess.progress import IDLE_CAP


@dataclass
class Fact:
    condition: str
    assessor: str
    item: int
    suggested: object  # the decisive part of the suggestion (None: no suggestion for the item)
    before: object  # of the assessor's value when the suggestion was first shown (None: shown before any save)
    final: object  # of the judgment as it stands
    shown: bool  # the suggestion was sent to the assessor
    revised_after: bool  # a save after the suggestion was shown changed the value
    seconds: float  # time attributed to the item's saves
    second: object = None  # the decisive part of a second assessor's judgment (None: not double judged)


def facts(evaluation, kind):
    """One Fact per primary judgment of `kind` on an item of the evaluation's draw (nugget proposals: one
    NuggetFact per topic, `nugget_facts`)."""
    if kind == PROPOSALS:
        return nugget_facts(evaluation)
    conditions = dict(AssistCondition.objects.filter(evaluation=evaluation).values_list("item_id", "condition"))
    judgments = list(
        Judgment.objects.filter(evaluation=evaluation, kind=kind, item_id__in=conditions, role=Judgment.PRIMARY)
        .select_related("assessor")
        .order_by("id")
    )
    seconds = _seconds_per_save(evaluation)
    changes = {}
    for change in JudgmentChange.objects.filter(judgment__in=judgments).order_by("version", "id"):
        changes.setdefault(change.judgment_id, []).append(change)
    newest = {}
    for s in Suggestion.objects.filter(evaluation=evaluation, kind=kind, error="").order_by("id"):
        newest[s.item_id] = s
    shown = {}  # the first showing per assessor and item (the line between own and assisted judgments)
    for row in (
        SuggestionShown.objects.filter(suggestion__evaluation=evaluation, suggestion__kind=kind)
        .select_related("suggestion")
        .order_by("id")
    ):
        shown.setdefault((row.assessor_id, row.item_id), row)
    second = {
        j.item_id: decisive(kind, j.value)
        for j in Judgment.objects.filter(evaluation=evaluation, kind=kind, role=Judgment.SECONDARY)
    }
    out = []
    for j in judgments:
        seen = shown.get((j.assessor_id, j.item_id))
        suggestion = seen.suggestion if seen else newest.get(j.item_id)
        history = changes.get(j.pk, [])
        if seen is None:
            before, revised = j.value, False
        else:
            earlier = [c for c in history if c.version <= seen.judgment_version]
            before = earlier[-1].after if earlier else None
            revised = any(c.version > seen.judgment_version and c.after != c.before for c in history)
        out.append(
            Fact(
                condition=conditions[j.item_id],
                assessor=j.assessor.username,
                item=j.item_id,
                suggested=decisive(kind, suggestion.value) if suggestion else None,
                before=decisive(kind, before) if before is not None else None,
                final=decisive(kind, j.value),
                shown=seen is not None,
                revised_after=revised,
                seconds=sum(seconds.get(c.pk, 0.0) for c in history),
                second=second.get(j.item_id),
            )
        )
    return out


def _seconds_per_save(evaluation):
    """{change id: seconds since the same assessor's previous save}, capped at IDLE_CAP (assess.progress)."""
    out, last = {}, {}
    rows = (
        JudgmentChange.objects.filter(judgment__evaluation=evaluation)
        .order_by("changed_by_id", "changed_at", "id")
        .values_list("pk", "changed_by_id", "changed_at")
    )
    for pk, who, at in rows:
        if who in last:
            out[pk] = min((at - last[who]).total_seconds(), IDLE_CAP)
        last[who] = at
    return out


def _share(hits, n):
    return round(hits / n, 4) if n else None


COLUMNS = (
    "condition",
    "assessor",
    "judged",
    "with_suggestion",
    "agree_before",
    "agree_before_n",
    "agree_after",
    "agree_after_n",
    "revised_after_reveal",
    "anchoring_rate",
    "anchored",
    "anchoring_n",
    "seconds_per_item",
    "second_human_agreement",
    "second_human_n",
    "official",
)


def summarize(rows):
    """The report's rows (dicts of COLUMNS) per condition and assessor, and per condition for all ("*").

    - agree_before: judgments with a suggestion and a value of the assessor's own (saved before any suggestion
      was shown; for *none*, the judgment itself), the share equal to the suggestion;
    - agree_after: judgments with a suggestion shown, the share whose value now equals it;
    - anchoring rate: *reveal after* judgments whose own value differed from the suggestion, the share whose
      value now equals it (revised toward the suggestion after the reveal);
    - seconds per item: the time of the item's saves (each gap since the assessor's previous save, capped);
    - second-human agreement: judgments with a second assessor's on the same item, the share equal to it.
    """
    groups = {}
    for f in rows:
        groups.setdefault((f.condition, f.assessor), []).append(f)
        groups.setdefault((f.condition, "*"), []).append(f)
    out = []
    order = {c: n for n, c in enumerate(CONDITIONS)}
    for (condition, assessor), fs in sorted(
        groups.items(), key=lambda g: (order.get(g[0][0], 9), g[0][1] != "*", g[0][1])
    ):
        with_s = [f for f in fs if f.suggested is not None]
        own = [f for f in with_s if f.before is not None]
        after = [f for f in with_s if f.shown]
        base = [f for f in own if f.shown and f.condition == "reveal_after" and f.before != f.suggested]
        anchored = [f for f in base if f.final == f.suggested]
        second = [f for f in fs if f.second is not None]
        out.append(
            {
                "condition": condition,
                "assessor": assessor,
                "judged": len(fs),
                "with_suggestion": len(with_s),
                "agree_before": _share(sum(f.before == f.suggested for f in own), len(own)),
                "agree_before_n": len(own),
                "agree_after": _share(sum(f.final == f.suggested for f in after), len(after)),
                "agree_after_n": len(after),
                "revised_after_reveal": sum(f.revised_after for f in fs if f.condition == "reveal_after"),
                "anchoring_rate": _share(len(anchored), len(base)),
                "anchored": len(anchored),
                "anchoring_n": len(base),
                "seconds_per_item": round(sum(f.seconds for f in fs) / len(fs), 1) if fs else None,
                "second_human_agreement": _share(sum(f.final == f.second for f in second), len(second)),
                "second_human_n": len(second),
            }
        )
    return out


def official_value(evaluation):
    """Which value of a *reveal after* judgment is official: "revised" (default: the judgment as it stands) or
    "pre_reveal" (the assessor's own from before the showing; setting assist_official, assess.official)."""
    return evaluation.setting(ASSIST_OFFICIAL, REVISED)


def report(evaluation, kind):
    """summarize's rows, each saying which value was official (the column "official"); for nugget proposals,
    summarize_nuggets' rows (no official column: a nugget list has one version)."""
    if kind == PROPOSALS:
        return summarize_nuggets(nugget_facts(evaluation))
    official = official_value(evaluation)
    return [row | {"official": official} for row in summarize(facts(evaluation, kind))]


def columns(kind):
    """The report's columns for `kind` (the page's table and the CSV header)."""
    return NUGGET_COLUMNS if kind == PROPOSALS else COLUMNS


def fact_columns(kind):
    return NUGGET_FACT_COLUMNS if kind == PROPOSALS else FACT_COLUMNS


def as_csv(rows, kind=""):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns(kind), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


FACT_COLUMNS = (
    "condition",
    "assessor",
    "item",
    "suggested",
    "before",
    "final",
    "shown",
    "revised_after",
    "seconds",
    "second",
)


def facts_csv(rows, kind=""):
    """One line per primary judgment (Fact; nugget proposals: per topic, NuggetFact), for an analysis of one's own
    (the paper's statistics)."""
    names = fact_columns(kind)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    for f in rows:
        writer.writerow(["" if getattr(f, c) is None else getattr(f, c) for c in names])
    return buffer.getvalue()


def assisted_kinds(evaluation):
    """The evaluation's judgment kinds that suggestions can be given for (a label or nugget matches), and
    "nugget_proposals" once the evaluation has any (a model server's nugget lists, reported per topic)."""
    from assess.assist import label_key

    kinds = [k for k in evaluation.track_spec.judgment_kinds if label_key(k) or k == "nugget_match"]
    if Suggestion.objects.filter(evaluation=evaluation, kind=PROPOSALS).exists():
        kinds.append(PROPOSALS)
    return kinds


# --- nugget proposals (assess.assist_nuggets): one list per topic, so one fact per topic ----------------------

PROPOSALS = "nugget_proposals"  # assess.assist_nuggets.KIND


@dataclass
class NuggetFact:
    condition: str  # the topic's (AssistDesign.topics)
    assessor: str  # the topic's primary assessor
    topic: str
    own: int  # nuggets the list had when the proposals were first shown (never shown: all it has now)
    shown: int  # proposals shown (0 while never shown)
    accepted: int  # accepted as proposed
    edited: int  # accepted after an edit
    rejected: int
    final: int  # the topic's nuggets now
    from_proposals: int  # of those, the ones made from an accepted proposal


def nugget_facts(evaluation):
    """One NuggetFact per topic that has good nugget proposals and a primary assessor, read from the showing
    (SuggestionShown.judgment_version: the list's length then) and the topic's structure log: each
    "nugget.proposal_accepted" is followed, in the same locked transaction, by the "nugget.create" of the
    nugget it made (its text differs from the proposal's, or its `from` says so: edited)."""
    design = AssistDesign.objects.filter(evaluation=evaluation).values_list("topics", flat=True).first() or {}
    proposals = {}
    good = Suggestion.objects.filter(evaluation=evaluation, kind=PROPOSALS, item=None, error="")
    for s in good.select_related("topic").order_by("id"):
        proposals.setdefault(s.topic_id, []).append(s)
    topics = {s[0].topic_id: s[0].topic for s in proposals.values()}
    # a question's primary is assigned on its series (the parent topic), as assess.judging.assignment_role reads
    primary = dict(
        Assignment.objects.filter(
            evaluation=evaluation,
            topic_id__in={t.parent_id or t.pk for t in topics.values()} | set(topics),
            role=Assignment.PRIMARY,
        ).values_list("topic_id", "assessor_id")
    )
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=set(primary.values()))}
    out = []
    for topic_id, topic in topics.items():
        who = primary.get(topic_id) or primary.get(topic.parent_id)
        if who is None:
            continue
        assessor = users[who]
        shown = list(
            SuggestionShown.objects.filter(suggestion__in=proposals[topic_id], assessor=assessor)
            .select_related("suggestion")
            .order_by("id")
        )
        nuggets = set(Nugget.objects.filter(topic_id=topic_id).values_list("pk", flat=True))
        accepted = edited = rejected = 0
        made = set()
        taking = None  # the proposal_accepted row whose nugget.create comes next
        for row in StructureChange.objects.filter(topic_id=topic_id, actor=assessor).order_by("id"):
            if row.action == "nugget.proposal_rejected":
                rejected += 1
            elif row.action == "nugget.proposal_accepted":
                taking = row.before or {}
            elif row.action == "nugget.create" and taking is not None:
                after = row.after or {}
                was_edited = after.get("from") == "model proposal, edited" or (
                    "from" not in after and _words(after.get("text")) != _words(taking.get("text"))
                )
                edited += was_edited
                accepted += not was_edited
                made.add(after.get("id"))
                taking = None
        out.append(
            NuggetFact(
                condition=design.get(topic.ident, NONE),
                assessor=assessor.username,
                topic=topic.ident,
                own=shown[0].judgment_version if shown else len(nuggets),
                shown=sum(len((s.suggestion.value or {}).get("nuggets") or []) for s in shown),
                accepted=accepted,
                edited=edited,
                rejected=rejected,
                final=len(nuggets),
                from_proposals=len(nuggets & made),
            )
        )
    return sorted(out, key=lambda f: (f.condition, f.assessor, f.topic))


def _words(text):
    return " ".join(str(text or "").split())  # a track's nugget text is whitespace-normalised on creation


NUGGET_COLUMNS = (
    "condition",
    "assessor",
    "topics",
    "own_nuggets",
    "proposals_shown",
    "accepted",
    "accepted_edited",
    "rejected",
    "pending",
    "from_proposals_share",
    "from_proposals",
    "final_nuggets",
)

NUGGET_FACT_COLUMNS = (
    "condition",
    "assessor",
    "topic",
    "own",
    "shown",
    "accepted",
    "edited",
    "rejected",
    "final",
    "from_proposals",
)


def summarize_nuggets(rows):
    """The report's rows (dicts of NUGGET_COLUMNS) per condition and primary assessor, and per condition for all
    ("*"): sums over the topics, pending = shown - accepted - edited - rejected, and the share of the final
    nuggets that came from proposals (the anchoring analogue: how much of the list is the model's)."""
    groups = {}
    for f in rows:
        groups.setdefault((f.condition, f.assessor), []).append(f)
        groups.setdefault((f.condition, "*"), []).append(f)
    order = {c: n for n, c in enumerate(CONDITIONS)}
    out = []
    for (condition, assessor), fs in sorted(
        groups.items(), key=lambda g: (order.get(g[0][0], 9), g[0][1] != "*", g[0][1])
    ):
        total = {k: sum(getattr(f, k) for f in fs) for k in ("own", "shown", "accepted", "edited", "rejected")}
        final, made = sum(f.final for f in fs), sum(f.from_proposals for f in fs)
        out.append(
            {
                "condition": condition,
                "assessor": assessor,
                "topics": len(fs),
                "own_nuggets": total["own"],
                "proposals_shown": total["shown"],
                "accepted": total["accepted"],
                "accepted_edited": total["edited"],
                "rejected": total["rejected"],
                "pending": total["shown"] - total["accepted"] - total["edited"] - total["rejected"],
                "from_proposals_share": _share(made, final),
                "from_proposals": made,
                "final_nuggets": final,
            }
        )
    return out
