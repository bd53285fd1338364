"""The demo: users for each role, then each track's demo data. Every step is idempotent.

`python manage.py load_demo` runs the users' and collections' steps, then each registered track's demo steps
(pooling.tracks.Track.demo_steps) in the order the track apps are installed.
"""

from importlib import import_module

from accounts.people import ensure_user
from config.roles import ASSESSOR, ORGANIZER, PARTICIPANT

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


STEPS = ["pooling.demo.create_users", "corpus.demo.load_demo_collections"]


def steps():
    from pooling.tracks import TRACKS

    return STEPS + [step for track in TRACKS.values() for step in track.demo_steps]


def run_all(out=print):
    for dotted in steps():
        module_name, func_name = dotted.rsplit(".", 1)
        getattr(import_module(module_name), func_name)(out)
