"""QA judgments out in NIST's formats (as in the TREC QA data READMEs), offered beside the JSON Lines of every
evaluation (registered in tracks/qa/plugin.py as core.extension_points.judgment_exports):
- list judgments: `qid tag docid judgment distinct? string`; judgment -1 wrong, 1 right (globally correct),
  2 unsupported, 3 inexact, 4 locally correct, 0 not judged; distinct? is 1 only for the one right instance of
  each answer class in the run's response. A NIL response is judged by rule (tracks.qa.nil_answers), as NIST's
  files judge it: 1 when the question's answer is NIL, -1 when it is not (a known answer, or the organizer's
  decision), 0 while that cannot be told yet (pooled answers still unjudged, no decision).
- nugget lists: `qid nugget-number vital|okay weight text` (vital|okay: the official vote, i.e. the primary's
  first vote or an adjudicated one; weight: pyramid weight, vital votes over every vote set — invited voters and
  the primary's later set ("nugget_revote") included — divided by the question's most).
- per-run nugget matches: `qid tag item-number docid string` for each answer string, then
  `qid tag item-number nugget-number` for each nugget matched (a nugget is marked once per response).
Every field but the judgment columns is what was submitted: answer strings keep their inner white space (the
READMEs: "all the fields except correctness-value and distinct? are what was submitted to NIST"). A list or Other
question's explicit empty response (a NIL line) holds no answer string, so it has no line.
"""

from collections import defaultdict

from assess.models import Nugget
from assess.official import nugget_votes, official_values
from pooling.models import PoolItem, RunEntry, Topic
from scoring.registry import Export
from tracks.qa.measures import pyramid_weights
from tracks.qa.scorer import FACTOID_TYPES, LIST_TYPES, NUGGET_TYPES, correct_label, is_nil, nil_states

NIST_CODES = {
    "incorrect": -1,
    "globally-correct": 1,
    "correct": 1,
    "unsupported": 2,
    "non-exact": 3,
    "locally-correct": 4,
}


def _clean(text):
    """An assessor's nugget text on one line (it may hold line breaks); answer strings are written as submitted."""
    return " ".join((text or "").split())


def _answers(entries, factoid_ids=()):
    """The entries that are answer strings: a NIL line counts only for a factoid (a judged response); any other
    question's NIL line is an empty response (tracks/qa/formats/runs.py)."""
    return (e for e in entries if e.topic_id in factoid_ids or not is_nil(e.docid, e.text))


def _questions(evaluation, kinds):
    return list(Topic.objects.filter(evaluation=evaluation, kind__in=kinds).order_by("position", "id"))


def _run_entries(qids):
    item_of = dict(
        PoolItem.sources.through.objects.filter(poolitem__topic_id__in=qids)
        .order_by()
        .values_list("runentry_id", "poolitem_id")
    )
    entries = RunEntry.objects.filter(topic_id__in=qids).select_related("run").order_by("run__tag", "line_no")
    return entries, item_of


def _nil_code(state):
    if state["answer_is_nil"]:
        return 1
    if state["known_answer"] or state["explicit"] is False:
        return -1
    return 0


def nist_list_judgments(evaluation):
    questions = _questions(evaluation, LIST_TYPES | {"FACTOID"})
    qids = [q.id for q in questions]
    ident = {q.id: q.ident for q in questions}
    good = correct_label(evaluation)
    instance = official_values(qids, "instance")
    entries, item_of = _run_entries(qids)
    nil = nil_states([q for q in questions if q.kind in FACTOID_TYPES])
    seen = set()
    factoids = {q.id for q in questions if q.kind in FACTOID_TYPES}
    for e in _answers(entries, factoids):
        value = instance.get(item_of.get(e.id)) or {}
        label = value.get("label")
        code = NIST_CODES.get(label, 0)
        if e.topic_id in nil and is_nil(e.docid, e.text):
            code = _nil_code(nil[e.topic_id])
        distinct = 0
        if label == good:
            cls = value.get("answer_class") or f"item{item_of.get(e.id)}"
            if (e.run_id, e.topic_id, cls) not in seen:
                seen.add((e.run_id, e.topic_id, cls))
                distinct = 1
        yield f"{ident[e.topic_id]} {e.run.tag} {e.docid} {code} {distinct} {e.text}\n"


def nist_nuggets(evaluation):
    questions = _questions(evaluation, NUGGET_TYPES)
    qids = [q.id for q in questions]
    official = official_values(qids, "nugget_vote")
    votes = nugget_votes(qids)
    by_topic = defaultdict(list)
    for n in Nugget.objects.filter(topic_id__in=qids).order_by("position", "id"):
        by_topic[n.topic_id].append(n)
    for q in questions:
        nuggets = by_topic[q.id]
        weights = pyramid_weights({n.id: sum(v == "vital" for v in votes.get(n.id, ())) for n in nuggets})
        for number, n in enumerate(nuggets, start=1):
            vote = (official.get(n.id) or {}).get("vote") or "okay"
            yield f"{q.ident} {number} {vote} {weights[n.id]:.4f} {_clean(n.text)}\n"


def nist_nugget_matches(evaluation):
    questions = _questions(evaluation, NUGGET_TYPES)
    qids = [q.id for q in questions]
    ident = {q.id: q.ident for q in questions}
    matches = official_values(qids, "nugget_match")
    number_of = {}
    for tid in qids:
        for i, nid in enumerate(
            Nugget.objects.filter(topic_id=tid).order_by("position", "id").values_list("id", flat=True), start=1
        ):
            number_of[nid] = i
    entries, item_of = _run_entries(qids)
    responses = defaultdict(list)
    for e in _answers(entries):
        responses[(e.run.tag, e.topic_id)].append(e)
    for (tag, tid), es in sorted(responses.items(), key=lambda kv: (kv[0][0], ident[kv[0][1]])):
        marked, lines = set(), []
        for item_no, e in enumerate(es, start=1):
            yield f"{ident[tid]} {tag} {item_no} {e.docid} {e.text}\n"
            for nid in (matches.get(item_of.get(e.id)) or {}).get("nuggets", ()):
                if nid in number_of and nid not in marked:
                    marked.add(nid)
                    lines.append(f"{ident[tid]} {tag} {item_no} {number_of[nid]}\n")
        yield from lines


# The board's links and `export_judgments --format`, in this order.
EXPORTS = (
    Export("list", "list judgments", nist_list_judgments),
    Export("nuggets", "nugget lists", nist_nuggets),
    Export("matches", "nugget matches", nist_nugget_matches),
)
