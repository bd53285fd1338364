"""Loading ciQA runs and URL files: the functions behind the ciQA page, the participant's page and API
(pooling.campaign) and the commands load_ciqa_run and load_ciqa_urls, so every path applies the same checks.

A run goes through pooling.runs.load_run_files like any track's run (the campaign's rules and window, the
receipt, the audit log) with its stage (initial or final, and a final run's initial run) in the run's data
("kind", "initial_tag"); the ciQA rules (tracks.qa.ciqa.rules) are checked after storing
(core.extension_points.after_run_stored) inside the run's transaction with the team's row locked, so two uploads of
one team cannot both pass as its third run, and, for a run only checked, through check_submission (both registered
in tracks/qa/plugin.py). A URL file is held to the same campaign rules (what rule_breaches checks of every
submission: the window) and gets a receipt too."""

import hashlib
import socket

from django.db import transaction

from accounts.models import Team
from core import audit
from core.submission_rules import RUN_RULES
from pooling.campaign_rules import rule_breaches
from pooling.evaluations import LoadError, effective_settings
from pooling.formats.base import ParsedRun
from pooling.models import Run, Topic
from pooling.models import Submission as Receipt
from pooling.runs import RunFile, load_run_files
from tracks.qa.ciqa.models import Screenshot, UrlFile
from tracks.qa.ciqa.rules import FINAL, INITIAL, STAGES, URLS, Submission, check_submission
from tracks.qa.formats.ciqa_topics import KIND, TRAINING_KIND
from tracks.qa.formats.ciqa_urls import parse_url_file

TRACK = "trec2007-ciqa"
# The run's data keys, the generic ones (pooling.runs.RunFile.kind / initial_tag) that every path writes.
STAGE, INITIAL_TAG = "kind", "initial_tag"
IMAGE_TYPES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF87a": "image/gif"}
IMAGE_TYPES[b"GIF89a"] = "image/gif"
MAX_IMAGE = 2 * 1024 * 1024
ALLOW_PRIVATE = "allow_private_urls"  # evaluation setting: URL files may point at non-public addresses


def _team_problems(team, filename):
    longest = Team._meta.get_field("name").max_length
    if not team:
        return [f"{filename}:0: no team given"]
    if len(team) > longest or "\x00" in team:
        return [f"{filename}:0: the team name must be at most {longest} characters, without NUL"]
    return []


def require_ciqa(evaluation):
    if evaluation.track != TRACK:
        raise LoadError([f"{evaluation.slug} is a {evaluation.track} evaluation, not {TRACK}"])


def run_submissions(evaluation, exclude=None):
    """The evaluation's runs as rules.Submission (a run loaded without a stage counts as an initial run)."""
    runs = Run.objects.filter(evaluation=evaluation).select_related("team")
    if exclude is not None:
        runs = runs.exclude(pk=exclude)
    return [
        Submission(r.tag, r.team.name, (r.data or {}).get(STAGE) or INITIAL, (r.data or {}).get(INITIAL_TAG) or "")
        for r in runs
    ]


def url_submissions(evaluation):
    return [
        Submission(u.tag, u.team.name, URLS)
        for u in UrlFile.objects.filter(evaluation=evaluation, baseline_run__isnull=True).select_related("team")
    ]


def load_run(
    evaluation, data, filename, team, stage, initial="", manual=False, priority=None, by=None, override_reason=""
):
    """Check and store one ciQA run as an initial or a final run (naming its initial run) through
    pooling.runs.load_run_files (campaign rules, receipt naming `by`); returns (run, replaced). Raises
    LoadError with every problem."""
    require_ciqa(evaluation)
    team = (team or "").strip()
    problems = _team_problems(team, filename)
    if stage not in STAGES:
        problems.append(f"{filename}:0: stage {stage!r}: a ciQA run is an initial or a final run")
    if problems:
        raise LoadError(problems)
    run_file = RunFile(
        filename=filename,
        data=data,
        team=team,
        priority=priority,
        manual=manual,
        kind=stage,
        initial_tag=(initial or "").strip() if stage == FINAL else "",
    )
    [result] = load_run_files(evaluation, [run_file], by=by, override_reason=override_reason)
    if result.problems:
        raise LoadError(result.problems)
    return result.run, result.replaced


def _rule_problems(evaluation, tag, team, stage, initial, exclude=None):
    new = Submission(tag, team, stage, initial or "")
    return check_submission(new, run_submissions(evaluation, exclude=exclude), effective_settings(evaluation))


def check_submission_of(evaluation, parsed, run_file):
    """The track's check_submission (core.extension_points): what after_store will refuse, for a run only checked."""
    stage = run_file.kind or ""
    if stage not in STAGES:
        return [f"{run_file.filename}:0: say whether the run is an initial or a final run"]
    where = f"{run_file.filename}:0"
    team = run_file.team.strip()
    return [f"{where}: {p}" for p in _rule_problems(evaluation, parsed.tag, team, stage, run_file.initial_tag.strip())]


def after_store(run):
    """The track's after_run_stored (core.extension_points), called by pooling's store_run inside the run's
    transaction: the run has a stage, and the pairing and per-team limits hold."""
    where = f"{run.source_name or run.tag}:0"
    stage = (run.data or {}).get(STAGE)
    if stage not in STAGES:
        raise LoadError(
            [f"{where}: a ciQA run is an initial or a final run: say which (and a final run's initial run)"]
        )
    Team.objects.select_for_update(of=("self",)).filter(pk=run.team_id).first()  # a team's loads queue here
    problems = _rule_problems(
        run.evaluation, run.tag, run.team.name, stage, (run.data or {}).get(INITIAL_TAG), exclude=run.pk
    )
    if problems:
        raise LoadError([f"{where}: {p}" for p in problems])


def test_topics(evaluation):
    """Idents of the topics a URL file points into, in file order: the training topic and the test topics."""
    return list(
        Topic.objects.filter(evaluation=evaluation, kind__in=(KIND, TRAINING_KIND))
        .order_by("position")
        .values_list("ident", flat=True)
    )


def resolve_host(host):
    """The addresses `host` resolves to here, now (socket.getaddrinfo); none when it does not resolve: the team's
    system may not be up yet, and an assessor skips a system that cannot be reached. Tests replace it (no network)."""
    try:
        return [info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)]
    except (OSError, UnicodeError):
        return []


def check_url_file(evaluation, data, filename, team):
    """(problems, ParsedUrlFile or None): the file's lines (http(s) URLs, on public hosts unless the evaluation
    allows others), the team's name and the campaign's rules for every submission (its window), nothing stored."""
    require_ciqa(evaluation)
    topics = test_topics(evaluation)
    if not topics:
        return [f"{filename}:0: {evaluation.slug} has no topics yet: load the topic file first"], None
    allow = bool(effective_settings(evaluation).get(ALLOW_PRIVATE))
    parsed_problems, parsed = parse_url_file(data, filename, topics, allow, None if allow else resolve_host)
    problems = [p.format(filename) for p in parsed_problems]
    team = (team or "").strip()
    problems += _team_problems(team, filename)
    return problems, (None if problems else parsed)


def campaign_breaches(evaluation, team):
    """The campaign rules a URL file meets as every submission does (pooling.campaign_rules.rule_breaches, less the
    rules about a run itself): the submission window, and whatever else the campaign checks of every file."""
    probe = RunFile(filename="", data=b"", team=team, kind=URLS)
    return [b for b in rule_breaches(evaluation, ParsedRun(tag="", entries=[]), probe, None) if b.rule not in RUN_RULES]


def load_url_file(evaluation, data, filename, team, manual=False, by=None, override_reason=""):
    """Check and store one URL file of `team` with its receipt (naming `by`, a user or None for the server);
    returns (UrlFile with .receipt, replaced). An organizer's `override_reason` accepts a breach of the campaign's
    rules (the window), logged; never a problem of the file or of the ciQA limits."""
    problems, parsed = check_url_file(evaluation, data, filename, team)
    if problems:
        raise LoadError(problems)
    team = team.strip()
    breaches = campaign_breaches(evaluation, team)
    if breaches and not override_reason:
        raise LoadError([b.format(filename) for b in breaches])
    with transaction.atomic():
        team_row = Team.objects.get_or_create(name=team)[0]
        Team.objects.select_for_update(of=("self",)).filter(pk=team_row.pk).first()
        rule_problems = check_submission(
            Submission(parsed.tag, team, URLS), url_submissions(evaluation), effective_settings(evaluation)
        )
        if rule_problems:
            raise LoadError([f"{filename}:0: {p}" for p in rule_problems])
        url_file, created = UrlFile.objects.update_or_create(
            evaluation=evaluation,
            tag=parsed.tag,
            defaults={
                "team": team_row,
                "is_manual": manual,
                "urls": parsed.urls,
                "screenshot_links": parsed.screenshots,
                "source_name": filename,
                "baseline_run": None,
            },
        )
        overrides = [{"rule": b.rule, "message": b.message, "reason": override_reason} for b in breaches]
        url_file.receipt = Receipt.objects.create(
            evaluation=evaluation,
            team=team_row,
            user=by if getattr(by, "pk", None) else None,
            tag=parsed.tag,
            filename=filename[-255:],
            sha256=hashlib.sha256(data).hexdigest(),
            size=len(data),
            replaced=not created,
            form={"kind": "URL file", "manual": manual, "topics": len(parsed.urls)}
            | ({"overrides": overrides} if overrides else {}),
        )
        target = f"{evaluation.slug}:{parsed.tag}"
        if overrides:
            audit.record(by, "rule overridden", target, before=None, after={"rules": overrides}, reason=override_reason)
    return url_file, not created


def submit_url_file(evaluation, data, filename, team, by):
    """A team's URL file sent on the participant's page or through the API (pooling.campaign.OtherSubmission):
    load_url_file's checks; returns the receipt."""
    return load_url_file(evaluation, data, filename, team, by=by)[0].receipt


def image_type(data):
    return next((kind for magic, kind in IMAGE_TYPES.items() if data.startswith(magic)), None)


def add_screenshot(url_file, data, name):
    """Keep a PNG, JPEG or GIF screenshot of the URL file's system (checked by its first bytes, at most 2 MB)."""
    kind = image_type(data)
    if kind is None:
        raise LoadError([f"{name}:0: not a PNG, JPEG or GIF image"])
    if len(data) > MAX_IMAGE:
        raise LoadError([f"{name}:0: larger than {MAX_IMAGE // (1024 * 1024)} MB"])
    return Screenshot.objects.create(url_file=url_file, name=name[:255], content_type=kind, image=data)
