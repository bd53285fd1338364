"""Demo step: score the TAC 2008 demo evaluation and release Team Alpha's reports (idempotent).

The evaluation stays in judging, so the organizer's board keeps moving as the demo assessors judge; only Team
Alpha's members (user "participant") see their runs' reports, from "My team's runs". The release happens once:
a rerun of the demo leaves whatever the organizer did since (withdrawn, released as final, frozen) as it is.
"""

from accounts.models import Team
from pooling.models import Evaluation
from scoring.release import ever_released, release
from scoring.rescore import rescore_evaluation

SLUG = "demo-tac2008"
TEAM = "Team Alpha"


def score_demo(out):
    evaluation = Evaluation.objects.filter(slug=SLUG).first()
    if evaluation is None:
        out(f"scoring: no {SLUG} evaluation, nothing to score")
        return
    questions = rescore_evaluation(evaluation.id)
    team = Team.objects.filter(name=TEAM, runs__evaluation=evaluation).distinct().first()
    note = ""
    if team is not None and not ever_released(evaluation):
        release(evaluation, team, by="demo")
        note = f"; reports released to {TEAM} as provisional scores (log in as participant)"
    elif team is not None:
        note = "; releases left as they are (released before)"
    out(f"scoring: {SLUG} rescored ({questions} questions); board at /scores/{SLUG}/{note}")
