"""Who judges what: a series' primary assessor and, for double judging, its second one.

An assessor who belongs to a team whose runs are in a series' pool would judge her own team's answers: `assign`
warns of it (`Assignment.warnings`), or refuses it when the evaluation's setting `assessor_conflicts` is
"refuse" (default "warn": small campaigns have few assessors, and the organizer may know it is harmless)."""

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.shortcuts import get_object_or_404

from accounts.models import Team
from assess.models import Assignment
from config.roles import ASSESSOR, has_role
from pooling.evaluations import LoadError, effective_settings, start_judging
from pooling.models import RunEntry, Topic

CONFLICTS_SETTING = "assessor_conflicts"
WARN, REFUSE = "warn", "refuse"


def own_assignment(user, pk, track=None):
    """`user`'s own assignment `pk` (on an evaluation of `track`, when given) with its evaluation and topic, or
    404: another assessor's assignment does not exist for them."""
    mine = Assignment.objects.select_related("evaluation", "topic").filter(assessor=user)
    if track is not None:
        mine = mine.filter(evaluation__track=track)
    return get_object_or_404(mine, pk=pk)


def pooled_teams(evaluation, series_ids=None):
    """{series id: {team id}}: the teams with a run of judged priority (pooled) answering the series or one of its
    questions; of the given series only, when named."""
    judged = list(effective_settings(evaluation).get("judged_priorities") or [1, 2])
    rows = RunEntry.objects.filter(run__evaluation=evaluation, run__priority__in=judged)
    if series_ids is not None:
        rows = rows.filter(Q(topic_id__in=series_ids) | Q(topic__parent_id__in=series_ids))
    out = {}
    for topic_id, parent_id, team_id in rows.values_list("topic_id", "topic__parent_id", "run__team_id").distinct():
        out.setdefault(parent_id or topic_id, set()).add(team_id)
    return out


def conflict_message(username, team_names, series_ident):
    return (
        f"{username} belongs to {', '.join(team_names)}, whose runs are in the pool of series {series_ident}: "
        "that assessor would judge their own team's answers"
    )


def conflicts_by_series(evaluation, users):
    """{series id: {username: [team names]}}: which of the users belong to a team with runs in each series' pool."""
    users = list(users)
    names = dict(Team.objects.filter(members__in=users).values_list("pk", "name"))
    teams_of = {}
    for user_id, team_id in Team.members.through.objects.filter(user__in=users).values_list("user_id", "team_id"):
        teams_of.setdefault(user_id, set()).add(team_id)
    if not teams_of:
        return {}
    out = {}
    for series_id, teams in pooled_teams(evaluation).items():
        for user in users:
            if clash := teams_of.get(user.pk, set()) & teams:
                out.setdefault(series_id, {})[user.username] = sorted(names[t] for t in clash)
    return out


def conflicting_teams(evaluation, topic, user):
    """Names of the user's teams whose runs are in the series' pool."""
    teams = pooled_teams(evaluation, [topic.pk]).get(topic.pk, set())
    return list(Team.objects.filter(pk__in=teams, members=user).order_by("name").values_list("name", flat=True))


def assign(evaluation, series_ident, username, second=False):
    """Make `username` the primary (or second) assessor of a series; replaces whoever held that role. An assessor
    of a team with runs in the series' pool is refused, or only warned of (`assignment.warnings`), as the
    evaluation's setting assessor_conflicts says."""
    role = Assignment.SECONDARY if second else Assignment.PRIMARY
    topic = Topic.objects.filter(evaluation=evaluation, ident=series_ident, parent__isnull=True).first()
    if topic is None:
        raise LoadError([f"{evaluation.slug} has no series {series_ident!r}"])
    user = get_user_model().objects.filter(username=username).first()
    if user is None or not has_role(user, ASSESSOR):
        raise LoadError([f"{username!r} is not an assessor"])
    warnings = []
    if clash := conflicting_teams(evaluation, topic, user):
        message = conflict_message(username, clash, series_ident)
        if evaluation.setting(CONFLICTS_SETTING, WARN) == REFUSE:
            raise LoadError([f"{message} (the evaluation's setting {CONFLICTS_SETTING} is {REFUSE!r})"])
        warnings.append(message)
    with transaction.atomic():
        other = Assignment.objects.filter(topic=topic, assessor=user).exclude(role=role).first()
        if other is not None:
            raise LoadError([f"{username} is already the {other.role} assessor of series {series_ident}"])
        assignment, _ = Assignment.objects.update_or_create(
            topic=topic, role=role, defaults={"evaluation": evaluation, "assessor": user}
        )
        start_judging(evaluation)
    assignment.warnings = warnings  # said by the page, the command and the API
    return assignment


def unassign(evaluation, series_ident, second=False):
    role = Assignment.SECONDARY if second else Assignment.PRIMARY
    return Assignment.objects.filter(evaluation=evaluation, topic__ident=series_ident, role=role).delete()[0]
