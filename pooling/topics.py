"""Topics: loading an evaluation's question file (and NIST's top-documents lists) with the track's topic format, and
keeping the file as loaded for the teams to download.

The whole file is checked first and nothing is stored when there is any problem; what passes is stored in one
transaction. Problems come back as `FILE:LINE: message` strings (LoadError).
"""

from django.db import transaction
from django.db.models import Count, Q

from core import extension_points as ep
from pooling import column_limits
from pooling.evaluations import LoadError
from pooling.formats.base import Problem
from pooling.models import EvaluationFile, Topic


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
    parsed_problems, parsed = spec.topic_format.parse_topics(data, filename)
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
        # The track's after_topics_loaded (core.extension_points) runs inside this transaction.
        after_load = ep.after_topics_loaded.get(evaluation.track)
        if after_load:
            after_load(evaluation)
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


def keep_file(evaluation, kind, filename, data):
    """Keep the file as loaded for the teams to download (pooling.campaign). A track that gives teams a reduced
    topic file while the evaluation runs (core.extension_points.participant_topics) releases the full one with the
    judgments."""
    reduced = kind == "topics" and ep.participant_topics.get(evaluation.track) is not None
    EvaluationFile.objects.update_or_create(
        evaluation=evaluation,
        kind=kind,
        defaults={
            "filename": filename.rsplit("/", 1)[-1][-255:],
            "data": bytes(data),
            "released": EvaluationFile.WITH_JUDGMENTS if reduced else EvaluationFile.AT_ONCE,
        },
    )
