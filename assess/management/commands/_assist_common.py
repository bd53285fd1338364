"""What the assisted-judging commands share: the --by user."""

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError


def user_named(name):
    if not name:
        return None
    user = get_user_model().objects.filter(username=name).first()
    if user is None:
        raise CommandError(f"no user {name!r}")
    return user
