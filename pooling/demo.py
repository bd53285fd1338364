"""The demo: users for each role, then each track's demo data. Every step is idempotent.

`python manage.py load_demo` runs the users' and collections' steps, then each registered track's demo
(core.extension_points.demo) in the order the tracks are registered (the track apps' order in INSTALLED_APPS).
"""

from accounts.people import ensure_user
from config.roles import ASSESSOR, ORGANIZER, PARTICIPANT
from core import extension_points as ep
from core.tracks import TRACKS
from corpus.demo import load_demo_collections

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
