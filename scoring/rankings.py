"""The runs ranked under every reading of the judgments, kept live by the rescoring worker (issue 29, deliverables 3
and 4): the official scores (as stored), the primary assessors' judgments only, the second assessors', and each
judgment set; Kendall's τ, τ_AP and top-k overlap between the rankings, per run-level measure of the track; and the
robustness report (scoring.robustness). Stored in RankingState; pages and the API read it.

Every other reading is scored by the track's own scorer (core.extension_points.scorer, the whole evaluation)
inside assess.official.reading(...), in a READ ONLY transaction of one snapshot on PostgreSQL: nothing is stored but
the RankingState row, so a judgment set can never change an official Score.

Run groups: where the track declares them (core.extension_points.run_groups: TREC RAG's answer runs, "score" =
nugget All, and retrieval runs, "score" = nDCG@20), every ranking is of one group's runs: τ, τ_AP, top-k and the
rank intervals are computed group by group, each pair and robustness row carrying its group's label ("" for a track
without groups, whose one group is every run).

When: the rescoring worker asks for a refresh after a pass that changed official scores (request_refresh), and so
does a judgment set's load. A refresh runs as a task of its own, at most once per RANKINGS_SPACING × the last
refresh's duration (spacing()), so the save path and the official scores' freshness never wait on it; "as of" says
which judgments it saw. Without a broker (demo, tests) it runs at once.

A reading is rescored only where it can differ from the official one (differing_topics: the adjudicated or second-
judged topics, a set's disagreements, a voter's nuggets, the topics with unjudged items); the track's scorer takes
the stored official scores for the rest, which are that reading's too.
"""

import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from assess.models import Judgment
from assess.official import OFFICIAL, PRIMARY_ONLY, SECOND, VOTE_KINDS, WithoutVoter, reading, topics_judged_by
from core import extension_points as ep
from pooling.models import Evaluation, Run, StaleTopic
from scoring.measures import ranking
from scoring.models import JudgmentSet, RankingState, Score, ScoringState
from scoring.registry import one_snapshot
from scoring.results import run_groups
from scoring.robustness import BEST, WORST, Filled, readings_for_robustness
from scoring.set_reading import SetReading

log = logging.getLogger(__name__)

HEADLINE = "score"
NOT_RANKED = {"judged"}  # run-level values that are no measure to rank by


@dataclass
class Reading:
    key: str
    label: str
    source: object
    judgment_set: int | None = None


def readings(evaluation):
    """The readings whose rankings are compared: official, primary-only, second-only, each judgment set."""
    out = [
        Reading("official", "Official", OFFICIAL),
        Reading("primary", "Primary assessors only", PRIMARY_ONLY),
        Reading("second", "Second assessors (else primary)", SECOND),
    ]
    for pk, name in JudgmentSet.objects.filter(evaluation=evaluation).order_by("name").values_list("id", "name"):
        out.append(Reading(f"set:{pk}", name, SetReading(pk), pk))
    return out


def stored_run_scores(evaluation):
    """{run id: {measure: value}} of the stored official run-level scores."""
    out = {}
    rows = Score.objects.filter(run__evaluation=evaluation, scope=Score.RUN, topic__isnull=True).order_by()
    for run_id, measure, value in rows.values_list("run_id", "measure", "value"):
        out.setdefault(run_id, {})[measure] = value
    return out


def scores_under(evaluation, source, topics=None, official=None):
    """{run id: {measure: value}}: the track's scorer with `source` read as the official judgments
    (assess.official.reading). `topics`: where the reading can differ from the official one (None: anywhere);
    only they are rescored, and the scorer's live path takes the stored official scores for the others, which are
    that reading's too (`official`, the stored run scores, given: the evaluation has been scored). Stores nothing;
    None when the track has no scorer."""
    scorer = ep.scorer.get(evaluation.track)
    if scorer is None:
        return None
    if topics is not None and official:
        # questions whose official scores wait for a pass: their stored scores are not those of today's judgments
        topics = set(topics) | set(StaleTopic.objects.filter(evaluation=evaluation).values_list("topic_id", flat=True))
        if not topics:
            return official
    else:
        topics = None
    with reading(source):
        batch = scorer(evaluation, topics)
    out = {run: dict(values) for run, values in (official or {}).items()} if topics is not None else {}
    for row in batch.rows:
        if row.scope == Score.RUN and row.topic_id is None:
            out.setdefault(row.run_id, {})[row.measure] = row.value
    return out


def differing_topics(evaluation, source):
    """The topics where `source` can read other judgments than the official reading (None: unknown)."""
    if source == OFFICIAL:
        return set()
    if source == PRIMARY_ONLY:
        return topics_judged_by(evaluation.pk, roles=[Judgment.ADJUDICATED], exclude_kinds=VOTE_KINDS)
    if source == SECOND:
        roles = [Judgment.SECONDARY, Judgment.ADJUDICATED]
        return topics_judged_by(evaluation.pk, roles=roles, exclude_kinds=VOTE_KINDS)
    if isinstance(source, WithoutVoter):
        return topics_judged_by(evaluation.pk, assessor_id=source.assessor_id, kinds=VOTE_KINDS)
    if isinstance(source, SetReading):
        return source.differing_topics(evaluation.pk)
    if isinstance(source, Filled):
        return source.topics
    return None


def _same_as(evaluation):
    """{reading key: the reading it is known to equal}: primary-only is the official reading when nothing was
    adjudicated, second-only the primary-only one when no second assessor judged an item (votes aside)."""
    judgments = Judgment.objects.filter(evaluation=evaluation).exclude(kind__in=VOTE_KINDS)
    same = {}
    if not judgments.filter(role=Judgment.ADJUDICATED).exists():
        same["primary"] = "official"
    if not judgments.filter(role=Judgment.SECONDARY).exists():
        same["second"] = "primary"
    return same


def _top_k(evaluation, n):
    k = int(evaluation.setting("ranking_top_k", 10) or 10)
    return k if n >= 2 * k else max(1, n // 2)


def _measure(values, measure):
    return {run: (scores or {}).get(measure) for run, scores in values.items()}


def groups_of(evaluation):
    """[(label, {run id})]: the track's run groups (scoring.results.run_groups) of the evaluation's runs, empty
    groups left out; [("", None)] (every run) for a track without groups."""
    if ep.run_groups.get(evaluation.track) is None:
        return [("", None)]
    runs = list(Run.objects.filter(evaluation=evaluation).order_by("pk"))
    found = [(label, {r.pk for r in members}) for label, members in run_groups(evaluation, runs)]
    return [(label, members) for label, members in found if members] or found[:1]


def _within(values, members):
    """`values` ({run id: ...}) of the group's runs only (`members` None: every run)."""
    if members is None:
        return values
    return {run: v for run, v in (values or {}).items() if int(run) in members}


def compare(evaluation, keys, scores, measures, groups=None):
    """[{a, b, measure, group, runs, tau, tau_ap, top_k, k}] for every run group (groups_of; None: every run, one
    group ""), pair of readings (a before b) and measure that a run of the group has; τ_AP takes `a` as the truth
    (the official reading comes first)."""
    out = []
    for group, members in groups or [("", None)]:
        if members is None:
            grouped, known = scores, set(measures)
        else:
            grouped = {key: None if values is None else _within(values, members) for key, values in scores.items()}
            held = {m for values in (grouped.get(keys[0]) or {}).values() for m in (values or {})}
            known = held | {HEADLINE}
        for i, a in enumerate(keys):
            for b in keys[i + 1 :]:
                if grouped.get(a) is None or grouped.get(b) is None:
                    continue
                for measure in measures:
                    if measure not in known:
                        continue  # (a measure of the other group's runs: nothing to rank here)
                    x, y = _measure(grouped[a], measure), _measure(grouped[b], measure)
                    n = sum(1 for r in x if x[r] is not None and y.get(r) is not None)
                    k = _top_k(evaluation, n)
                    out.append(
                        {
                            "a": a,
                            "b": b,
                            "measure": measure,
                            "group": group,
                            "runs": n,
                            "tau": ranking.kendall_tau(x, y),
                            "tau_ap": ranking.tau_ap(x, y),
                            "top_k": ranking.top_k_overlap(x, y, k),
                            "k": k,
                        }
                    )
    return out


def compute(evaluation):
    """Everything a refresh stores (RankingState.data): {"readings": [{key, label, set, same_as}], "measures",
    "groups": [run group labels] (empty: no groups), "runs": {run id: {"tag", "team"}}, "scores": {reading key:
    {run id: {measure: value}}}, "pairs": compare(...), "robustness": robustness(...)}. Run ids are text (JSON keys)."""
    official = stored_run_scores(evaluation)
    same = _same_as(evaluation)
    found = readings(evaluation)
    scores = {"official": official}
    for r in found[1:]:
        if r.key in same:
            scores[r.key] = scores[same[r.key]]
        else:
            scores[r.key] = scores_under(evaluation, r.source, differing_topics(evaluation, r.source), official)
    measures = [HEADLINE] + sorted(
        {m for values in official.values() for m in values if m != HEADLINE and m not in NOT_RANKED}
    )
    runs = {
        str(pk): {"tag": tag, "team": team}
        for pk, tag, team in Run.objects.filter(evaluation=evaluation).values_list("id", "tag", "team__name")
    }
    keys = [r.key for r in found]
    groups = groups_of(evaluation)
    return {
        "readings": [
            {"key": r.key, "label": r.label, "set": r.judgment_set, "same_as": same.get(r.key)} for r in found
        ],
        "measures": measures,
        "groups": [label for label, _ in groups if label],
        "runs": runs,
        "scores": {key: _text_keys(values) for key, values in scores.items()},
        "pairs": compare(evaluation, keys, scores, measures, groups),
        "robustness": robustness(evaluation, scores, groups),
    }


def _text_keys(values):
    return {str(k): v for k, v in (values or {}).items()}


def robustness(evaluation, scores, groups=None):
    """{"readings": [{key, label}], "runs": [{run, group, score, rank, scores: {key: value}, interval: [best, worst],
    worst, best, judged, filled}] group by group (groups_of; None: every run), best first, ranks and intervals within
    the group, "filled": [worst items filled, best]}: see scoring.robustness."""
    names = dict(get_user_model().objects.values_list("id", "username"))
    found = readings_for_robustness(evaluation, names)
    headline = {}
    official = scores["official"]
    for key, _label, source in found:
        values = scores.get(key)
        if values is None:
            values = scores_under(evaluation, source, differing_topics(evaluation, source), official)
        headline[key] = _measure(values or {}, HEADLINE)
    worst_reading = Filled(evaluation, WORST)
    if worst_reading.filled:
        worst = _measure(scores_under(evaluation, worst_reading, worst_reading.topics, official) or {}, HEADLINE)
        best_reading = Filled(evaluation, BEST)
        best = _measure(scores_under(evaluation, best_reading, best_reading.topics, official) or {}, HEADLINE)
    else:  # judging complete: both bounds are the score
        worst = best = _measure(official, HEADLINE)
    judged = _measure(scores["official"], "judged")
    runs = []
    for group, members in groups or [("", None)]:
        within = {key: _within(values, members) for key, values in headline.items()}
        intervals = ranking.rank_intervals(within.values())
        official = within["official"]  # (the group's headline from here on)
        official_ranks = ranking.ranks(official)
        for run_id in ranking.order(official) + sorted(r for r in official if official[r] is None):
            runs.append(
                {
                    "run": str(run_id),
                    "group": group,
                    "score": official[run_id],
                    "rank": official_ranks.get(run_id),
                    "scores": {key: values.get(run_id) for key, values in within.items()},
                    "interval": list(intervals.get(run_id, ())) or None,
                    "worst": worst.get(run_id),
                    "best": best.get(run_id),
                    "judged": judged.get(run_id),
                }
            )
    return {
        "readings": [{"key": key, "label": label} for key, label, _ in found],
        "runs": runs,
        "filled": worst_reading.filled,
    }


def _snapshot():
    """One read-only snapshot for the whole refresh on PostgreSQL (every reading sees the same judgments, and the
    transaction cannot write a Score); inside a caller's transaction (tests, eager tasks) that one serves."""
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        atomic = transaction.atomic()
        atomic.__enter__()
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        return atomic
    return None


def refresh(evaluation_id):
    """Recompute and store the evaluation's rankings; returns the RankingState (None if the evaluation is gone)."""
    started = time.perf_counter()
    snapshot = _snapshot()
    try:
        evaluation = Evaluation.objects.filter(pk=evaluation_id).first()
        if evaluation is None:
            return None
        computed_at = timezone.now()  # within the snapshot: what it saw was committed before this instant
        official_as_of = (
            ScoringState.objects.filter(evaluation_id=evaluation_id).values_list("fresh_as_of", flat=True).first()
        )
        with one_snapshot():  # (what every reading reads of the official state alike is read once: registry.memo)
            data = compute(evaluation)
    finally:
        if snapshot is not None:
            snapshot.__exit__(None, None, None)
    seconds = time.perf_counter() - started
    RankingState.objects.get_or_create(evaluation_id=evaluation_id)
    # an older refresh finishing late never replaces a newer one's result
    RankingState.objects.filter(evaluation_id=evaluation_id).filter(
        Q(computed_at__isnull=True) | Q(computed_at__lt=computed_at)
    ).update(computed_at=computed_at, official_as_of=official_as_of, seconds=seconds, data=data)
    return RankingState.objects.get(evaluation_id=evaluation_id)


def spacing():
    """A refresh is due RANKINGS_SPACING × its last duration after it started (default 30): while judgments keep the
    worker busy, the passes between two refreshes take about 29 times a refresh, so refreshes add about 1/29 (3.4 %)
    to rescoring whatever a refresh costs (benchmarks/budget.py measures it beside the agreement's); a faster
    refresh only comes sooner. A worker with time to spare spends it on them."""
    return float(getattr(settings, "RANKINGS_SPACING", 30))


def request_refresh(evaluation_id, *, set_changed=False):
    """The evaluation's official scores changed (the rescoring worker, after its passes) or one of its judgment
    sets did (`set_changed`, its loader): refresh its rankings now (no broker), or queue a refresh task for when it
    is due (see the module's docstring). While one waits, a pass costs one Redis command here (a claim, as
    core.rescoring_claims): the waiting task sees the newer official scores (ScoringState.fresh_as_of). Never
    raises into the caller: the official scores are stored already, and a failed refresh leaves the last rankings
    with their "as of"."""
    from config.celery import app
    from scoring.tasks import refresh_rankings

    try:
        now = timezone.now()
        if app.conf.task_always_eager or set_changed:
            _requested(evaluation_id, now)
            if app.conf.task_always_eager:
                refresh(evaluation_id)
                return
        if not _claim(evaluation_id):
            return  # a refresh task is already waiting: it will see the newer official scores
        row = (
            RankingState.objects.filter(evaluation_id=evaluation_id)
            .values_list("computed_at", "seconds", "scheduled_for")
            .first()
        )
        computed_at, seconds, scheduled_for = row or (None, None, None)
        if scheduled_for is not None and scheduled_for >= now - timedelta(minutes=5):
            return  # a refresh task is already waiting (or running: a lost one is replaced after 5 minutes)
        due = now
        if computed_at is not None and seconds is not None:
            due = max(now, computed_at + timedelta(seconds=spacing() * seconds))
        _requested(evaluation_id, now, scheduled_for=due)
        _claim(evaluation_id, seconds=(due - now).total_seconds() + 300)  # (lasts until its task starts)
        try:
            refresh_rankings.apply_async((evaluation_id,), eta=due)
        except Exception:
            _unclaim(evaluation_id)
            raise
    except Exception:
        log.exception("the rankings of evaluation %s could not be refreshed", evaluation_id)


@lru_cache(maxsize=1)
def _redis():
    import redis

    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=1, socket_timeout=1)


def _claim_key(evaluation_id):
    from config.celery import app

    return f"assay:rankings:scheduled:{app.conf.task_default_queue}:{evaluation_id}"


def _claim(evaluation_id, seconds=None):
    """As core.rescoring_claims: True if no refresh task is known to wait (the caller may queue one); `seconds`
    given, (re)set the claim for that long. A pass costs this one Redis command while a task waits. Redis away:
    True, and RankingState.scheduled_for decides."""
    try:
        if seconds is not None:
            _redis().set(_claim_key(evaluation_id), "1", ex=max(1, int(seconds)))
            return True
        return bool(_redis().set(_claim_key(evaluation_id), "1", nx=True, ex=60))
    except Exception:
        return True


def _unclaim(evaluation_id):
    try:
        _redis().delete(_claim_key(evaluation_id))
    except Exception:  # Redis gone: the key expires by itself
        pass


def _requested(evaluation_id, now, **fields):
    if not RankingState.objects.filter(evaluation_id=evaluation_id).update(requested_at=now, **fields):
        RankingState.objects.get_or_create(evaluation_id=evaluation_id, defaults={"requested_at": now, **fields})


def _pending(state, fresh_as_of):
    """Whether judgments or sets changed after the state's refresh saw them."""
    if state.computed_at is None:
        return True
    if state.requested_at is not None and state.requested_at > state.computed_at:
        return True
    return fresh_as_of is not None and (state.official_as_of is None or fresh_as_of > state.official_as_of)


def _fresh_as_of(evaluation_id):
    return ScoringState.objects.filter(evaluation_id=evaluation_id).values_list("fresh_as_of", flat=True).first()


def run_due(evaluation_id):
    """The refresh task's body: refresh if something changed since the last refresh."""
    _unclaim(evaluation_id)  # from here on a pass queues the next refresh
    RankingState.objects.filter(evaluation_id=evaluation_id).update(scheduled_for=None)
    state = RankingState.objects.filter(evaluation_id=evaluation_id).first()
    if state is None or not _pending(state, _fresh_as_of(evaluation_id)):
        return False
    refresh(evaluation_id)
    return True


def present(evaluation):
    """What the board, the robustness page, the API and `manage.py rankings` show, from the stored RankingState
    (None before the first refresh): runs by tag, readings with labels, pairs with the readings' labels."""
    state = RankingState.objects.filter(evaluation=evaluation).first()
    if state is None or state.computed_at is None:
        return None
    data = state.data or {}
    tags = {pk: run["tag"] for pk, run in (data.get("runs") or {}).items()}
    labels = {r["key"]: r["label"] for r in data.get("readings", ())}
    robust = data.get("robustness") or {}
    robust_labels = {r["key"]: r["label"] for r in robust.get("readings", ())}
    pairs = [
        {"group": ""} | p | {"a_label": labels.get(p["a"], p["a"]), "b_label": labels.get(p["b"], p["b"])}
        for p in data.get("pairs", ())
    ]
    return {
        "as_of": state.computed_at,
        "official_as_of": state.official_as_of,
        "seconds": state.seconds,
        "pending": _pending(state, _fresh_as_of(evaluation.pk)),
        "readings": data.get("readings", []),
        "measures": data.get("measures", []),
        "groups": data.get("groups", []),  # (a refresh stored before groups: none, its rankings of every run)
        "headline": [p for p in pairs if p["measure"] == HEADLINE],
        "pairs": pairs,
        "scores": {
            key: {tags.get(run, run): values for run, values in runs.items()}
            for key, runs in (data.get("scores") or {}).items()
        },
        "robustness": {
            "readings": robust.get("readings", []),
            "filled": robust.get("filled", 0),
            "runs": [
                {"group": ""}
                | row
                | {
                    "tag": tags.get(row["run"], row["run"]),
                    "by_reading": [(robust_labels.get(k, k), v) for k, v in row["scores"].items()],
                }
                for row in robust.get("runs", ())
            ],
        },
    }


def set_correlation(evaluation, judgment_set_id, measure=HEADLINE):
    """The stored comparison of the official ranking with a judgment set's ({tau, tau_ap, top_k, k, runs, group}),
    or None before a refresh has seen the set (for a team's judge-run report). With run groups, the group where the
    set scores the most runs (a qrels set scores no answer run: its retrieval runs' ranking)."""
    state = RankingState.objects.filter(evaluation=evaluation).first()
    pairs = (state.data or {}).get("pairs", ()) if state else ()
    key = f"set:{judgment_set_id}"
    return best_pair(p for p in pairs if p["a"] == "official" and p["b"] == key and p["measure"] == measure)


def best_pair(pairs):
    """Of one comparison's pairs, group by group: the one over the most runs (ties: the first group), or None."""
    best = None
    for pair in pairs:
        if best is None or (pair.get("runs") or 0) > (best.get("runs") or 0):
            best = pair
    return best
