"""Evaluations with runs, pools and judgments written straight into the database, for tests, benchmarks and
the demo. `tiny_trec2007` is small enough to score by hand (see tests/test_scoring_rescore.py); `trec2007_sized`
builds the benchmark's 70 series / 515 questions / 51 runs with bulk_create."""

import random

from django.contrib.auth.models import User

from accounts.models import Team
from assess.models import AnswerClass, Judgment, Nugget
from pooling.models import Evaluation, PoolItem, Run, RunEntry, Topic


def _user(name):
    return User.objects.get_or_create(username=name)[0]


def _item(evaluation, topic, docid, text, origin=PoolItem.RUNS, sources=()):
    item = PoolItem.objects.create(
        evaluation=evaluation, topic=topic, key=f"{docid} {text}", docid=docid, text=text, origin=origin
    )
    if sources:
        item.sources.add(*sources)
    return item


def tiny_trec2007(slug="tiny-trec", judge=True):
    """Two series, two runs (runA of Team Alpha, runB of Team Beta); expected scores are in the tests."""
    primary, second, third = _user("synth-primary"), _user("synth-second"), _user("synth-third")
    ev = Evaluation.objects.create(slug=slug, title="Tiny TREC 2007", track="trec2007-qa")
    alpha, _ = Team.objects.get_or_create(name="Team Alpha")
    beta, _ = Team.objects.get_or_create(name="Team Beta")
    run_a = Run.objects.create(evaluation=ev, team=alpha, tag="runA", priority=1)
    run_b = Run.objects.create(evaluation=ev, team=beta, tag="runB", priority=1)
    s216 = Topic.objects.create(evaluation=ev, ident="216", kind="series", text="Paul Krugman", position=1)
    s217 = Topic.objects.create(evaluation=ev, ident="217", kind="series", text="Jay-Z", position=6)
    q = {}
    for pos, (ident, kind, parent) in enumerate(
        [
            ("216.1", "FACTOID", s216),
            ("216.2", "LIST", s216),
            ("216.3", "OTHER", s216),
            ("217.1", "FACTOID", s217),
            ("217.2", "OTHER", s217),
        ],
        start=2,
    ):
        q[ident] = Topic.objects.create(evaluation=ev, ident=ident, kind=kind, parent=parent, position=pos)
    line = iter(range(1, 1000))

    def entry(run, ident, docid, text):
        return RunEntry.objects.create(run=run, topic=q[ident], line_no=next(line), docid=docid, text=text)

    judgments = []

    def judge_item(item, kind, value, who=primary, role=Judgment.PRIMARY):
        judgments.append(
            Judgment(evaluation=ev, topic=item.topic, kind=kind, item=item, assessor=who, role=role, value=value)
        )

    # 216.1 factoid: runA right, runB says NIL although an answer is known.
    a1 = _item(ev, q["216.1"], "D1", "Princeton", sources=[entry(run_a, "216.1", "D1", "Princeton")])
    entry(run_b, "216.1", "NIL", "")  # NIL responses are not pooled
    # 216.2 list: classes c1 (two instances of runA), c2 (both runs), c3 (found by the assessor only).
    c1 = AnswerClass.objects.create(topic=q["216.2"], label="Nobel", created_by=primary)
    c2 = AnswerClass.objects.create(topic=q["216.2"], label="Clark medal", created_by=primary)
    c3 = AnswerClass.objects.create(topic=q["216.2"], label="Asturias prize", created_by=primary)
    l1 = _item(ev, q["216.2"], "D2", "Nobel Prize", sources=[entry(run_a, "216.2", "D2", "Nobel Prize")])
    l2 = _item(ev, q["216.2"], "D3", "Nobel", sources=[entry(run_a, "216.2", "D3", "Nobel")])
    l3 = _item(
        ev,
        q["216.2"],
        "D4",
        "John Bates Clark Medal",
        sources=[
            entry(run_a, "216.2", "D4", "John Bates Clark Medal"),
            entry(run_b, "216.2", "D4", "John Bates Clark Medal"),
        ],
    )
    l4 = _item(ev, q["216.2"], "D5", "Pulitzer", sources=[entry(run_a, "216.2", "D5", "Pulitzer")])
    l5 = _item(ev, q["216.2"], "D9", "Prince of Asturias Award", origin=PoolItem.ASSESSOR)
    # 216.3 Other: runA's one string (250 non-white chars) holds n1 and n3; runB's (50 chars) holds n2.
    n1, n2, n3 = (
        Nugget.objects.create(topic=q["216.3"], text=t, position=i, created_by=primary)
        for i, t in enumerate(["columnist at the New York Times", "professor at Princeton", "writes a blog"])
    )
    o1 = _item(
        ev,
        q["216.3"],
        "D10",
        "x" * 125 + " " + "y" * 125,
        sources=[entry(run_a, "216.3", "D10", "x" * 125 + " " + "y" * 125)],
    )
    o2 = _item(ev, q["216.3"], "D11", "z" * 50, sources=[entry(run_b, "216.3", "D11", "z" * 50)])
    # 217.1 factoid: runA wrong, runB right. 217.2 Other: runA empty, runB 80 chars holding m1.
    f1 = _item(ev, q["217.1"], "D6", "Bob", sources=[entry(run_a, "217.1", "D6", "Bob")])
    f2 = _item(ev, q["217.1"], "D7", "Shawn Carter", sources=[entry(run_b, "217.1", "D7", "Shawn Carter")])
    m1, m2 = (
        Nugget.objects.create(topic=q["217.2"], text=t, position=i, created_by=primary)
        for i, t in enumerate(["married Beyonce", "CEO of Def Jam"])
    )
    o3 = _item(ev, q["217.2"], "D12", "w" * 80, sources=[entry(run_b, "217.2", "D12", "w" * 80)])
    objects = {
        "evaluation": ev,
        "runA": run_a,
        "runB": run_b,
        "q": q,
        "series": {"216": s216, "217": s217},
        "nuggets": {"n1": n1, "n2": n2, "n3": n3, "m1": m1, "m2": m2},
        "primary": primary,
        "items": {
            "a1": a1,
            "l1": l1,
            "l2": l2,
            "l3": l3,
            "l4": l4,
            "l5": l5,
            "o1": o1,
            "o2": o2,
            "f1": f1,
            "f2": f2,
            "o3": o3,
        },
        "classes": {"c1": c1, "c2": c2, "c3": c3},
    }
    if not judge:
        return objects
    gc = "globally-correct"
    judge_item(a1, "instance", {"label": gc, "answer_class": None})
    judge_item(l1, "instance", {"label": gc, "answer_class": c1.id})
    judge_item(l2, "instance", {"label": gc, "answer_class": c1.id})
    judge_item(l3, "instance", {"label": gc, "answer_class": c2.id})
    judge_item(l4, "instance", {"label": "incorrect", "answer_class": None})
    judge_item(l5, "instance", {"label": gc, "answer_class": c3.id})
    judge_item(f1, "instance", {"label": "incorrect", "answer_class": None})
    judge_item(f2, "instance", {"label": gc, "answer_class": None})
    judge_item(o1, "nugget_match", {"nuggets": [n1.id, n3.id]})
    judge_item(o2, "nugget_match", {"nuggets": [n2.id]})
    judge_item(o3, "nugget_match", {"nuggets": [m1.id]})
    votes = {
        n1: ("vital", "vital", "vital"),
        n2: ("okay", "vital", "okay"),
        n3: ("okay", "okay", "okay"),
        m1: ("vital",),
        m2: ("vital",),
    }
    for nugget, vs in votes.items():
        for who, role, vote in zip(
            (primary, second, third), (Judgment.PRIMARY, Judgment.SECONDARY, Judgment.SECONDARY), vs
        ):
            judgments.append(
                Judgment(
                    evaluation=ev,
                    topic=nugget.topic,
                    kind="nugget_vote",
                    nugget=nugget,
                    assessor=who,
                    role=role,
                    value={"vote": vote},
                )
            )
    Judgment.objects.bulk_create(judgments)
    return objects


def trec2007_sized(slug="bench-trec2007", series=70, questions=515, runs=51, seed=7):
    """A TREC 2007-sized evaluation, all judged: per series ~5 factoids, 1-2 lists and one Other question.

    Returns the evaluation. Everything is written with bulk_create (no signals, no history)."""
    rng = random.Random(seed)
    assessor = _user("bench-assessor")
    voters = [_user(f"bench-voter{i}") for i in range(8)]
    ev = Evaluation.objects.create(slug=slug, title="TREC 2007-sized benchmark", track="trec2007-qa")
    teams = Team.objects.bulk_create([Team(name=f"{slug}-team{i}") for i in range(runs)])
    run_objs = Run.objects.bulk_create(
        [Run(evaluation=ev, team=teams[i], tag=f"run{i:02d}", priority=1) for i in range(runs)]
    )
    series_objs = Topic.objects.bulk_create(
        [Topic(evaluation=ev, ident=str(216 + i), kind="series", position=i * 20) for i in range(series)]
    )
    # 70 Other + 85 list + the rest factoid, spread over the series.
    n_list = min(85, questions - 2 * series)
    kinds = []
    for i, _series in enumerate(series_objs):
        lists = 2 if i < n_list - series else 1
        kinds.append(["LIST"] * lists + ["OTHER"])
    remaining = questions - sum(len(k) for k in kinds)
    for i in range(remaining):
        kinds[i % series].insert(0, "FACTOID")
    qs = []
    for s, ks in zip(series_objs, kinds):
        for j, kind in enumerate(ks, start=1):
            qs.append(Topic(evaluation=ev, parent=s, ident=f"{s.ident}.{j}", kind=kind, position=s.position + j))
    qs = Topic.objects.bulk_create(qs)
    classes = {}
    nuggets = {}
    for q in qs:
        if q.kind == "LIST":
            classes[q.id] = AnswerClass.objects.bulk_create(
                [AnswerClass(topic=q, label=f"a{k}", created_by=assessor) for k in range(rng.randint(2, 12))]
            )
        elif q.kind == "OTHER":
            nuggets[q.id] = Nugget.objects.bulk_create(
                [Nugget(topic=q, text=f"n{k}", position=k, created_by=assessor) for k in range(rng.randint(5, 15))]
            )
    entries, plans = [], []
    for r in run_objs:
        line = 0
        for q in qs:
            count = 1 if q.kind == "FACTOID" else rng.randint(1, 8) if q.kind == "LIST" else rng.randint(3, 12)
            for _ in range(count):
                line += 1
                pick = rng.randrange(12)  # runs share answers: 12 candidate items per question
                docid = "NIL" if q.kind == "FACTOID" and pick == 11 else f"D{q.id}-{pick}"
                text = "" if docid == "NIL" else f"answer {pick} " + "w" * rng.randint(5, 60)
                entries.append(RunEntry(run=r, topic=q, line_no=line, docid=docid, text=text))
                plans.append((q, docid, text))
    entries = RunEntry.objects.bulk_create(entries, batch_size=5000)
    items, item_index = [], {}
    for q, docid, text in plans:
        if docid == "NIL":
            continue  # NIL responses are not pooled
        key = (q.id, docid, text)
        if key not in item_index:
            item_index[key] = len(items)
            items.append(PoolItem(evaluation=ev, topic=q, key=f"{docid} {text}", docid=docid, text=text))
    items = PoolItem.objects.bulk_create(items, batch_size=5000)
    through = PoolItem.sources.through
    through.objects.bulk_create(
        [
            through(poolitem_id=items[item_index[(q.id, d, t)]].id, runentry_id=e.id)
            for e, (q, d, t) in zip(entries, plans)
            if d != "NIL"
        ],
        batch_size=10000,
    )
    judgments = []
    for item in items:
        q = item.topic
        if q.kind == "OTHER":
            held = rng.sample(nuggets[q.id], k=rng.randint(0, 2))
            value, kind = {"nuggets": [n.id for n in held]}, "nugget_match"
        else:
            correct = item.docid != "NIL" and rng.random() < 0.4
            cls = rng.choice(classes[q.id]).id if correct and q.kind == "LIST" else None
            value = {
                "label": "globally-correct" if correct else rng.choice(["incorrect", "non-exact"]),
                "answer_class": cls,
            }
            kind = "instance"
        judgments.append(Judgment(evaluation=ev, topic=q, kind=kind, item=item, assessor=assessor, value=value))
    for nlist in nuggets.values():
        for n in nlist:
            for i, v in enumerate(voters):
                judgments.append(
                    Judgment(
                        evaluation=ev,
                        topic_id=n.topic_id,
                        kind="nugget_vote",
                        nugget=n,
                        assessor=v,
                        role=Judgment.PRIMARY if i == 0 else Judgment.SECONDARY,
                        value={"vote": "vital" if rng.random() < 0.4 else "okay"},
                    )
                )
            # TREC 2006/2007's ninth vote set: the primary (voter 0) voted a second time, later.
            judgments.append(
                Judgment(
                    evaluation=ev,
                    topic_id=n.topic_id,
                    kind="nugget_revote",
                    nugget=n,
                    assessor=voters[0],
                    role=Judgment.PRIMARY,
                    value={"vote": "vital" if rng.random() < 0.4 else "okay"},
                )
            )
    Judgment.objects.bulk_create(judgments, batch_size=5000)
    return ev
