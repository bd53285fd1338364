"""Accounts managed by the organizers: invite (a one-time link to set a password), roles, teams, deactivate,
unlock after too many failed logins. The functions behind the user pages (accounts.views) and commands;
every change is in the audit log with the state before and after."""

import logging
from datetime import timedelta

from axes.models import AccessAttempt
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.models import Team
from config.roles import ROLES, remember_roles
from core import audit

logger = logging.getLogger(__name__)


def state_of(user):
    """What the audit log keeps of a user: roles, teams, active, e-mail."""
    return {
        "roles": sorted(user.groups.filter(name__in=ROLES).values_list("name", flat=True)),
        "teams": sorted(user.teams.values_list("name", flat=True)),
        "active": user.is_active,
        "email": user.email,
    }


def invitation_link(user, base_url=""):
    """A link to set a password: Django's reset token, which stops working once the password is set (it is a
    hash of the password and last login) or after PASSWORD_RESET_TIMEOUT."""
    path = reverse(
        "password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )
    return base_url.rstrip("/") + path


def _set_roles_and_teams(user, roles, teams):
    unknown = set(roles) - set(ROLES)
    if unknown:
        raise ValidationError(f"unknown role {sorted(unknown)[0]!r}; roles are {', '.join(ROLES)}")
    for name in ROLES:
        Group.objects.get_or_create(name=name)
    user.groups.set(Group.objects.filter(name__in=roles))
    user.teams.set([Team.objects.get_or_create(name=name.strip())[0] for name in teams if name.strip()])
    remember_roles(user, roles)


def invite_user(username, email, roles, teams=(), by=None, base_url=""):
    """Create a user without a password and send them the link to set one (by e-mail when they have an address).
    Returns (user, link); the organizer may pass the link on by hand too."""
    username = username.strip()
    if not username:
        raise ValidationError("give a user name")
    if User.objects.filter(username=username).exists():
        raise ValidationError(f"user {username!r} exists already")
    with transaction.atomic():
        user = User(username=username, email=email.strip())
        user.set_unusable_password()
        user.save()
        _set_roles_and_teams(user, roles, teams)
        audit.record(by, "user invited", username, before=None, after=state_of(user))
    link = invitation_link(user, base_url)
    user.invitation_mailed = False
    if user.email:  # a mail server that is down must not lose the invitation: the link is shown too
        hours = settings.PASSWORD_RESET_TIMEOUT // 3600
        body = (
            f"An account {username!r} was made for you on Assay ({', '.join(roles)}).\n"
            f"Set your password here (the link works once, for {hours} hours):\n\n{link}\n"
        )
        try:
            user.invitation_mailed = bool(send_mail("Your Assay account", body, None, [user.email]))
        except Exception:  # SMTP errors come as many exception types
            logger.exception("invitation of %s not mailed", username)
    return user, link


def update_user(user, *, roles=None, teams=None, active=None, email=None, by=None):
    """Change a user's roles, teams, e-mail or whether they may log in; logged with before and after."""
    before = state_of(user)
    with transaction.atomic():
        if roles is not None or teams is not None:
            _set_roles_and_teams(
                user, before["roles"] if roles is None else roles, before["teams"] if teams is None else teams
            )
        if active is not None:
            user.is_active = active
        if email is not None:
            user.email = email.strip()
        user.save()
        after = state_of(user)
        if after != before:
            audit.record(by, "user changed", user.username, before=before, after=after)
    return user


def ensure_user(username, role, password, team_name=None):
    """Create `username` with `password` (or give an existing user one more role), optionally in a team.

    A new user's password must pass the AUTH_PASSWORD_VALIDATORS (judged against this user, so a password like
    the username is refused): django.core.exceptions.ValidationError, raised before anything is stored.
    An existing user's password is left as it is.
    """
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User(username=username)
        if not password:
            raise ValidationError(f"user {username!r} is new: a password is needed")
        validate_password(password, user)
        user.set_password(password)
    with transaction.atomic():
        for name in ROLES:
            Group.objects.get_or_create(name=name)
        if user.pk is None:
            user.save()
        user.groups.add(Group.objects.get(name=role))
        if team_name:
            team, _ = Team.objects.get_or_create(name=team_name)
            team.members.add(user)
    return user


def add_user(username, role, password, team=None, by=None):
    """Create a user with a password (or give an existing one one more role and team), as `manage.py add_user`
    and the API do; logged with before and after. The password rules raise ValidationError before anything is
    stored."""
    existing = User.objects.filter(username=username).first()
    before = state_of(existing) if existing else None
    with transaction.atomic():
        user = ensure_user(username, role, password, team)
        after = state_of(user)
        if after != before:
            audit.record(by, "user created" if before is None else "user changed", username, before, after)
    return user


def add_team_members(name, users, by=None):
    """Create team `name` if needed and add `users` to it; returns (team, created). Logged with the members before
    and after."""
    with transaction.atomic():
        team, created = Team.objects.get_or_create(name=name.strip())
        before = sorted(team.members.values_list("username", flat=True))
        team.members.add(*users)
        after = sorted(team.members.values_list("username", flat=True))
        if created or after != before:
            audit.record(by, "team changed", team.name, None if created else {"members": before}, {"members": after})
    return team, created


def _locked_attempts():
    """django-axes' attempts at or over the limit within the cool-off time: each a locked (user name, address)."""
    since = timezone.now() - timedelta(hours=settings.AXES_COOLOFF_TIME)
    return AccessAttempt.objects.filter(failures_since_start__gte=settings.AXES_FAILURE_LIMIT, attempt_time__gte=since)


def locked_usernames():
    """User names locked out from at least one address by failed logins now."""
    return set(_locked_attempts().values_list("username", flat=True))


def locks(username):
    """The addresses `username` is locked out from now: [{address, failures, last}], latest first."""
    rows = _locked_attempts().filter(username=username).order_by("-attempt_time")
    return [
        {"address": a.ip_address, "failures": a.failures_since_start, "last": a.attempt_time}
        for a in rows.only("ip_address", "failures_since_start", "attempt_time")
    ]


def unlock(username, by=None):
    """Clear a user name's failed logins, from every address (its locks and its slow-down); returns how many
    attempt records were removed."""
    with transaction.atomic():
        removed = axes_reset(username=username)
        if removed:
            audit.record(by, "user unlocked", username, before={"locked": True}, after={"locked": False})
    return removed
