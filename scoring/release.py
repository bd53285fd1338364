"""Releasing scores to participants: a whole evaluation (its state becomes "released"), or one team at a time
(the team's id is listed in the evaluation's settings["released_teams"], judging goes on for everyone else)."""
from pooling.models import Evaluation

SETTING = "released_teams"


def released_for(evaluation, team_id):
    """Whether the team's members may see their runs' reports."""
    return evaluation.state == Evaluation.RELEASED or team_id in (evaluation.settings or {}).get(SETTING, [])


def release(evaluation, team=None):
    """Release the evaluation's reports (to every team), or only `team`'s."""
    if team is None:
        evaluation.state = Evaluation.RELEASED
        evaluation.save(update_fields=["state"])
        return
    teams = set(evaluation.settings.get(SETTING, []))
    teams.add(team.id)
    evaluation.settings[SETTING] = sorted(teams)
    evaluation.save(update_fields=["settings"])


def withdraw(evaluation, team=None):
    """Hide reports again: everyone's (back to judging, per-team releases cleared) or only `team`'s."""
    if team is None:
        if evaluation.state == Evaluation.RELEASED:
            evaluation.state = Evaluation.JUDGING
        evaluation.settings.pop(SETTING, None)
        evaluation.save(update_fields=["state", "settings"])
        return
    evaluation.settings[SETTING] = [t for t in evaluation.settings.get(SETTING, []) if t != team.id]
    evaluation.save(update_fields=["settings"])
