import json
from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError

from core.tracks import get_track
from pooling.evaluations import LoadError, set_state, update_settings
from pooling.management.commands._common import fail_with, get_evaluation
from pooling.models import Evaluation


def add_settings_arguments(parser):
    parser.add_argument("--judged-priorities", help="comma-separated run priorities whose runs are pooled, e.g. 1,2")
    parser.add_argument(
        "--max-answer-chars",
        type=int,
        help="limit on non-white-space characters of a question's answer strings (0: none)",
    )
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        dest="setting",
        metavar="NAME=VALUE",
        help="any setting the track declares, e.g. passage_white_space=collapsed (BOLT); VALUE is read as JSON "
        "when it is JSON, else as text; repeat for several",
    )
    parser.add_argument(
        "--assessor-conflicts",
        choices=["warn", "refuse"],
        help="assigning an assessor of a team with runs in the series' pool: warn (default) or refuse",
    )
    parser.add_argument("--submission-opens", help="ISO time (UTC unless it says), or 'none'")
    parser.add_argument("--submission-closes", help="ISO time (UTC unless it says), or 'none'")
    nil = parser.add_mutually_exclusive_group()
    nil.add_argument("--allow-nil", dest="allow_nil", action="store_true", default=None)
    nil.add_argument("--no-nil", dest="allow_nil", action="store_false")


def settings_from_options(options, track=None):
    """The settings the options change; `--setting` names are checked against the track's declared settings."""
    changes = {}
    declared = get_track(track).default_settings if track else None
    for pair in options.get("setting") or []:
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise CommandError(f"--setting: {pair!r} is not NAME=VALUE")
        if declared is not None and name not in declared:
            raise CommandError(f"--setting: {name!r} is not a setting of track {track} ({', '.join(sorted(declared))})")
        try:
            changes[name] = json.loads(raw)
        except ValueError:
            changes[name] = raw
    if options.get("judged_priorities"):
        try:
            changes["judged_priorities"] = sorted({int(p) for p in options["judged_priorities"].split(",") if p})
        except ValueError:
            wrong = options["judged_priorities"]
            raise CommandError(f"--judged-priorities: {wrong!r} is not a list of numbers") from None
    if options.get("max_answer_chars") is not None:
        changes["max_answer_chars"] = options["max_answer_chars"] or None
    if options.get("assessor_conflicts"):
        changes["assessor_conflicts"] = options["assessor_conflicts"]
    if options.get("allow_nil") is not None:
        changes["allow_nil"] = options["allow_nil"]
    for name in ("submission_opens", "submission_closes"):
        value = options.get(name)
        if value:
            if value.lower() == "none":
                changes[name] = None
                continue
            try:
                moment = datetime.fromisoformat(value)
            except ValueError:
                raise CommandError(f"--{name.replace('_', '-')}: {value!r} is not an ISO time") from None
            changes[name] = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()
    return changes


class Command(BaseCommand):
    help = "Change an evaluation's state (open, judging, released) or settings."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--state", choices=[s for s, _ in Evaluation.STATES])
        parser.add_argument("--title")
        add_settings_arguments(parser)

    def handle(self, slug, state, title, **options):
        evaluation = get_evaluation(slug)
        try:
            if state:
                set_state(evaluation, state)
            changes = settings_from_options(options, evaluation.track)
            if changes:
                update_settings(evaluation, changes)
        except LoadError as exc:
            raise fail_with(exc.problems) from None
        if title:
            evaluation.title = title
            evaluation.save(update_fields=["title"])
        self.stdout.write(f"{evaluation.slug}: {evaluation.state}; settings {evaluation.settings}")
