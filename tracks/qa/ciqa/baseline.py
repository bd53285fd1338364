"""The sentence-retrieval baseline's interaction (seed 001 3.2.3): 'The interaction associated with this run asked
the assessor for relevance judgments on each of the sentences. Three options were given: "relevant", "not
relevant", and "no opinion". The final run was prepared by simply removing those sentences judged not relevant'.

The baseline run is an initial run whose URL file has `baseline_run` set (submissions.baseline_interaction); its
sessions open the sentence page instead of a team's system. Labels are append-only rows (SentenceJudgment)."""

from django.db import transaction

from pooling.formats.base import ParsedEntry, ParsedRun
from pooling.loading import LoadError, store_run
from pooling.models import RunEntry
from tracks.qa.ciqa.models import SentenceJudgment
from tracks.qa.ciqa.submissions import INITIAL_TAG, STAGE

LABELS = {"relevant": "Relevant", "not-relevant": "Not relevant", "no-opinion": "No opinion"}


def sentences(session):
    """The baseline run's sentences for the session's topic, in submitted order, each with .label (latest)."""
    run = session.url_file.baseline_run
    entries = list(RunEntry.objects.filter(run=run, topic=session.topic).order_by("line_no"))
    latest = current_labels(session)
    for e in entries:
        e.label = latest.get(e.pk, "")
    return entries


def current_labels(session):
    return {
        j.entry_id: j.label
        for j in SentenceJudgment.objects.filter(session=session, assessor=session.assessor).order_by("id")
    }


def save_labels(session, user, labels):
    """`labels` {entry id: label}; changed ones are added as new rows. Only the session's assessor, while the
    session is running (started, not ended, not skipped). Returns the number saved."""
    if session.assessor_id != user.pk:
        raise LoadError(["not your interaction"])
    if session.started_at is None or session.done:
        raise LoadError(["the interaction is not running: start it first, or it has ended"])
    allowed = set(
        RunEntry.objects.filter(run=session.url_file.baseline_run, topic=session.topic).values_list("pk", flat=True)
    )
    bad = [f"sentence {k}: label {v!r}" for k, v in labels.items() if k not in allowed or v not in LABELS]
    if bad:
        raise LoadError(bad)
    with transaction.atomic():
        before = current_labels(session)
        new = [
            SentenceJudgment(session=session, assessor=user, entry_id=k, label=v)
            for k, v in labels.items()
            if before.get(k) != v
        ]
        SentenceJudgment.objects.bulk_create(new)
    return len(new)


def make_final_run(evaluation, baseline_run, tag):
    """The baseline's final run: its initial run without the sentences any assessor's latest label calls not
    relevant. Returns (run, sentences removed)."""
    removed = set()
    latest = {}
    for j in SentenceJudgment.objects.filter(session__url_file__baseline_run=baseline_run).order_by("id"):
        latest[(j.assessor_id, j.entry_id)] = j.label
    removed = {entry for (_, entry), label in latest.items() if label == "not-relevant"}
    entries = [
        ParsedEntry(topic=e.topic.ident, line=n, docid=e.docid, text=e.text)
        for n, e in enumerate(
            RunEntry.objects.filter(run=baseline_run)
            .exclude(pk__in=removed)
            .select_related("topic")
            .order_by("line_no"),
            start=1,
        )
    ]
    parsed = ParsedRun(
        tag=tag, entries=entries, data={STAGE: "final", INITIAL_TAG: baseline_run.tag, "ciqa_baseline": True}
    )
    run, _ = store_run(evaluation, parsed, baseline_run.team, baseline_run.priority, False, True, f"{tag} (baseline)")
    return run, len(removed)
