"""Loading ciQA runs and URL files: the functions behind the ciQA page and the commands load_ciqa_run and
load_ciqa_urls. Everything is checked first; what passes is stored in one transaction, and the submission rules
(tracks.qa.ciqa.rules) are checked inside it with the team's row locked, so two uploads of one team cannot both
pass as its third run."""

from django.db import transaction

from pooling.loading import LoadError, check_run_file, effective_settings, priority_from_tag, store_run
from pooling.models import Run, Team, Topic
from pooling.staleness import rescoring_deferred
from tracks.qa.ciqa.models import Screenshot, UrlFile
from tracks.qa.ciqa.rules import FINAL, INITIAL, STAGES, URLS, Submission, check_submission
from tracks.qa.formats.ciqa_topics import KIND, TRAINING_KIND
from tracks.qa.formats.ciqa_urls import parse_url_file

TRACK = "trec2007-ciqa"
STAGE, INITIAL_TAG = "ciqa_stage", "ciqa_initial"
IMAGE_TYPES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF87a": "image/gif"}
IMAGE_TYPES[b"GIF89a"] = "image/gif"
MAX_IMAGE = 2 * 1024 * 1024


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


def load_run(evaluation, data, filename, team, stage, initial="", manual=False, priority=None):
    """Check and store one ciQA run as an initial or a final run (naming its initial run); returns (run,
    replaced). Raises LoadError with every problem."""
    require_ciqa(evaluation)
    problems, parsed = check_run_file(evaluation, data, filename)
    team = (team or "").strip()
    problems += _team_problems(team, filename)
    if stage not in STAGES:
        problems.append(f"{filename}:0: stage {stage!r}: a ciQA run is an initial or a final run")
    if problems:
        raise LoadError(problems)
    parsed.data = (parsed.data or {}) | {STAGE: stage, INITIAL_TAG: (initial or "").strip() if stage == FINAL else ""}
    with rescoring_deferred(), transaction.atomic():
        team_row = Team.objects.get_or_create(name=team)[0]
        return store_run(
            evaluation, parsed, team_row, priority or priority_from_tag(parsed.tag) or 1, manual, True, filename
        )


def after_store(run):
    """pooling.loading.store_run's hook (tracks/qa/formats/ciqa_runs.py AFTER_STORE), inside the run's
    transaction: the run has a stage, and the pairing and per-team limits hold."""
    where = f"{run.source_name or run.tag}:0"
    stage = (run.data or {}).get(STAGE)
    if stage not in STAGES:
        raise LoadError(
            [
                f"{where}: a ciQA run is loaded as an initial or a final run (naming its initial run) on the "
                "evaluation's ciQA page or with manage.py load_ciqa_run, not through the generic run upload"
            ]
        )
    Team.objects.select_for_update(of=("self",)).filter(pk=run.team_id).first()  # a team's loads queue here
    new = Submission(run.tag, run.team.name, stage, (run.data or {}).get(INITIAL_TAG) or "")
    existing = run_submissions(run.evaluation, exclude=run.pk)
    problems = check_submission(new, existing, effective_settings(run.evaluation))
    if problems:
        raise LoadError([f"{where}: {p}" for p in problems])


def test_topics(evaluation):
    """Idents of the topics a URL file points into, in file order: the training topic and the test topics."""
    return list(
        Topic.objects.filter(evaluation=evaluation, kind__in=(KIND, TRAINING_KIND))
        .order_by("position")
        .values_list("ident", flat=True)
    )


def load_url_file(evaluation, data, filename, team, manual=False):
    """Check and store one URL file of `team`; returns (UrlFile, replaced)."""
    require_ciqa(evaluation)
    topics = test_topics(evaluation)
    if not topics:
        raise LoadError([f"{filename}:0: {evaluation.slug} has no topics yet: load the topic file first"])
    parsed_problems, parsed = parse_url_file(data, filename, topics)
    problems = [p.format(filename) for p in parsed_problems]
    team = (team or "").strip()
    problems += _team_problems(team, filename)
    if problems:
        raise LoadError(problems)
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
    return url_file, not created


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


def baseline_interaction(evaluation, run):
    """Make `run` (the sentence-retrieval baseline) an interaction: a URL file whose sessions open Assay's own
    sentence-relevance page (seed 001 3.2.3: 'The interaction associated with this run asked the assessor for
    relevance judgments on each of the sentences')."""
    require_ciqa(evaluation)
    url_file, _ = UrlFile.objects.update_or_create(
        evaluation=evaluation,
        tag=f"{run.tag}-interaction"[:100],
        defaults={"team": run.team, "is_manual": False, "urls": {}, "baseline_run": run, "source_name": ""},
    )
    run.data = (run.data or {}) | {"ciqa_baseline": True}
    run.save(update_fields=["data"])
    return url_file
