"""Who judges what: a series' primary assessor and, for double judging, its second one."""

from django.contrib.auth import get_user_model
from django.db import transaction

from assess.models import Assignment
from config.roles import ASSESSOR, has_role
from pooling.loading import LoadError, start_judging
from pooling.models import Topic


def assign(evaluation, series_ident, username, second=False):
    """Make `username` the primary (or second) assessor of a series; replaces whoever held that role."""
    role = Assignment.SECONDARY if second else Assignment.PRIMARY
    topic = Topic.objects.filter(evaluation=evaluation, ident=series_ident, parent__isnull=True).first()
    if topic is None:
        raise LoadError([f"{evaluation.slug} has no series {series_ident!r}"])
    user = get_user_model().objects.filter(username=username).first()
    if user is None or not has_role(user, ASSESSOR):
        raise LoadError([f"{username!r} is not an assessor"])
    with transaction.atomic():
        other = Assignment.objects.filter(topic=topic, assessor=user).exclude(role=role).first()
        if other is not None:
            raise LoadError([f"{username} is already the {other.role} assessor of series {series_ident}"])
        assignment, _ = Assignment.objects.update_or_create(
            topic=topic, role=role, defaults={"evaluation": evaluation, "assessor": user}
        )
        start_judging(evaluation)
    return assignment


def unassign(evaluation, series_ident, second=False):
    role = Assignment.SECONDARY if second else Assignment.PRIMARY
    return Assignment.objects.filter(evaluation=evaluation, topic__ident=series_ident, role=role).delete()[0]
