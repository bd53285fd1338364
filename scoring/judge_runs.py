"""Participants' judge runs (issue 29, TREC 2025 RAG's relevance-judgment subtask): a team submits a judgment set
as a run, within the campaign's rules (`refusals`); once the evaluation's results are released to the team, its
page shows each judge run's agreement with the official judgments (stored by scoring.agreement_store).

The campaign's rules for a judge run (decisions where the issue is silent, docs/reference.md): it is taken inside
the team's submission window (the evaluation's submission_opens/closes, as runs), never once the official
judgments are released to the team (it could copy them), and at most `max_judge_runs` (setting, default 3) per
team. Runs being frozen once judging starts does not apply: judging is when a judge run is useful."""

from django.utils import timezone

from core.submission_rules import window_breach
from pooling.campaign_rules import submission_window
from pooling.evaluations import LoadError
from scoring import agreement_store, judgment_sets
from scoring.models import JudgmentSet, RankingState
from scoring.rankings import HEADLINE, best_pair
from scoring.release import released_for

DEFAULT_MAX_JUDGE_RUNS = 3
RANKING_NOTE = "The rankings are recomputed by the scoring workers after judging changes; not computed yet."


def max_judge_runs(evaluation):
    return int((evaluation.settings or {}).get("max_judge_runs", DEFAULT_MAX_JUDGE_RUNS))


def of_team(evaluation, team):
    return JudgmentSet.objects.filter(evaluation=evaluation, team=team, origin=JudgmentSet.TEAM)


def refusals(evaluation, team, now=None):
    """Why the evaluation takes no judge run from `team` now (empty: it takes one)."""
    found = []
    if not judgment_sets.scales(evaluation):
        found.append(f"track {evaluation.track} has no judgments a judge run could be compared on")
    if released_for(evaluation, team.pk):
        found.append("the official judgments are released to your team: judge runs are no longer taken")
    opens, due = submission_window(evaluation, team)
    breach = window_breach(now or timezone.now(), opens, due)
    if breach:
        found.append(breach.message)
    if of_team(evaluation, team).count() >= max_judge_runs(evaluation):
        found.append(f"your team has submitted {max_judge_runs(evaluation)} judge runs, the most this evaluation takes")
    return found


def submit(evaluation, team, data, filename, fmt, name, *, by, provenance=None):
    """Store a judge run of `team` (a JudgmentSet of origin "team", named "TEAM: NAME"); LoadError naming every
    rule it breaks or every problem of the file."""
    closed = refusals(evaluation, team)
    if closed:
        raise LoadError([f"{filename}:0: {reason}" for reason in closed])
    name = (name or "").strip()
    if not name:
        raise LoadError(["a judge run needs a name"])
    return judgment_sets.load_set(
        evaluation,
        data,
        filename,
        fmt,
        f"{team.name}: {name}"[:100],
        by=by,
        provenance=provenance,
        team=team,
        origin=JudgmentSet.TEAM,
    )


def agreement_for(evaluation, team):
    """The stored agreement of the team's judge runs with the official judgments, once released to it (None
    before)."""
    if not released_for(evaluation, team.pk):
        return None
    return agreement_store.table(evaluation, set_ids=of_team(evaluation, team).values_list("id", flat=True))


def rankings_for(evaluation, team):
    """Once released to the team: ({judge run id: {"tau", "tau_ap", "top_k", "k", "runs"} or None}, as of) — how
    the runs' ranking by the track's headline score under each of its judge runs compares with the official one
    (stored by scoring.rankings; None for a run not compared yet). None before release."""
    if not released_for(evaluation, team.pk):
        return None
    state = RankingState.objects.filter(evaluation=evaluation).first()
    pairs = {}
    if state is not None and state.computed_at is not None:
        found = {}
        for p in (state.data or {}).get("pairs", []):
            if p.get("a") == "official" and p.get("measure") == HEADLINE and str(p.get("b", "")).startswith("set:"):
                found.setdefault(str(p["b"])[4:], []).append(p)
        for set_id, of_set in found.items():  # with run groups, the group where the set scores the most runs
            chosen = best_pair(of_set)
            pairs[set_id] = {k: chosen.get(k) for k in ("tau", "tau_ap", "top_k", "k", "runs", "group")}
    rows = {js.pk: pairs.get(str(js.pk)) for js in of_team(evaluation, team)}
    return rows, (state.computed_at if state is not None else None)
