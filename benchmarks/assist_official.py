"""What assisted judging's setting `assist_official` (issue 30, docs/assist.md) costs the official-value reads that
every rescoring makes (assess.official.official_fields, official_values): with the setting off (the default) one
more query finds that no evaluation of the topics has it on; with it on, three queries find the *reveal after*
judgments revised after their suggestion was shown and read their earlier values from the history.

Data: a QA sample evaluation (tracks.qa.sample) of `--series` series with `--items` pool items per question, one
primary judgment per item (version 1); with the setting on, `--revised` of the items are reveal-after judgments
revised after the showing (version 2, the history holding both). Baseline, in the same run: the same reads with
the check skipped (assess.official.pre_reveal_values answering {} without a query), i.e. the reads as they were
before the setting; the ratios say what the setting costs. Median of `--repeat` timings each; the load average is
recorded. Scratch database `assay_bench_assist_official`.

Measured (70 series, 40 items a question: 8,400 judgments, 840 revised after a reveal; 2 cores shared with three
other engineers' tests, load average 12.0 before and 8.1 after, `--repeat 11`): official_fields 121.6 ms without
the check, 114.8 ms with the setting off (ratio 0.94: no cost above the noise), 186.0 ms with it on (1.53x);
official_values 207.5 / 189.2 / 435.6 ms (0.91x off, 2.10x on). A first version asked which evaluations of the
topics had it on by joining the topics (DISTINCT over 280 topic ids): 1.56x and 1.47x with the setting off (load
average about 7); now the check reads only the evaluation table's rows that have it on.
"""

import os

from benchmarks.harness import Result, median_seconds, setup_django


def add_arguments(parser):
    parser.add_argument("--series", type=int, default=70)
    parser.add_argument("--items", type=int, default=40, help="pool items per question")
    parser.add_argument("--revised", type=float, default=0.1, help="share of items revised after a reveal")
    parser.add_argument("--repeat", type=int, default=15)


def _build(args):
    from django.contrib.auth import get_user_model

    from assess.models import Assignment, Judgment, JudgmentChange, Suggestion, SuggestionShown
    from pooling.models import PoolItem
    from tracks.qa.sample import build_sample

    sample = build_sample(slug="bench-assist", n_series=args.series, items_per_question=args.items)
    ev = sample.evaluation
    user = get_user_model().objects.create_user("bench-assessor")
    Assignment.objects.bulk_create(Assignment(evaluation=ev, topic=s, assessor=user) for s in sample.series)
    items = list(PoolItem.objects.filter(evaluation=ev).order_by("pk"))
    every = max(1, round(1 / args.revised)) if args.revised else 0
    revised = {i.pk for n, i in enumerate(items) if every and n % every == 0}
    judgments = Judgment.objects.bulk_create(
        Judgment(
            evaluation=ev,
            topic_id=i.topic_id,
            kind="instance",
            item=i,
            assessor=user,
            role=Judgment.PRIMARY,
            value={"label": "globally-correct" if i.pk in revised else "incorrect"},
            version=2 if i.pk in revised else 1,
        )
        for i in items
    )
    changes = [
        JudgmentChange(judgment=j, changed_by=user, version=1, before=None, after={"label": "incorrect"})
        for j in judgments
    ]
    changes += [
        JudgmentChange(
            judgment=j, changed_by=user, version=2, before={"label": "incorrect"}, after={"label": "globally-correct"}
        )
        for j in judgments
        if j.item_id in revised
    ]
    JudgmentChange.objects.bulk_create(changes)
    suggestions = Suggestion.objects.bulk_create(
        Suggestion(
            evaluation=ev,
            topic_id=i.topic_id,
            kind="instance",
            item=i,
            value={"label": "globally-correct"},
            source="file",
            source_name="bench",
        )
        for i in items
        if i.pk in revised
    )
    SuggestionShown.objects.bulk_create(
        SuggestionShown(suggestion=s, assessor=user, item_id=s.item_id, condition="reveal_after", judgment_version=1)
        for s in suggestions
    )
    topic_ids = sorted({i.topic_id for i in items})
    return ev, topic_ids, len(items), len(revised)


def run(args):
    setup_django("assay_bench_assist_official")
    from django.db import connection

    from assess import official

    load_before = os.getloadavg()[0]
    ev, topic_ids, n_items, n_revised = _build(args)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")

    def fields():
        return official.official_fields(topic_ids, "instance", "label")

    def values():
        return official.official_values(topic_ids, "instance")

    real = official.pre_reveal_values
    official.pre_reveal_values = lambda topic_ids, kinds: {}  # the reads as before the setting: no check at all
    try:
        base_fields, base_values = median_seconds(fields, args.repeat), median_seconds(values, args.repeat)
        before_values = values()
    finally:
        official.pre_reveal_values = real
    off_fields, off_values = median_seconds(fields, args.repeat), median_seconds(values, args.repeat)
    assert values() == before_values  # off: the official values are the revised ones, as before
    ev.settings = dict(ev.settings, assist_official="pre_reveal")
    ev.save(update_fields=["settings"])
    on_fields, on_values = median_seconds(fields, args.repeat), median_seconds(values, args.repeat)
    changed = sum(1 for k, v in values().items() if v != before_values[k])
    assert changed == n_revised, (changed, n_revised)  # on: exactly the revised judgments read their earlier value
    load = f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
    size = f"{n_items} judgments, {n_revised} revised after a reveal"
    return [
        Result("baseline: official_fields, no check", base_fields * 1000, "ms", notes=size),
        Result("official_fields, setting off", off_fields * 1000, "ms", notes=load),
        Result("official_fields, setting on", on_fields * 1000, "ms", notes=load),
        Result("ratio off / baseline (fields)", off_fields / base_fields, "x", "<= 1.25"),
        Result("ratio on / baseline (fields)", on_fields / base_fields, "x"),
        Result("baseline: official_values, no check", base_values * 1000, "ms", notes=size),
        Result("official_values, setting off", off_values * 1000, "ms", notes=load),
        Result("official_values, setting on", on_values * 1000, "ms", notes=load),
        Result("ratio off / baseline (values)", off_values / base_values, "x", "<= 1.25"),
        Result("ratio on / baseline (values)", on_values / base_values, "x"),
        Result("load average (1 min), after", os.getloadavg()[0], ""),
    ]
