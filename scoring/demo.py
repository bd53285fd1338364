"""Demo step: score the TAC 2008 demo evaluation and release Team Alpha's reports (idempotent).

The evaluation stays in judging, so the organizer's board keeps moving as the demo assessors judge; only Team
Alpha's members (user "participant") see their runs' reports, from "My team's runs".
"""
from pooling.models import Evaluation, Team
from scoring.release import release
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
    if team is not None:
        release(evaluation, team)
    out(f"scoring: {SLUG} rescored ({questions} questions); board at /scores/{SLUG}/"
        + (f"; reports released to {TEAM} (log in as participant)" if team else ""))
