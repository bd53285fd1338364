"""Creating evaluations and loading their questions and runs: the functions behind the pages and commands.

Every loader checks the whole input first with the track's pure format module (pooling.formats.<name>) and
stores nothing when there is any problem; what passes is stored in one transaction. Problems come back as
`FILE:LINE: message` strings.
"""

import hashlib
from contextlib import closing, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial

from django.conf import settings as django_settings
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from config import uploads
from corpus.models import Collection, Document
from pooling import audit, column_limits
from pooling import submission_rules as rules_mod
from pooling.bulk import insert_rows
from pooling.formats import columns, parallel
from pooling.formats.base import CheckContext, Problem, load_format, resolve
from pooling.locks import key_shared
from pooling.models import (
    Evaluation,
    EvaluationFile,
    Participation,
    PoolItem,
    Run,
    RunEntry,
    Submission,
    Team,
    Topic,
)
from pooling.staleness import mark_questions_stale, rescoring_deferred
from core.tracks import TRACKS, get_track

DOCID_BATCH = 5000


class LoadError(Exception):
    """Input that cannot be loaded; `problems` holds every `FILE:LINE: message`."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass
class RunFile:
    """One run file to load with what the submission form says about it."""

    filename: str
    data: bytes
    team: str
    priority: int | None = None  # None: taken from the run tag's last digit (TAC: tag = team id + priority)
    manual: bool = False
    whole_collection: bool = True
    description: str = ""  # of the manual processing (TAC 2008: asked of every manual run)
    kind: str = ""  # "initial" / "final" for a track pairing runs (ciQA)
    initial_tag: str = ""  # a final run's initial run (ciQA)
    form: dict = field(default_factory=dict)  # the submission form's other answers, kept on the receipt


# What the submission form (the participant's page, the upload page, the API) says about a run: RunFile's fields
RUN_FORM_FIELDS = ("priority", "manual", "whole_collection", "description", "kind", "initial_tag")


def run_file_from_form(filename, data, team, fields):
    """A RunFile of an uploaded file with the RUN_FORM_FIELDS of `fields` (a form's or serializer's cleaned data)."""
    return RunFile(filename=filename, data=data, team=team, **{name: fields[name] for name in RUN_FORM_FIELDS})


@dataclass
class RunLoadResult:
    filename: str
    run: Run | None = None
    replaced: bool = False
    problems: list = field(default_factory=list)
    submission: Submission | None = None
    overridden: list = field(default_factory=list)  # the rules an organizer overrode for this run


# ---------------------------------------------------------------- evaluations


def create_evaluation(slug, track, collections=(), title="", settings=None):
    """A new evaluation of `track` over the named collections, its settings seeded from the track's defaults."""
    problems = []
    if track not in TRACKS:
        problems.append(f"unknown track {track!r}; known tracks: {', '.join(sorted(TRACKS))}")
    if Evaluation.objects.filter(slug=slug).exists():
        problems.append(f"an evaluation with slug {slug!r} already exists")
    found = {c.name: c for c in Collection.objects.filter(name__in=list(collections))}
    problems += [f"no collection named {name!r}" for name in collections if name not in found]
    if problems:
        raise LoadError(problems)
    spec = get_track(track)
    merged = dict(spec.default_settings) | dict(settings or {})
    with transaction.atomic():
        evaluation = Evaluation.objects.create(slug=slug, track=track, title=title or spec.title, settings=merged)
        evaluation.collections.set(found.values())
    return evaluation


def effective_settings(evaluation):
    return dict(evaluation.track_spec.default_settings) | dict(evaluation.settings or {})


def update_settings(evaluation, changes, by=None):
    """Change some settings (judged priorities, limits, NIL allowed, submission window); other settings are kept.
    `by` (a user, or None for the server) is logged with the values before and after."""
    # The window is read on every upload and team page (_aware): a value that is no time would break them all.
    for name in ("submission_opens", "submission_closes"):
        value = changes.get(name)
        try:
            if value is not None:
                datetime.fromisoformat(value)
        except (TypeError, ValueError):
            raise LoadError([f"{name} must be an ISO time such as 2026-06-01T12:00:00+00:00, not {value!r}"]) from None
    # read by assess.assignments.assign: "refuse" an assessor of a team with runs in the series' pool, or "warn"
    if changes.get("assessor_conflicts", "warn") not in ("warn", "refuse"):
        raise LoadError([f"assessor_conflicts must be 'warn' or 'refuse', not {changes['assessor_conflicts']!r}"])
    before = effective_settings(evaluation)
    with transaction.atomic():
        evaluation.settings = before | changes
        evaluation.save(update_fields=["settings"])
        changed = {k: v for k, v in changes.items() if before.get(k) != v}
        if changed:
            audit.record(
                by, "settings changed", evaluation.slug, before={k: before.get(k) for k in changed}, after=changed
            )
    return evaluation


def set_state(evaluation, state, by=None):
    valid = [s for s, _ in Evaluation.STATES]
    if state not in valid:
        raise LoadError([f"unknown state {state!r}; states are {', '.join(valid)}"])
    before = evaluation.state
    with transaction.atomic():
        evaluation.state = state
        evaluation.save(update_fields=["state"])
        if before != state:
            audit.record(by, "state changed", evaluation.slug, before={"state": before}, after={"state": state})
    return evaluation


def start_judging(evaluation):
    """Open for runs -> judging, once judging can begin (a pool was built, a series assigned). Only from "open":
    released scores stay released, and an organizer may still set the state by hand afterwards."""
    if Evaluation.objects.filter(pk=evaluation.pk, state=Evaluation.OPEN).update(state=Evaluation.JUDGING):
        evaluation.state = Evaluation.JUDGING
    return evaluation


# ---------------------------------------------------------------- topics


def answerable_topics(evaluation):
    """{ident: kind} of the topics a run answers (those with no children: questions), in file order."""
    rows = (
        Topic.objects.filter(evaluation=evaluation)
        .annotate(n=Count("children"))
        .filter(n=0)
        .order_by("position")
        .values_list("ident", "kind")
    )
    return dict(rows)


def load_topics(evaluation, data, filename):
    """Parse a question file with the track's topic format and store it; returns the number of topics.

    Topics are matched by ident, so loading a corrected file updates them in place (runs, pools and judgments
    that reference them survive). A topic missing from the new file is removed only when nothing refers to it.
    """
    spec = evaluation.track_spec
    parsed_problems, parsed = load_format(spec.topic_format).parse_topics(data, filename)
    parsed_problems += column_limits.topic_problems(parsed)
    problems = [p.format(filename) for p in parsed_problems]
    allowed = set(spec.question_types)
    idents = {t.ident for t in parsed}
    lines_with_problems = {p.line for p in parsed_problems}
    for t in parsed:
        if t.parent is not None and t.parent not in idents:
            problems.append(Problem(t.line, f"{t.ident}: parent {t.parent!r} is not in the file").format(filename))
        if t.parent is not None and allowed and t.kind not in allowed and t.line not in lines_with_problems:
            problems.append(
                Problem(
                    t.line,
                    f"question {t.ident} has type {t.kind}, not one of this track's "
                    f"types ({', '.join(spec.question_types)})",
                ).format(filename)
            )
    if not parsed and not problems:
        problems.append(Problem(None, "no topics in the file").format(filename))
    if problems:
        raise LoadError(problems)

    with transaction.atomic():
        existing = {t.ident: t for t in Topic.objects.select_for_update(of=("self",)).filter(evaluation=evaluation)}
        gone = [t for ident, t in existing.items() if ident not in idents]
        in_use = (
            Topic.objects.filter(pk__in=[t.pk for t in gone])
            .filter(Q(run_entries__isnull=False) | Q(pool_items__isnull=False) | Q(assignments__isnull=False))
            .distinct()
            .values_list("ident", flat=True)
        )
        if in_use:
            raise LoadError(
                [
                    Problem(None, f"topic {ident} is not in the file but runs, pools or assignments use it").format(
                        filename
                    )
                    for ident in sorted(in_use)
                ]
            )
        # Remove unused leftovers first so a renumbered file cannot collide with them.
        Topic.objects.filter(pk__in=[t.pk for t in gone]).delete()
        saved = {}
        for position, t in enumerate(parsed):
            topic = existing.get(t.ident) or Topic(evaluation=evaluation, ident=t.ident)
            topic.kind, topic.text, topic.position = t.kind, t.text, position
            topic.parent = saved.get(t.parent) if t.parent else None
            topic.data = (topic.data or {}) | t.data
            topic.save()
            saved[t.ident] = topic
        keep_file(evaluation, "topics", filename, data)
        # A topic format may name, in AFTER_LOAD, a Django-side f(evaluation) run inside this transaction.
        after_load = getattr(load_format(spec.topic_format), "AFTER_LOAD", None)
        if after_load:
            resolve(after_load)(evaluation)
    return len(parsed)


def load_top_docs(evaluation, data, filename):
    """Store NIST's per-target top-documents lists in each series' data["top_docs"] as [rank, docid, rsv]."""
    from pooling.formats.top_docs import parse_top_docs

    parsed_problems, lists = parse_top_docs(data, filename)
    problems = [p.format(filename) for p in parsed_problems]
    series = {t.ident: t for t in Topic.objects.filter(evaluation=evaluation, parent__isnull=True)}
    problems += [
        Problem(None, f"target {qnum} is not a series of {evaluation.slug}").format(filename)
        for qnum in lists
        if qnum not in series
    ]
    if problems:
        raise LoadError(problems)
    with transaction.atomic():
        for qnum, ranking in lists.items():
            topic = series[qnum]
            topic.data = (topic.data or {}) | {"top_docs": ranking, "top_docs_source": filename}
            topic.save(update_fields=["data"])
        keep_file(evaluation, "top_docs", filename, data)
    return sum(len(r) for r in lists.values())


def read_upload(upload, kind):
    """The bytes of an uploaded file of `kind` (config.uploads.read: refused before reading when over its
    limit), a refusal as a LoadError, the error the pages and API views already answer."""
    try:
        return uploads.read(upload, kind)
    except uploads.TooLarge as exc:
        raise LoadError([str(exc)]) from None


def keep_file(evaluation, kind, filename, data):
    """Keep the file as loaded for the teams to download (pooling.campaign). A track that gives teams a reduced
    topic file while the evaluation runs (Track.participant_topics) releases the full one with the judgments."""
    reduced = kind == "topics" and evaluation.track_spec.participant_topics
    EvaluationFile.objects.update_or_create(
        evaluation=evaluation,
        kind=kind,
        defaults={
            "filename": filename.rsplit("/", 1)[-1][-255:],
            "data": bytes(data),
            "released": EvaluationFile.WITH_JUDGMENTS if reduced else EvaluationFile.AT_ONCE,
        },
    )


# ---------------------------------------------------------------- runs


def known_docids_for(evaluation):
    """A bulk lookup: which of a set of docids are documents of the evaluation's collection(s)."""
    collection_ids = list(evaluation.collections.values_list("pk", flat=True))

    def known(docids):
        docids = list(docids)
        found = set()
        for start in range(0, len(docids), DOCID_BATCH):
            batch = docids[start : start + DOCID_BATCH]
            if connection.vendor == "postgresql":  # one array parameter instead of thousands of placeholders
                with connection.cursor() as cursor:
                    cursor.execute(
                        f"SELECT docno FROM {Document._meta.db_table} "
                        f"WHERE collection_id = ANY(%s) AND docno = ANY(%s)",
                        [collection_ids, batch],
                    )
                    found.update(docno for (docno,) in cursor.fetchall())
            else:
                found.update(
                    Document.objects.filter(collection_id__in=collection_ids, docno__in=batch).values_list(
                        "docno", flat=True
                    )
                )
        return found

    return known


def check_context(evaluation):
    """What the track's run checker may know: questions, settings and the collection's docids.

    A run format may name, in its module attribute CONTEXT_EXTRA, a dotted Django-side function
    f(evaluation) -> dict whose entries go to CheckContext.extra (a "known_docids" entry replaces the default
    document lookup), for formats that need more than questions and documents.
    """
    module = load_format(evaluation.track_spec.run_format)
    context = CheckContext(
        topics=answerable_topics(evaluation),
        settings=effective_settings(evaluation),
        known_docids=known_docids_for(evaluation),
        extra={"evaluation": evaluation.slug, "track": evaluation.track},
    )
    provider = getattr(module, "CONTEXT_EXTRA", None)
    if provider:
        extra = resolve(provider)(evaluation)
        if "known_docids" in extra:
            context.known_docids = extra.pop("known_docids")
        context.extra.update(extra)
    return context


def check_run_file(evaluation, data, filename, context=None, submission=None):
    """(problems as `FILE:LINE: message` strings, ParsedRun or None) using the track's run format; a file of the
    wrong shape for it (text lines for an XML format, or XML for a text one) is said to be so first.

    With `submission` (a RunFile naming the team), the track's submission rules are checked too, against the
    team's stored runs, as loading will check them: each breach names its rule."""
    problems, _notes, parsed = check_run_report(evaluation, data, filename, context, submission)
    return problems, parsed


def check_run_report(evaluation, data, filename, context=None, submission=None):
    """check_run_file with the format's notes (warnings that refuse nothing) apart: (problems, notes, parsed)."""
    module = load_format(evaluation.track_spec.run_format)
    found, parsed = module.check_run(data, filename, context or check_context(evaluation))
    if parsed is not None:
        found = list(found) + column_limits.run_problems(parsed, module)
    return _report(evaluation, module, data, filename, found, parsed, submission)


def _report(evaluation, module, data, filename, found, parsed, submission=None):
    """check_run_report's answer from the problems `found` (the format's and the column checks') and `parsed`,
    wherever the file was checked."""
    notes = [p.format(filename) for p in found if p.warning]
    problems = [p.format(filename) for p in found if not p.warning]
    if problems:
        mismatch = shape_mismatch(evaluation, module, data)
        if mismatch:
            problems.insert(0, Problem(None, mismatch).format(filename))
    elif submission is not None and (submission.team or "").strip():
        priority = submission.priority or parsed.data.get("priority") or priority_from_tag(parsed.tag)
        problems = [b.format(filename) for b in rule_breaches(evaluation, parsed, submission, priority)]
        # A run format may name, in CHECK_SUBMISSION, a Django-side f(evaluation, parsed, submission) -> problems:
        # what its AFTER_STORE will refuse (ciQA's pairing and limits), said when the run is only checked.
        track_check = getattr(module, "CHECK_SUBMISSION", None)
        if track_check and not problems:
            problems = list(resolve(track_check)(evaluation, parsed, submission))
    return problems, notes, (None if problems else parsed)


# ---------------------------------------------------------------- submission rules


def _aware(value):
    if not value:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def participation(evaluation, team):
    """The team's Participation in the evaluation (None for a team not stored yet)."""
    if team is None or team.pk is None:
        return None
    return Participation.objects.get_or_create(evaluation=evaluation, team=team)[0]


def submission_window(evaluation, team=None):
    """(opens, due) for the team: the evaluation's settings "submission_opens"/"submission_closes" (ISO times,
    unset: no bound), the deadline brought forward by the track's days after the team's first test download."""
    settings = effective_settings(evaluation)
    opens, closes = _aware(settings.get("submission_opens")), _aware(settings.get("submission_closes"))
    days = evaluation.track_spec.submission_rules.days_after_first_download
    first = None
    if days and team is not None and team.pk is not None:
        first = (
            Participation.objects.filter(evaluation=evaluation, team=team)
            .values_list("first_download_at", flat=True)
            .first()
        )
    return opens, rules_mod.deadline(closes, first, days)


def rule_breaches(evaluation, parsed, f, priority, batch_runs=(), now=None):
    """Every submission rule of the track that the run `parsed`, sent as `f` (RunFile), breaks: its team's
    stored runs and `batch_runs` (TeamRun of the same team accepted earlier in the batch) count against it."""
    rules = evaluation.track_spec.submission_rules
    team = Team.objects.filter(name=f.team.strip()).first()
    stored = list(Run.objects.filter(evaluation=evaluation, team=team)) if team else []
    replaced = next((r for r in stored if r.tag == parsed.tag), None)
    others = [
        rules_mod.TeamRun(r.tag, r.priority, r.is_manual, (r.data or {}).get("kind", ""))
        for r in stored
        if r.tag != parsed.tag
    ] + [r for r in batch_runs if r.tag != parsed.tag]
    ident = (
        Participation.objects.filter(evaluation=evaluation, team=team).values_list("ident", flat=True).first() or ""
        if team
        else ""
    )
    candidate = rules_mod.Candidate(
        tag=parsed.tag,
        priority=priority,
        manual=f.manual,
        description=f.description,
        team_id=ident,
        kind=f.kind,
        initial_tag=f.initial_tag,
    )
    found = rules_mod.breaches(
        rules, candidate, others, rules_mod.TeamRun(replaced.tag, replaced.priority) if replaced else None
    )
    subtask = (parsed.data or {}).get("subtask") or f.kind
    return submission_closed(evaluation, team, replaced, now, subtask) + found


def submission_closed(evaluation, team=None, replacing=None, now=None, subtask=None):
    """Why the evaluation takes no run from `team` now, as Breaches (empty: it takes runs): runs are frozen once
    judging starts (issue 26: state "judging" or "released", or `replacing`, a stored Run, is in a pool), and
    outside the team's submission window. Every path that stores a run asks this (through rule_breaches: the
    participant's page, the organizer's upload page, the API, `load_runs`), so an organizer alone may override it,
    with a reason. `subtask`: the run's (data["subtask"], else the kind it was sent as), None before the file is
    read: a track's judging subtasks (SubmissionRules.judging_subtasks) may still come then."""
    judging_subtasks = evaluation.track_spec.submission_rules.judging_subtasks
    later = subtask in judging_subtasks if subtask is not None else bool(judging_subtasks)
    pooled = replacing is not None and PoolItem.sources.through.objects.filter(runentry__run=replacing).exists()
    found = [rules_mod.frozen_breach(evaluation.state, evaluation.title, pooled, later)]
    opens, due = submission_window(evaluation, team)
    found.append(rules_mod.window_breach(now or timezone.now(), opens, due))
    return [b for b in found if b]


SHAPES = {"xml": "an XML file", "text": "a plain-text file of lines"}


def file_shape(data):
    """ "xml" when the first character that is not white space (or a byte-order mark) is "<", else "text"."""
    return "xml" if data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<") else "text"


def shape_mismatch(evaluation, module, data):
    """None when the file looks like the evaluation's runs; else why it was refused as a whole, naming the open
    evaluations whose runs look like it (a run file checked against the wrong evaluation answers only with
    problems of its shape, "malformed XML" on line 1, which says nothing of the real mistake)."""
    expected, found = getattr(module, "FILE_SHAPE", None), file_shape(data)
    if expected is None or expected == found:
        return None
    others = [
        f"{e.title} ({e.slug})"
        for e in Evaluation.objects.exclude(pk=evaluation.pk).exclude(state=Evaluation.RELEASED).order_by("title")
        if _run_shape(e.track) == found
    ]
    where = f" Runs like it go to {', '.join(others)}." if others else ""
    return (
        f"this is {SHAPES[found]}, but a run of {evaluation.title} ({evaluation.track_spec.title}) is "
        f"{SHAPES[expected]}: was it meant for another evaluation?{where}"
    )


def _run_shape(track):
    try:
        return getattr(load_format(get_track(track).run_format), "FILE_SHAPE", None)
    except (ImportError, KeyError):  # a track declared before its run format exists
        return None


def priority_from_tag(tag):
    """TAC/TREC convention: the run tag is the team id followed by the run's priority (e.g. NISTAssessor1)."""
    return int(tag[-1]) if tag and tag[-1] in "123456789" else None  # ("²".isdigit() holds, int("²") fails)


def _key_shared_topics(evaluation):
    """{ident: pk} of the evaluation's topics, locked FOR KEY SHARE: a topic cannot be deleted until the
    transaction ends, yet other runs may be stored at the same time."""
    return dict(key_shared(Topic.objects.filter(evaluation=evaluation).order_by("id"), "ident", "id"))


def store_run(evaluation, parsed, team, priority, manual=False, whole_collection=True, source_name=""):
    """Store a checked run in one transaction; a run with the same tag is replaced (its entries too)."""
    with transaction.atomic():
        # RunEntry has no foreign-key constraints (pooling.models): the topics are locked against deletion
        # (what the constraint's row checks did, once per topic instead of per line) and must all still exist.
        topic_ids = _key_shared_topics(evaluation)
        gone = sorted({e.topic for e in parsed.entries} - topic_ids.keys())
        if gone:
            raise LoadError([f"{source_name}:0: topic {ident} was removed while the run was loading" for ident in gone])
        run = Run.objects.select_for_update(of=("self",)).filter(evaluation=evaluation, tag=parsed.tag).first()
        replaced = run is not None
        if replaced and run.team_id != team.pk:
            raise LoadError([f"{source_name}:0: run tag {parsed.tag!r} already belongs to team {run.team.name!r}"])
        if run is None:
            run = Run(evaluation=evaluation, tag=parsed.tag)
        else:
            run.entries.all().delete()
        run.team, run.priority, run.is_manual, run.whole_collection = team, priority, manual, whole_collection
        run.source_name = source_name
        run.data = (run.data or {}) | parsed.data | {"lines": len(parsed.entries)}
        run.save()
        run_id = run.pk  # (read once: Model.pk is a property call, 300,000 of them for a BOLT batch)
        insert_rows(
            RunEntry,
            ["run_id", "topic_id", "line_no", "docid", "text", "data"],
            [(run_id, topic_ids[e.topic], e.line, e.docid, e.text, e.data) for e in parsed.entries],
        )
        # A run format may name, in AFTER_STORE, a Django-side f(run) run inside this transaction (QA4MRE scores
        # the run there); raising LoadError from it refuses the run. Before the stale marks: a rescoring locks
        # the evaluation's scoring state and then the marks, and so must this transaction, or the two deadlock.
        after_store = getattr(load_format(evaluation.track_spec.run_format), "AFTER_STORE", None)
        if after_store:
            resolve(after_store)(run)
        # Every question: the run is scored on all of them (a question it did not answer scores 0).
        mark_questions_stale(topic_ids.values())
    return run, replaced


def delete_run(evaluation, tag, *, by=None, reason=""):
    """Remove run `tag` with its lines and scores (one transaction). Every question is marked stale: the run's
    absence changes rankings and, for some measures, the others' scores. Pool items stay until the next pool
    build (judged ones always stay). Once runs are frozen (judging started) it needs a `reason`, logged with
    `by` in the audit log, which a released report then shows (pooling.audit.RESCORING)."""
    reason = (reason or "").strip()
    with transaction.atomic():
        run = Run.objects.select_for_update(of=("self",)).filter(evaluation=evaluation, tag=tag).first()
        if run is None:
            raise LoadError([f"{evaluation.slug} has no run {tag!r}"])
        subtask = (run.data or {}).get("subtask", "")
        frozen = [
            b for b in submission_closed(evaluation, replacing=run, subtask=subtask) if b.rule == rules_mod.FROZEN
        ]
        if frozen and not reason:
            raise LoadError([f"run {tag!r} cannot be deleted without a reason: {frozen[0].message}"])
        topic_ids = list(Topic.objects.filter(evaluation=evaluation).values_list("pk", flat=True))
        before = {"team": run.team.name, "priority": run.priority, "lines": (run.data or {}).get("lines")}
        run.delete()
        mark_questions_stale(topic_ids)
        audit.record(by, audit.RUN_DELETED, f"{evaluation.slug}:{tag}", before=before, after=None, reason=reason)


def load_run_files(evaluation, files, context=None, *, by=None, override_reason=""):
    """Check every file (its format, then the track's submission rules), then store each one that passed (each
    in its own transaction), with a receipt (Submission) naming `by` (a user; None: the server).

    A file with problems is not stored and leaves any earlier run of the same tag untouched. An organizer may
    pass `override_reason`: breaches of submission rules are then accepted, kept on the run and in the audit
    log with the reason; format problems never are. Returns one RunLoadResult per file, in order.
    """
    with rescoring_deferred(), batch_context(evaluation):  # one rescoring after the batch, not one per stored run
        return _load_run_files(evaluation, files, context or check_context(evaluation), by, override_reason.strip())


def batch_context(evaluation):
    """The context manager a run format names in BATCH_CONTEXT (dotted), entered around checking a batch of
    files: what the files have in common is then worked out once (BOLT: each passage's near-duplicate
    features); nullcontext for the others."""
    name = getattr(load_format(evaluation.track_spec.run_format), "BATCH_CONTEXT", None)
    if not name:
        return nullcontext()
    return resolve(name)()


def _checked(evaluation, files, context):
    """(problems, parsed) of each file in order, as check_run_file gives them. The format's checks run in worker
    processes (RUN_CHECK_PROCESSES) while the caller stores the files already checked, for a format that
    allows it (pooling.formats.parallel); a file a worker gives back is checked here, in its turn."""
    name = evaluation.track_spec.run_format
    module = load_format(name)
    answers = parallel.checked(
        name,
        [(f.data, f.filename) for f in files],
        lambda data: parallel.plain_context(module, context, data),
        django_settings.RUN_CHECK_PROCESSES,
        partial(columns.run_problems, **column_limits.run_limits(module)),
    )
    with closing(answers):
        for f, answer in zip(files, answers, strict=True):
            if answer is None:
                yield check_run_file(evaluation, f.data, f.filename, context)
            else:
                problems, _notes, parsed = _report(evaluation, module, f.data, f.filename, *answer)
                yield problems, parsed


def _load_run_files(evaluation, files, context, by=None, override_reason=""):
    results, tags_seen = [], {}
    teams = {}
    for f, (problems, parsed) in zip(files, _checked(evaluation, files, context), strict=True):
        result = RunLoadResult(filename=f.filename)
        results.append(result)
        priority = f.priority
        if parsed is not None:
            if parsed.tag in tags_seen:
                problems.append(f"{f.filename}:0: run tag {parsed.tag!r} is also the tag of {tags_seen[parsed.tag]}")
            tags_seen.setdefault(parsed.tag, f.filename)
            if priority is None:
                priority = parsed.data.get("priority") or priority_from_tag(parsed.tag)
                if priority is None:
                    problems.append(f"{f.filename}:0: no priority given and run tag {parsed.tag!r} does not end in one")
        if not (f.team or "").strip():
            problems.append(f"{f.filename}:0: no team given")
        if problems:
            result.problems = problems
            continue
        breaches = []
        try:
            # The team is created in the run's transaction: a run refused while storing (its tag is another
            # team's, a submission rule, a track's AFTER_STORE check) leaves no team behind either.
            with transaction.atomic():
                team = teams.get(f.team) or Team.objects.get_or_create(name=f.team.strip())[0]
                # The team's row in the evaluation, locked, so two submissions of one team at the same moment are
                # checked one after the other (both could pass as the third run, or as priority 1, otherwise).
                # Runs stored earlier in the batch count through the database.
                Participation.objects.select_for_update(of=("self",)).get_or_create(evaluation=evaluation, team=team)
                breaches = rule_breaches(evaluation, parsed, f, priority)
                if breaches and not override_reason:
                    raise LoadError([b.format(f.filename) for b in breaches])
                if f.kind:  # a track pairing runs (ciQA) checks the pair as the run is stored (AFTER_STORE)
                    parsed.data = parsed.data | {"kind": f.kind, "initial_tag": f.initial_tag.strip()}
                result.run, result.replaced = store_run(
                    evaluation, parsed, team, priority, f.manual, f.whole_collection, f.filename
                )
                result.submission = _after_store(evaluation, result, f, team, by, breaches, override_reason)
        except LoadError as exc:
            result.problems = exc.problems
        else:
            teams[f.team] = team  # only a team that was stored is reused by later files
            result.overridden = [b.rule for b in breaches]
    return results


def _after_store(evaluation, result, f, team, by, breaches, override_reason):
    """In the run's transaction: the team's ID learned from its first run, the form's answers and any overrides
    kept on the run, the receipt, and the audit log of a replacement or an override."""
    run, rules = result.run, evaluation.track_spec.submission_rules
    taking_part = participation(evaluation, team)
    if not taking_part.ident:
        learned = rules_mod.learn_team_id(rules, run.tag)
        if learned:
            taking_part.ident = learned
            taking_part.save(update_fields=["ident"])
    extra = {k: v for k, v in (("description", f.description), ("kind", f.kind), ("initial_tag", f.initial_tag)) if v}
    overrides = [{"rule": b.rule, "message": b.message, "reason": override_reason} for b in breaches]
    if extra or overrides:
        run.data = (run.data or {}) | extra | ({"overrides": overrides} if overrides else {})
        run.save(update_fields=["data"])
    user = by if getattr(by, "pk", None) else None
    previous = (
        Submission.objects.filter(run=run).values("filename", "sha256", "submitted_at").first()
        if result.replaced
        else None
    )
    if previous:
        previous["submitted_at"] = previous["submitted_at"].isoformat()
    receipt = Submission.objects.create(
        evaluation=evaluation,
        team=team,
        run=run,
        user=user,
        tag=run.tag,
        filename=f.filename[-255:],
        sha256=hashlib.sha256(f.data).hexdigest(),
        size=len(f.data),
        priority=run.priority,
        replaced=result.replaced,
        form={"manual": f.manual, "whole_collection": f.whole_collection, **extra, **f.form}
        | ({"overrides": overrides} if overrides else {}),
    )
    target = f"{evaluation.slug}:{run.tag}"
    if overrides:
        audit.record(by, "rule overridden", target, before=None, after={"rules": overrides}, reason=override_reason)
    if any(b.rule == rules_mod.FROZEN for b in breaches):
        after = {"run": run.tag, "replaced": result.replaced, "state": evaluation.state}
        audit.record(by, audit.FROZEN_RUN_LOADED, target, before=None, after=after, reason=override_reason)
    if result.replaced:
        audit.record(by, "run replaced", target, before=previous, after={"file": f.filename, "sha256": receipt.sha256})
    return receipt


PRIORITY_MAX = 32767  # Run.priority is a smallint


def parse_manifest(data, filename):
    """A manifest naming each run file's team and priority, one file per line (tabs or spaces):

        FILE  TEAM  PRIORITY  [automatic|manual]  [whole|partial]

    TEAM may not contain white space unless the line uses tabs. Lines starting with # are comments.
    Returns {file name: dict(team, priority, manual, whole_collection)}.
    """
    problems, rows = [], {}
    for number, raw in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cols = [c.strip() for c in line.split("\t")] if "\t" in line else line.split()
        if len(cols) < 3:
            problems.append(f"{filename}:{number}: expected 'FILE TEAM PRIORITY [automatic|manual] [whole|partial]'")
            continue
        name, team, priority, *flags = cols
        if not (priority.isascii() and priority.isdigit()) or int(priority) > PRIORITY_MAX:
            problems.append(f"{filename}:{number}: priority {priority!r} is not a number from 0 to {PRIORITY_MAX}")
            continue
        longest = Team._meta.get_field("name").max_length
        if "\x00" in name or "\x00" in team or len(team) > longest:
            problems.append(f"{filename}:{number}: the team name must be at most {longest} characters, without NUL")
            continue
        unknown = [x for x in flags if x not in ("automatic", "manual", "whole", "partial")]
        if unknown:
            problems.append(f"{filename}:{number}: unknown flag {unknown[0]!r}")
            continue
        rows[name] = {
            "team": team,
            "priority": int(priority),
            "manual": "manual" in flags,
            "whole_collection": "partial" not in flags,
        }
    if problems:
        raise LoadError(problems)
    return rows
