"""Releasing scores to participants: a whole evaluation (its state becomes "released"), or one team at a time
(the team's id is listed in the evaluation's settings["released_teams"], judging goes on for everyone else).

Each release also records what it promised, so a report can say what it is (settings["releases"]):
{"all": record, "teams": {team id: record}, "log": [what was released or withdrawn, when, by whom]}, where a
record is {"at", "by", "final", "comparison": "live" | "frozen", "runs": the compared runs' ids at release,
"scores": {run id: its run score at release}}. "frozen" keeps best/median/worst over exactly those runs; "live"
lets runs loaded later join them. A final release is refused while judging is incomplete.
"""

from datetime import UTC, datetime

from django.db import transaction
from django.utils import timezone

from core import audit
from pooling.models import Evaluation

SETTING = "released_teams"
RECORDS = "releases"
LIVE, FROZEN = "live", "frozen"
LOG_LENGTH = 100


class ReleaseRefused(Exception):
    """A release that would promise something untrue (final while judging goes on)."""


def released_for(evaluation, team_id):
    """Whether the team's members may see their runs' reports."""
    return evaluation.state == Evaluation.RELEASED or team_id in (evaluation.settings or {}).get(SETTING, [])


def release_record(evaluation, team_id):
    """The record of the release through which the team sees its reports: None when not released, {} when
    released before releases were recorded (or by setting the state directly): provisional, live comparison."""
    if not released_for(evaluation, team_id):
        return None
    records = (evaluation.settings or {}).get(RECORDS) or {}
    if evaluation.state == Evaluation.RELEASED:
        return records.get("all") or {}
    return (records.get("teams") or {}).get(str(team_id)) or {}


def release_log(evaluation):
    return ((evaluation.settings or {}).get(RECORDS) or {}).get("log") or []


def ever_released(evaluation):
    """Whether reports were ever released (and maybe withdrawn since): the demo must not undo an organizer."""
    return (
        bool(release_log(evaluation))
        or evaluation.state == Evaluation.RELEASED
        or bool((evaluation.settings or {}).get(SETTING))
    )


def when(value):
    """An instant (datetime, or ISO text as records keep it) as "YYYY-MM-DD HH:MM:SS UTC"; "–" if none."""
    if not value:
        return "–"
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%d %H:%M:%S UTC")


def _locked(evaluation):
    # settings is one JSON value: read-modify-write under the row lock so two releases cannot lose one another
    return Evaluation.objects.select_for_update(of=("self",)).get(pk=evaluation.pk)


def _records(settings):
    records = settings.setdefault(RECORDS, {})
    records.setdefault("teams", {})
    records.setdefault("log", [])
    return records


def _log(records, entry):
    records["log"] = (records["log"] + [entry])[-LOG_LENGTH:]


def _sync(evaluation, locked):
    evaluation.state, evaluation.settings = locked.state, locked.settings


def release(evaluation, team=None, *, final=False, freeze=False, by=""):
    """Release the evaluation's reports (to every team), or only `team`'s. `final`: the scores are final (refused
    with ReleaseRefused unless every pool item is judged and nothing waits for rescoring); `freeze`: best/median/
    worst stay over the runs compared now, where otherwise runs loaded later join them. Releasing again replaces
    the record (e.g. a final release after a provisional one)."""
    from scoring.results import compared_runs, evaluation_judging, run_score_values

    with transaction.atomic():
        locked = _locked(evaluation)
        if final:
            judging = evaluation_judging(locked)
            if not judging.complete:
                raise ReleaseRefused(
                    f"judging is incomplete ({judging.describe()}): release provisional scores, "
                    "or finish judging and rescoring first"
                )
        now = timezone.now().isoformat()
        runs = locked.runs.all() if team is None else locked.runs.filter(team=team)
        record = {
            "at": now,
            "by": by,
            "final": bool(final),
            "comparison": FROZEN if freeze else LIVE,
            "runs": sorted(compared_runs(locked).values_list("id", flat=True)),
            "scores": {str(k): v for k, v in run_score_values(runs).items()},
        }
        records = _records(locked.settings)
        if team is None:
            locked.state = Evaluation.RELEASED
            records["all"] = record
        else:
            locked.settings[SETTING] = sorted(set(locked.settings.get(SETTING, [])) | {team.id})
            records["teams"][str(team.id)] = record
        _log(
            records,
            {
                "at": now,
                "by": by,
                "action": "release",
                "team": team.name if team else None,
                "final": bool(final),
                "comparison": record["comparison"],
            },
        )
        locked.save(update_fields=["state", "settings"])
        audit.record(
            by or None,
            "results released",
            f"{locked.slug}:{team.name if team else 'every team'}",
            before={"state": evaluation.state},
            after={"state": locked.state, "final": bool(final), "comparison": record["comparison"]},
        )
    _sync(evaluation, locked)
    return record


def withdraw(evaluation, team=None, *, by=""):
    """Hide reports again: everyone's (back to judging, per-team releases cleared) or only `team`'s."""
    with transaction.atomic():
        locked = _locked(evaluation)
        records = _records(locked.settings)
        if team is None:
            if locked.state == Evaluation.RELEASED:
                locked.state = Evaluation.JUDGING
            locked.settings.pop(SETTING, None)
            records.pop("all", None)
            records["teams"] = {}
        else:
            locked.settings[SETTING] = [t for t in locked.settings.get(SETTING, []) if t != team.id]
            records["teams"].pop(str(team.id), None)
        _log(
            records,
            {"at": timezone.now().isoformat(), "by": by, "action": "withdraw", "team": team.name if team else None},
        )
        locked.save(update_fields=["state", "settings"])
        audit.record(
            by or None,
            "results withdrawn",
            f"{locked.slug}:{team.name if team else 'every team'}",
            before={"state": evaluation.state},
            after={"state": locked.state},
        )
    _sync(evaluation, locked)


def release_summary(evaluation, teams):
    """For the organizer's board: {"all": record or None, "teams": [(team, record or None)], "released": the
    pairs with a record, "unreleased": names} where a team's record is that of its own release (None: not
    released to it on its own)."""
    records = (evaluation.settings or {}).get(RECORDS) or {}
    per_team = records.get("teams") or {}
    released = set((evaluation.settings or {}).get(SETTING, []))
    everyone = evaluation.state == Evaluation.RELEASED
    rows = [(t, (per_team.get(str(t.id)) or {}) if t.id in released else None) for t in teams]
    return {
        "all": (records.get("all") or {}) if everyone else None,
        "teams": rows,
        "released": [(t, r) for t, r in rows if r is not None],
        "unreleased": [t.name for t, r in rows if r is None],
    }
