"""The demo: users for each role, then each track's demo data. Every step is idempotent.

`python manage.py load_demo` runs the users' and collections' steps, then each registered track's demo
(core.extension_points.demo) in the order the tracks are registered (the track apps' order in INSTALLED_APPS).
"""

from django.contrib.auth.models import Group, User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

from config.roles import ASSESSOR, ORGANIZER, PARTICIPANT, ROLES
from core import extension_points as ep
from core.tracks import TRACKS
from corpus.demo import load_demo_collections
from pooling.models import Team

# Demo passwords are printed by load_demo; they exist only in the demo database. They go through the password
# validators like any other (ensure_user), so none may resemble its username.
DEMO_USERS = [
    ("organizer", ORGANIZER, "organizer-demo-pw", None),
    ("assessor", ASSESSOR, "assessor-demo-pw", None),
    ("assessor2", ASSESSOR, "assessor2-demo-pw", None),
    ("assessor3", ASSESSOR, "assessor3-demo-pw", None),
    ("participant", PARTICIPANT, "team-alpha-demo-pw", "Team Alpha"),
    ("participant2", PARTICIPANT, "team-beta-demo-pw", "Team Beta"),
]


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


def create_users(out):
    for username, role, password, team in DEMO_USERS:
        ensure_user(username, role, password, team)
    out("Demo users (username / password / role):")
    for username, role, password, team in DEMO_USERS:
        out(f"  {username:<13} {password:<22} {role}{' of ' + team if team else ''}")


def steps():
    """The demo's steps in order: functions taking `out` (a print-like callable)."""
    demos = [ep.demo.get(slug) for slug in TRACKS]
    return [create_users, load_demo_collections] + [demo for demo in demos if demo is not None]


def run_all(out=print):
    for step in steps():
        step(out)
