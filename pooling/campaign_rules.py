"""The campaign's rules as a run meets them: the submission window, runs frozen once judging starts (issue 26),
and the track's submission rules (core.submission_rules, pure) checked against the team's stored runs.
"""

from datetime import UTC, datetime

from django.utils import timezone

from accounts.models import Team
from core import submission_rules as rules_mod
from pooling.evaluations import effective_settings
from pooling.models import Participation, PoolItem, Run


def _aware(value):
    if not value:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def participation(evaluation, team):
    """The team's Participation in the evaluation (None for a team not stored yet)."""
    if team is None or team.pk is None:
        return None
    return Participation.objects.get_or_create(evaluation=evaluation, team=team)[0]


def submission_window(evaluation, team=None):
    """(opens, due) for the team: the evaluation's settings "submission_opens"/"submission_closes" (ISO times,
    unset: no bound), the deadline brought forward by the track's days after the team's first test download."""
    settings = effective_settings(evaluation)
    opens, closes = _aware(settings.get("submission_opens")), _aware(settings.get("submission_closes"))
    days = evaluation.track_spec.submission_rules.days_after_first_download
    first = None
    if days and team is not None and team.pk is not None:
        first = (
            Participation.objects.filter(evaluation=evaluation, team=team)
            .values_list("first_download_at", flat=True)
            .first()
        )
    return opens, rules_mod.deadline(closes, first, days)


def rule_breaches(evaluation, parsed, f, priority, batch_runs=(), now=None):
    """Every submission rule of the track that the run `parsed`, sent as `f` (RunFile), breaks: its team's
    stored runs and `batch_runs` (TeamRun of the same team accepted earlier in the batch) count against it."""
    rules = evaluation.track_spec.submission_rules
    team = Team.objects.filter(name=f.team.strip()).first()
    stored = list(Run.objects.filter(evaluation=evaluation, team=team)) if team else []
    replaced = next((r for r in stored if r.tag == parsed.tag), None)
    others = [
        rules_mod.TeamRun(r.tag, r.priority, r.is_manual, (r.data or {}).get("kind", ""))
        for r in stored
        if r.tag != parsed.tag
    ] + [r for r in batch_runs if r.tag != parsed.tag]
    ident = (
        Participation.objects.filter(evaluation=evaluation, team=team).values_list("ident", flat=True).first() or ""
        if team
        else ""
    )
    candidate = rules_mod.Candidate(
        tag=parsed.tag,
        priority=priority,
        manual=f.manual,
        description=f.description,
        team_id=ident,
        kind=f.kind,
        initial_tag=f.initial_tag,
    )
    found = rules_mod.breaches(
        rules, candidate, others, rules_mod.TeamRun(replaced.tag, replaced.priority) if replaced else None
    )
    subtask = (parsed.data or {}).get("subtask") or f.kind
    return submission_closed(evaluation, team, replaced, now, subtask) + found


def submission_closed(evaluation, team=None, replacing=None, now=None, subtask=None):
    """Why the evaluation takes no run from `team` now, as Breaches (empty: it takes runs): runs are frozen once
    judging starts (issue 26: state "judging" or "released", or `replacing`, a stored Run, is in a pool), and
    outside the team's submission window. Every path that stores a run asks this (through rule_breaches: the
    participant's page, the organizer's upload page, the API, `load_runs`), so an organizer alone may override it,
    with a reason. `subtask`: the run's (data["subtask"], else the kind it was sent as), None before the file is
    read: a track's judging subtasks (SubmissionRules.judging_subtasks) may still come then."""
    judging_subtasks = evaluation.track_spec.submission_rules.judging_subtasks
    later = subtask in judging_subtasks if subtask is not None else bool(judging_subtasks)
    pooled = replacing is not None and PoolItem.sources.through.objects.filter(runentry__run=replacing).exists()
    found = [rules_mod.frozen_breach(evaluation.state, evaluation.title, pooled, later)]
    opens, due = submission_window(evaluation, team)
    found.append(rules_mod.window_breach(now or timezone.now(), opens, due))
    return [b for b in found if b]
