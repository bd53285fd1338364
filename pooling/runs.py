"""Runs: checking a run file with the track's run format (and the campaign's rules), storing the runs that pass,
deleting one, and the manifest naming each file's team and priority.

Every file is checked whole first and nothing of it is stored when there is any problem; what passes is stored in
one transaction per file, with a receipt (Submission). Problems come back as `FILE:LINE: message` strings.
"""

import hashlib
from contextlib import closing, nullcontext
from dataclasses import dataclass, field
from functools import partial

from django.conf import settings as django_settings
from django.db import connection, transaction

from accounts.models import Team
from core import audit
from core import extension_points as ep
from core import submission_rules as rules_mod
from core.bulk import copy_text_rows, insert_rows
from core.locks import key_shared
from core.tracks import get_track
from corpus.models import Document
from pooling import column_limits
from pooling.campaign_rules import participation, rule_breaches, submission_closed
from pooling.evaluations import LoadError, effective_settings
from pooling.formats import columns, parallel
from pooling.formats.base import CheckContext, Problem
from pooling.models import Evaluation, Participation, Run, RunEntry, Submission, Topic
from pooling.staleness import mark_questions_stale, rescoring_deferred
from pooling.topics import answerable_topics

DOCID_BATCH = 5000


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


def known_docids_for(evaluation):
    """A bulk lookup: which of a set of docids are documents of the evaluation's collection(s). Each docid is
    asked of the database once for the lookup's life (one check, or one batch of files: the runs of a batch cite
    many of the same documents, TREC RAG's AG runs the same 20 segments a topic)."""
    collection_ids = list(evaluation.collections.values_list("pk", flat=True))
    answered = {}  # docid -> whether it is a document of the collections

    def known(docids):
        wanted = set(docids)
        found = _lookup([d for d in wanted if d not in answered])
        for d in wanted:
            answered.setdefault(d, d in found)
        return {d for d in wanted if answered[d]}

    def _lookup(docids):
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

    A track may register check_context (core.extension_points), f(evaluation) -> dict whose entries go to
    CheckContext.extra (a "known_docids" entry replaces the default document lookup), for formats that need more
    than questions and documents.
    """
    context = CheckContext(
        topics=answerable_topics(evaluation),
        settings=effective_settings(evaluation),
        known_docids=known_docids_for(evaluation),
        extra={"evaluation": evaluation.slug, "track": evaluation.track},
    )
    provider = ep.check_context.get(evaluation.track)
    if provider:
        extra = provider(evaluation)
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
    module = evaluation.track_spec.run_format
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
        # The track's check_submission (core.extension_points): what its after_run_stored will refuse (ciQA's
        # pairing and limits), said when the run is only checked.
        track_check = ep.check_submission.get(evaluation.track)
        if track_check and not problems:
            problems = list(track_check(evaluation, parsed, submission))
    return problems, notes, (None if problems else parsed)


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
        return getattr(get_track(track).run_format, "FILE_SHAPE", None)
    except KeyError:  # an evaluation of a track no installed app registers
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
        prepared = parsed.rows  # the entries as COPY text from a worker (pooling.formats.parallel), or None
        if prepared is None:
            gone = sorted({e.topic for e in parsed.entries} - topic_ids.keys())
        else:  # (a topic deleted and created again since the worker wrote its id is gone too)
            gone = sorted(ident for ident, pk in prepared.topic_ids.items() if topic_ids.get(ident) != pk)
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
        run.data = (
            (run.data or {}) | parsed.data | {"lines": len(parsed.entries) if prepared is None else prepared.count}
        )
        run.save()
        run_id = run.pk  # (read once: Model.pk is a property call, 300,000 of them for a BOLT batch)
        if prepared is None:
            insert_rows(
                RunEntry,
                ["run_id", "topic_id", "line_no", "docid", "text", "data"],
                [(run_id, topic_ids[e.topic], e.line, e.docid, e.text, e.data) for e in parsed.entries],
            )
        else:
            copy_text_rows(RunEntry, [*parallel.ROW_COLUMNS, "run_id"], prepared.text.replace("\n", f"\t{run_id}\n"))
        # The track's after_run_stored (core.extension_points) runs inside this transaction (QA4MRE scores the
        # run there); raising LoadError from it refuses the run. Before the stale marks: a rescoring locks the
        # evaluation's scoring state and then the marks, and so must this transaction, or the two deadlock.
        after_store = ep.after_run_stored.get(evaluation.track)
        if after_store:
            after_store(run)
        # Every question: the run is scored on all of them (a question it did not answer scores 0).
        mark_questions_stale(topic_ids.values())
    return run, replaced


def delete_run(evaluation, tag, *, by=None, reason=""):
    """Remove run `tag` with its lines and scores (one transaction). Every question is marked stale: the run's
    absence changes rankings and, for some measures, the others' scores. Pool items stay until the next pool
    build (judged ones always stay). Once runs are frozen (judging started) it needs a `reason`, logged with
    `by` in the audit log, which a released report then shows (core.audit.RESCORING)."""
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
    """The track's batch_context (core.extension_points), entered around checking a batch of files: what the
    files have in common is then worked out once (BOLT: each passage's near-duplicate features); nullcontext
    for the others."""
    entered = ep.batch_context.get(evaluation.track)
    return entered() if entered else nullcontext()


def _checked(evaluation, files, context):
    """(problems, parsed) of each file in order, as check_run_file gives them. The format's checks run in worker
    processes (RUN_CHECK_PROCESSES) while the caller stores the files already checked, for a format that
    allows it (pooling.formats.parallel); a file a worker gives back is checked here, in its turn."""
    module = evaluation.track_spec.run_format
    answers = parallel.checked(
        module,
        [(f.data, f.filename) for f in files],
        lambda data: parallel.plain_context(module, context, data),
        django_settings.RUN_CHECK_PROCESSES,
        partial(columns.run_problems, **column_limits.run_limits(module)),
        ep.batch_context.get(evaluation.track),
        # On PostgreSQL the runs come back as the COPY text of their rows (store_run checks these ids again, under
        # lock): the parent, which stores while the workers check, then neither rebuilds nor formats 300,000 lines.
        # Not for a track whose check_submission reads the parsed run's entries.
        dict(Topic.objects.filter(evaluation=evaluation).values_list("ident", "pk"))
        if connection.vendor == "postgresql" and not ep.check_submission.get(evaluation.track)
        else None,
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
            # team's, a submission rule, a track's after_run_stored check) leaves no team behind either.
            with transaction.atomic():
                team = teams.get(f.team) or Team.objects.get_or_create(name=f.team.strip())[0]
                # The team's row in the evaluation, locked, so two submissions of one team at the same moment are
                # checked one after the other (both could pass as the third run, or as priority 1, otherwise).
                # Runs stored earlier in the batch count through the database.
                Participation.objects.select_for_update(of=("self",)).get_or_create(evaluation=evaluation, team=team)
                breaches = rule_breaches(evaluation, parsed, f, priority)
                if breaches and not override_reason:
                    raise LoadError([b.format(f.filename) for b in breaches])
                if f.kind:  # a track pairing runs (ciQA) checks the pair as the run is stored (after_run_stored)
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
