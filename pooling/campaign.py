"""A team's side of an evaluation: what it may download, when its runs are due, its receipts. The functions behind
the participant's pages (pooling.campaign_views); the judging stages add their own downloads and say when results
are released through core.extension_points (release_check, team_downloads: scoring), so pooling imports no later
stage.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import Team
from core import extension_points as ep
from pooling.campaign_rules import submission_closed, submission_window
from pooling.evaluations import LoadError, read_upload
from pooling.models import Download, Evaluation, EvaluationFile, Participation, Submission


@dataclass(frozen=True)
class TeamDownload:
    """One file a team may fetch: `url` (already reversed), a label and a note."""

    label: str
    url: str
    note: str = ""


@dataclass(frozen=True)
class OtherSubmission:
    """A file a track's teams submit that is not a run (ciQA's URL files), offered on the participant's page and
    through the API beside runs: the track checks and stores it, within the campaign's rules, with a receipt."""

    kind: str  # the submission form's "kind" value
    label: str
    check: Callable  # (evaluation, data, filename, team name) -> (problems, parsed with .tag, or None)
    submit: Callable  # (evaluation, data, filename, team name, by) -> Submission (the receipt); raises LoadError
    size_kind: str = "urls"  # whose size limit the file has (config.uploads.DEFAULTS)


def other_submissions(evaluation):
    """{kind: OtherSubmission} the evaluation's teams may send besides runs (core.extension_points)."""
    others = ep.other_submissions.get(evaluation.track)
    return {other.kind: other for other in others(evaluation)} if others else {}


def submit_other(other, evaluation, team, upload, user, store):
    """Check (and with `store`, store) an OtherSubmission's file for `team`: (problems, parsed, receipt). Once the
    evaluation takes no more files (window closed, judging started) or when the file is over its kind's size
    limit, it is refused before it is read."""
    try:
        closed = submission_closed(evaluation, team, subtask=other.kind) if store else []
        if closed:
            raise LoadError([b.format(upload.name) for b in closed])
        data = read_upload(upload, other.size_kind)
        problems, parsed = other.check(evaluation, data, upload.name, team.name)
        if problems or not store:
            return problems, parsed, None
        return [], parsed, other.submit(evaluation, data, upload.name, team.name, user)
    except LoadError as exc:
        return exc.problems, None, None


def released_to(evaluation, team):
    """Whether the team's results are released: every later stage's check agrees (scoring.release.released_for);
    with none registered, only a released evaluation counts."""
    checks = [check for _, check in ep.release_check.items()]
    if not checks:
        return evaluation.state == Evaluation.RELEASED
    return all(check(evaluation, team.pk) for check in checks)


def teams_of(user):
    return Team.objects.filter(members=user).order_by("name")


def team_of(user, name):
    """The user's team named `name` (or their only team when no name is given); None when it is not theirs."""
    teams = teams_of(user)
    if name:
        return teams.filter(name=name).first()
    return teams.first() if teams.count() == 1 else None


def visible_files(evaluation, team):
    """The evaluation's files the team may fetch now: [(kind, filename, EvaluationFile or None)]; a track giving
    teams a reduced topic file shows that while the full one waits for the judgments."""
    released = released_to(evaluation, team)
    files = []
    reduced = ep.participant_topics.get(evaluation.track)
    for f in EvaluationFile.objects.filter(evaluation=evaluation).defer("data").order_by("kind"):
        if f.released == EvaluationFile.AT_ONCE or released:
            files.append((f.kind, f.filename, f))
    if reduced and not released and evaluation.topics.exists():
        files.insert(0, ("topics", f"{evaluation.slug}-topics.xml", None))
    return files


def starts_clock(evaluation, team, kind):
    """Whether fetching file `kind` now would start the team's deadline clock: the track counts days from the first
    test-data download (QA4MRE) and the team has none yet. Such a download is asked for by POST only (issue 26: a
    link prefetcher's GET must not start it)."""
    if not evaluation.track_spec.submission_rules.days_after_first_download:
        return False
    visible = {k: f for k, _, f in visible_files(evaluation, team)}
    if kind not in visible or not (visible[kind] is None or visible[kind].test_data):
        return False
    first = Participation.objects.filter(evaluation=evaluation, team=team).values_list("first_download_at", flat=True)
    return not any(first)


def file_for_team(evaluation, team, kind, user=None):
    """(filename, bytes) of a file the team may fetch, recording the download (the first of the team's test data
    starts its clock, Participation.first_download_at); None when the team may not have it."""
    visible = {k: f for k, _, f in visible_files(evaluation, team)}
    if kind not in visible:
        return None
    stored = visible[kind]
    if stored is None:  # the track's reduced topic file, built now
        filename, data = ep.participant_topics.require(evaluation.track)(evaluation)
    else:
        filename, data = stored.filename, bytes(stored.data)
    test_data = stored is None or stored.test_data
    with transaction.atomic():
        Download.objects.create(evaluation=evaluation, team=team, user=user, what=kind)
        if test_data:
            taking_part = Participation.objects.select_for_update(of=("self",)).get_or_create(
                evaluation=evaluation, team=team
            )[0]
            if taking_part.first_download_at is None:
                taking_part.first_download_at = timezone.now()
                taking_part.save(update_fields=["first_download_at"])
    return filename, data


def extra_downloads(evaluation, team):
    return [d for _, provider in ep.team_downloads.items() for d in provider(evaluation, team)]


def team_status(evaluation, team):
    """What the team's page shows about the evaluation: its ID there, window, runs and receipts."""
    opens, due = submission_window(evaluation, team)
    taking_part = Participation.objects.filter(evaluation=evaluation, team=team).first()
    first = taking_part.first_download_at if taking_part else None
    days = evaluation.track_spec.submission_rules.days_after_first_download
    closed = submission_closed(evaluation, team)
    return {
        "team_id": taking_part.ident if taking_part else "",
        "first_download_at": first,
        # only where the track counts the deadline from it (QA4MRE) and that, not the closing time, set it
        "counted_from": first if days and first and due == first + timedelta(days=days) else None,
        "opens": opens,
        "due": due,
        "open": not closed,
        "closed_because": [b.message for b in closed],
        "runs": evaluation.runs.filter(team=team).order_by("priority", "tag"),
        "receipts": Submission.objects.filter(evaluation=evaluation, team=team),
        "released": released_to(evaluation, team),
    }


def receipt_text(submission):
    """The receipt as a plain-text file."""
    lines = [
        "Assay submission receipt",
        f"evaluation: {submission.evaluation.title} ({submission.evaluation.slug})",
        f"team: {submission.team.name}",
        f"run tag: {submission.tag}",
        f"priority: {submission.priority}",
        f"file: {submission.filename} ({submission.size} bytes)",
        f"sha256: {submission.sha256}",
        f"received: {submission.submitted_at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC",
        f"submitted by: {submission.user.get_username() if submission.user else '(server)'}",
        f"replaced an earlier file: {'yes' if submission.replaced else 'no'}",
    ]
    lines += [f"{k}: {v}" for k, v in sorted(submission.form.items()) if k != "overrides"]
    return "\n".join(lines) + "\n"


def set_team_id(evaluation, team_name, ident, by=None):
    """Record the team's ID for the evaluation (its run tags start with it); logged. Creates the team if new."""
    from core import audit

    ident = ident.strip()
    with transaction.atomic():
        team = Team.objects.get_or_create(name=team_name.strip())[0]
        taking_part = Participation.objects.get_or_create(evaluation=evaluation, team=team)[0]
        before = taking_part.ident
        taking_part.ident = ident
        taking_part.save(update_fields=["ident"])
        if before != ident:
            audit.record(
                by, "team ID set", f"{evaluation.slug}:{team.name}", before={"ident": before}, after={"ident": ident}
            )
    return taking_part


def teams_overview(evaluation):
    """For the organizer: every team taking part (or with runs) with its ID, first download and receipts."""
    team_ids = set(evaluation.runs.values_list("team_id", flat=True)) | set(
        evaluation.participations.values_list("team_id", flat=True)
    )
    taking = {p.team_id: p for p in evaluation.participations.all()}
    rows = []
    for team in Team.objects.filter(pk__in=team_ids).order_by("name"):
        p = taking.get(team.pk)
        rows.append(
            {
                "team": team,
                "ident": p.ident if p else "",
                "first_download_at": p.first_download_at if p else None,
                "due": submission_window(evaluation, team)[1],
                "runs": evaluation.runs.filter(team=team).order_by("priority", "tag"),
                "receipts": Submission.objects.filter(evaluation=evaluation, team=team).count(),
            }
        )
    return rows
