"""Saves through the one judgment writer with the named functions of a live-refresh module replaced by counters:
what the save path calls into it (nothing, by design) and what one save costs. Shared by the agreement and
rankings benchmarks (issue 29: the live work adds nothing to the save path)."""

from benchmarks.harness import Result, Timer, percentile


def saves_calling(ev, saves, watched, what):
    """`saves` new FACTOID judgments on `ev` with every (module, name) in `watched` counting its calls; Results
    named after `what` (the module's name, as the table prints it)."""
    from django.contrib.auth.models import User

    from assess.judging import save_judgment
    from assess.models import Judgment
    from config.celery import app
    from pooling.models import PoolItem
    from scoring import tasks

    calls = []
    saved = {(module, name): getattr(module, name) for module, name in watched}
    for module, name in saved:
        setattr(module, name, lambda *a, _name=name, **k: calls.append(_name))
    original = tasks.rescore_stale.apply_async
    tasks.rescore_stale.apply_async = lambda *a, **k: None  # no worker here: the pass is not what is timed
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    times = []
    try:
        user = User.objects.get_or_create(username="bench-saver")[0]
        items = list(
            PoolItem.objects.filter(evaluation=ev, topic__kind="FACTOID").select_related("topic").order_by("id")[:saves]
        )
        Judgment.objects.filter(assessor=user).delete()
        for i, item in enumerate(items):
            with Timer() as t:
                save_judgment(
                    user,
                    topic=item.topic,
                    kind="instance",
                    role=Judgment.SECONDARY,
                    value={"label": "globally-correct" if i % 2 else "incorrect", "answer_class": None},
                    expected_version=0,  # a new judgment, as a page saves it (the one-statement path)
                    item=item,
                )
            times.append(t.seconds)
    finally:
        for (module, name), function in saved.items():
            setattr(module, name, function)
        tasks.rescore_stale.apply_async = original
        app.conf.task_always_eager = eager
        Judgment.objects.filter(assessor__username="bench-saver").delete()  # (a --reuse run starts as this one did)
    return [
        Result(f"save path: calls into {what}", len(calls), "calls", goal="<= 0", notes=f"{len(times)} saves"),
        Result("save path: p50", 1000 * percentile(times, 50), "ms"),
        Result("save path: p99", 1000 * percentile(times, 99), "ms"),
    ]
