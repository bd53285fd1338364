"""The sentence-retrieval baseline's interaction (seed 001 3.2.3): 'The interaction associated with this run asked
the assessor for relevance judgments on each of the sentences. Three options were given: "relevant", "not
relevant", and "no opinion". The final run was prepared by simply removing those sentences judged not relevant'.

The baseline run is an initial run whose URL file has `baseline_run` set (baseline_interaction); its
sessions open the sentence page instead of a team's system. Labels are append-only rows (SentenceJudgment).

The quota (seed: 'returned as the baseline run (up to a quota of 5,000 characters)'; the setting baseline_quota,
counted in non-white-space characters as the run's length is): a baseline run loaded with more sentences than the
quota keeps, per topic, its sentences up to the quota, and the next ones (up to a quota's worth) are kept aside in
the run's data ("ciqa_reserve"). The final run walks the same ranked list without the sentences judged not
relevant and fills the quota again: 'this had the effect of pulling more sentences from documents lower in the
ranked list'. A sentence that does not fit ends the list (the order is preserved, none is skipped for a shorter
one)."""

from django.db import transaction

from pooling.evaluations import LoadError
from pooling.formats.base import ParsedEntry, ParsedRun
from pooling.models import RunEntry
from pooling.runs import store_run
from tracks.qa.ciqa.models import SentenceJudgment, UrlFile
from tracks.qa.ciqa.submissions import INITIAL_TAG, STAGE, require_ciqa

LABELS = {"relevant": "Relevant", "not-relevant": "Not relevant", "no-opinion": "No opinion"}
DEFAULT_QUOTA = 5000
RESERVE = "ciqa_reserve"  # run data: {topic ident: [[docid, text], ...]}, the sentences after the quota


def length(text):
    """A sentence's length against the quota: its non-white-space characters (as the run's length is counted)."""
    return sum(1 for c in text if not c.isspace())


def within_quota(texts, quota):
    """How many of `texts`, taken in order, fit in `quota` characters (the first that does not fit ends it)."""
    total = 0
    for n, text in enumerate(texts):
        total += length(text)
        if total > quota:
            return n
    return len(texts)


def refill(ranked, removed, quota):
    """The final run's sentences: the ranked list (keys and texts, the initial run's sentences then the ones kept
    aside) without the `removed` keys, up to the quota. Plain data, no database."""
    left = [(key, text) for key, text in ranked if key not in removed]
    return [key for key, _ in left[: within_quota([text for _, text in left], quota)]]


def quota_of(evaluation):
    from pooling.evaluations import effective_settings

    value = effective_settings(evaluation).get("baseline_quota")
    return DEFAULT_QUOTA if value in (None, "") else int(value)


def cut_to_quota(evaluation, run):
    """The baseline run as loaded is the ranked sentence list: keep, per topic, the sentences within the quota and
    set the next quota's worth aside (run data RESERVE) for the final run. Nothing changes for a run within it."""
    quota = quota_of(evaluation)
    by_topic = {}
    for e in RunEntry.objects.filter(run=run).select_related("topic").order_by("line_no"):
        by_topic.setdefault(e.topic.ident, []).append(e)
    kept, reserve = [], {}
    for ident, entries in by_topic.items():
        n = within_quota([e.text for e in entries], quota)
        kept += entries[:n]
        rest = entries[n:]
        spare = rest[: within_quota([e.text for e in rest], quota) + 1]  # enough to refill a whole quota
        if spare:
            reserve[ident] = [[e.docid, e.text] for e in spare]
    if not reserve:
        return run
    entries = [ParsedEntry(topic=e.topic.ident, line=n, docid=e.docid, text=e.text) for n, e in enumerate(kept, 1)]
    parsed = ParsedRun(tag=run.tag, entries=entries, data={RESERVE: reserve, "baseline_quota": quota})
    with transaction.atomic():
        return store_run(evaluation, parsed, run.team, run.priority, run.is_manual, True, run.source_name)[0]


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
    """The baseline's final run: per topic, its initial run's sentences and the ones kept aside, without the
    sentences any assessor's latest label calls not relevant, refilled up to the quota. Returns (run, sentences
    removed)."""
    latest = {}
    for j in SentenceJudgment.objects.filter(session__url_file__baseline_run=baseline_run).order_by("id"):
        latest[(j.assessor_id, j.entry_id)] = j.label
    removed = {entry for (_, entry), label in latest.items() if label == "not-relevant"}
    quota = quota_of(evaluation)
    reserve = (baseline_run.data or {}).get(RESERVE) or {}
    ranked = {}  # topic ident -> [(key, docid, text)] in the ranked order
    for e in RunEntry.objects.filter(run=baseline_run).select_related("topic").order_by("line_no"):
        ranked.setdefault(e.topic.ident, []).append((e.pk, e.docid, e.text))
    for ident, spare in reserve.items():
        ranked.setdefault(ident, []).extend(
            (("reserve", ident, n), docid, text) for n, (docid, text) in enumerate(spare)
        )
    entries = []
    for ident, sentences in ranked.items():
        found = {key: (docid, text) for key, docid, text in sentences}
        for key in refill([(key, text) for key, _, text in sentences], removed, quota):
            docid, text = found[key]
            entries.append(ParsedEntry(topic=ident, line=len(entries) + 1, docid=docid, text=text))
    parsed = ParsedRun(
        tag=tag, entries=entries, data={STAGE: "final", INITIAL_TAG: baseline_run.tag, "ciqa_baseline": True}
    )
    run, _ = store_run(evaluation, parsed, baseline_run.team, baseline_run.priority, False, True, f"{tag} (baseline)")
    return run, len(removed)


def baseline_interaction(evaluation, run):
    """Make `run` (the sentence-retrieval baseline) an interaction: a URL file whose sessions open Assay's own
    sentence-relevance page (seed 001 3.2.3: 'The interaction associated with this run asked the assessor for
    relevance judgments on each of the sentences')."""
    require_ciqa(evaluation)
    run = cut_to_quota(evaluation, run)
    url_file, _ = UrlFile.objects.update_or_create(
        evaluation=evaluation,
        tag=f"{run.tag}-interaction"[:100],
        defaults={"team": run.team, "is_manual": False, "urls": {}, "baseline_run": run, "source_name": ""},
    )
    run.data = (run.data or {}) | {"ciqa_baseline": True}
    run.save(update_fields=["data"])
    return url_file
