"""Issue 29: scoring under other readings of the judgments (assess.official.reading), the rankings' correlation,
rank intervals and bounds for unjudged items (scoring.rankings, scoring.robustness), on an evaluation scored by
hand.

The fixture: TREC 2007, one series of four factoid questions, runs X, Y and Z each answering every question with
an answer of its own (12 pool items). The primary assessor judges X right on q1-q3, Y on q1-q2, Z on q1: accuracy
X 3/4, Y 2/4, Z 1/4 (a series of factoids only scores its factoid accuracy, and the run its series' score). The
second assessor judges every item alike except two flips: X's q3 answer incorrect, Y's q3 answer correct, so
under the second assessor X 2/4, Y 3/4, Z 1/4.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Team
from assess.models import Judgment, Nugget
from assess.official import (
    PRIMARY_ONLY,
    SECOND,
    WithoutVoter,
    nugget_vote_sets,
    official_fields,
    official_values,
    reading,
)
from pooling.models import Evaluation, PoolItem, Run, RunEntry, Topic
from scoring import rankings
from scoring.models import JudgmentSet, RankingState, Score, SetJudgment
from scoring.rescore import rescore_evaluation
from scoring.set_reading import SetReading

pytestmark = pytest.mark.django_db

GOOD, BAD = "globally-correct", "incorrect"
PRIMARY_RIGHT = {"X": {1, 2, 3}, "Y": {1, 2}, "Z": {1}}
SECOND_FLIPS = {("X", 3): BAD, ("Y", 3): GOOD}


def _label(right, run, q):
    return GOOD if q in right[run] else BAD


@pytest.fixture
def world(make_user):
    return build_world(make_user)


def build_world(make_user, slug="ranks"):
    """The module's fixture (see its docstring), scored."""
    primary, second, adjudicator = (make_user(n, "assessor") for n in ("prim", "sec", "adj"))
    ev = Evaluation.objects.create(slug=slug, title="Ranks", track="trec2007-qa")
    team = Team.objects.create(name="Team R")
    runs = {tag: Run.objects.create(evaluation=ev, team=team, tag=tag, priority=1) for tag in "XYZ"}
    series = Topic.objects.create(evaluation=ev, ident="300", kind="series", position=1)
    questions = {
        q: Topic.objects.create(evaluation=ev, ident=f"300.{q}", kind="FACTOID", parent=series, position=q + 1)
        for q in (1, 2, 3, 4)
    }
    items = {}
    line = 0
    for tag, run in runs.items():
        for q, topic in questions.items():
            line += 1
            docid, text = f"D{tag}{q}", f"answer {tag}{q}"
            entry = RunEntry.objects.create(run=run, topic=topic, line_no=line, docid=docid, text=text)
            item = PoolItem.objects.create(evaluation=ev, topic=topic, key=f"{docid} {text}", docid=docid, text=text)
            item.sources.add(entry)
            items[(tag, q)] = item
    for (tag, q), item in items.items():
        first = _label(PRIMARY_RIGHT, tag, q)
        for who, role, label in (
            (primary, Judgment.PRIMARY, first),
            (second, Judgment.SECONDARY, SECOND_FLIPS.get((tag, q), first)),
        ):
            Judgment.objects.create(
                evaluation=ev,
                topic=item.topic,
                kind="instance",
                item=item,
                assessor=who,
                role=role,
                value={"label": label, "answer_class": None},
            )
    rescore_evaluation(ev.pk)
    return {"ev": ev, "runs": runs, "items": items, "q": questions, "users": (primary, second, adjudicator)}


def _by_tag(world, values):
    tags = {str(run.pk): tag for tag, run in world["runs"].items()} | {
        run.pk: tag for tag, run in world["runs"].items()
    }
    return {tags[k]: v for k, v in values.items() if k in tags}


def _headline(world, source):
    return _by_tag(world, {r: s["score"] for r, s in rankings.scores_under(world["ev"], source).items()})


def test_readings_read_primary_and_second_judgments(world):
    qids = [t.pk for t in world["q"].values()]
    x3, y3 = world["items"][("X", 3)].pk, world["items"][("Y", 3)].pk
    assert official_values(qids, "instance")[x3]["label"] == GOOD
    with reading(PRIMARY_ONLY):
        assert official_values(qids, "instance")[y3]["label"] == BAD
    with reading(SECOND):
        second = official_values(qids, "instance")
        assert second[x3]["label"] == BAD and second[y3]["label"] == GOOD
        assert official_fields(qids, "instance", "label", "answer_class")[x3] == (BAD, None)
        assert len(second) == 12
    assert official_values(qids, "instance")[x3]["label"] == GOOD  # the block ended: the default reading again
    with pytest.raises(ValueError):
        with reading("tertiary"):
            pass


def test_scores_under_each_reading_are_the_hand_computed_ones(world):
    assert _headline(world, PRIMARY_ONLY) == {"X": 0.75, "Y": 0.5, "Z": 0.25}
    assert _headline(world, SECOND) == {"X": 0.5, "Y": 0.75, "Z": 0.25}


def test_rank_intervals_when_the_second_assessor_flips_two_labels(world):
    state = rankings.refresh(world["ev"].pk)
    report = state.data["robustness"]
    by_tag = {tag: _run_row(world, state, tag) for tag in "XYZ"}
    assert [row["run"] for row in report["runs"]] == [str(world["runs"][tag].pk) for tag in "XYZ"]  # best first
    assert by_tag["X"]["interval"] == [1, 2]  # first under the primary, second under the second assessor
    assert by_tag["Y"]["interval"] == [1, 2]
    assert by_tag["Z"]["interval"] == [3, 3]
    assert by_tag["X"]["scores"] == {"official": 0.75, "primary": 0.75, "second": 0.5}
    assert by_tag["Y"]["scores"] == {"official": 0.5, "primary": 0.5, "second": 0.75}
    # everything is judged: both bounds are the score
    assert report["filled"] == 0
    assert all(row["worst"] == row["best"] == row["score"] for row in report["runs"])
    pair = next(p for p in state.data["pairs"] if (p["a"], p["b"], p["measure"]) == ("official", "second", "score"))
    # X>Y swapped, X>Z and Y>Z kept: τ = (2 - 1) / 3; τ_AP over Y X Z: C(2)=0, C(3)=2/2 -> 2/2 * 1 - 1 = 0
    assert pair["tau"] == pytest.approx(1 / 3)
    assert pair["tau_ap"] == pytest.approx(0.0)
    assert pair["runs"] == 3
    readings = {r["key"]: r for r in state.data["readings"]}
    assert readings["primary"]["same_as"] == "official"  # nothing adjudicated yet
    assert readings["second"]["same_as"] is None


def test_an_adjudication_makes_the_official_reading_differ_from_the_primary(world):
    _, _, adjudicator = world["users"]
    item = world["items"][("Y", 3)]
    Judgment.objects.create(
        evaluation=world["ev"],
        topic=item.topic,
        kind="instance",
        item=item,
        assessor=adjudicator,
        role=Judgment.ADJUDICATED,
        value={"label": GOOD, "answer_class": None},
    )
    rescore_evaluation(world["ev"].pk)
    state = rankings.refresh(world["ev"].pk)
    by_tag = {tag: _run_row(world, state, tag) for tag in "XYZ"}
    assert by_tag["Y"]["scores"] == {"official": 0.75, "primary": 0.5, "second": 0.75}
    assert by_tag["X"]["rank"] == by_tag["Y"]["rank"] == 1  # tied officially at 3/4
    assert by_tag["Y"]["interval"] == [1, 2]
    assert {r["key"]: r["same_as"] for r in state.data["readings"]}["primary"] is None


def test_bounds_collapse_when_the_last_item_is_judged(world):
    primary = world["users"][0]
    item = world["items"][("Z", 4)]
    Judgment.objects.filter(item=item).delete()  # Z's q4 answer: nobody has judged it
    rescore_evaluation(world["ev"].pk)
    z = _run_row(world, rankings.refresh(world["ev"].pk), "Z")
    assert z["score"] == 0.25  # an unjudged answer counts as not correct
    assert (z["worst"], z["best"]) == (0.25, 0.5)  # wrong: 1/4; right: 2/4
    assert z["judged"] == pytest.approx(3 / 4)
    Judgment.objects.create(
        evaluation=world["ev"],
        topic=item.topic,
        kind="instance",
        item=item,
        assessor=primary,
        role=Judgment.PRIMARY,
        value={"label": BAD, "answer_class": None},
    )
    rescore_evaluation(world["ev"].pk)
    state = rankings.refresh(world["ev"].pk)
    z = _run_row(world, state, "Z")
    assert z["worst"] == z["best"] == z["score"] == 0.25
    assert state.data["robustness"]["filled"] == 0


def _run_row(world, state, tag):
    return next(row for row in state.data["robustness"]["runs"] if row["run"] == str(world["runs"][tag].pk))


def _set(world, name, flips):
    judgment_set = JudgmentSet.objects.create(evaluation=world["ev"], name=name, created_by=world["users"][2])
    SetJudgment.objects.bulk_create(
        SetJudgment(
            judgment_set=judgment_set,
            topic=item.topic,
            kind="instance",
            item=item,
            value={"label": flips.get(key, _label(PRIMARY_RIGHT, *key)), "answer_class": None},
        )
        for key, item in world["items"].items()
    )
    return judgment_set


def _stored(world):
    return sorted(
        Score.objects.filter(run__evaluation=world["ev"]).values_list("pk", "measure", "value", "detail", "computed_at")
    )


def test_a_judgment_set_is_ranked_and_never_changes_a_stored_official_score(world):
    before = _stored(world)
    judgment_set = _set(world, "machine", {("X", 1): BAD, ("X", 2): BAD, ("Z", 2): GOOD, ("Z", 4): GOOD})
    # machine: X 1/4, Y 2/4, Z 3/4
    assert _headline(world, SetReading(judgment_set.pk)) == {"X": 0.25, "Y": 0.5, "Z": 0.75}
    with CaptureQueriesContext(connection) as queries:
        state = rankings.refresh(world["ev"].pk)
    written = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]
    assert written and all("scoring_rankingstate" in sql for sql in written)  # only its own row
    assert _stored(world) == before
    key = f"set:{judgment_set.pk}"
    assert {r["key"] for r in state.data["readings"]} == {"official", "primary", "second", key}
    pair = next(p for p in state.data["pairs"] if (p["a"], p["b"], p["measure"]) == ("official", key, "score"))
    assert pair["tau"] == pytest.approx(-1.0)  # the machine reverses X Y Z
    assert pair["tau_ap"] == pytest.approx(-1.0)
    stored = {tag: scores["score"] for tag, scores in _by_tag(world, state.data["scores"][key]).items()}
    assert stored == {"X": 0.25, "Y": 0.5, "Z": 0.75}


def test_a_set_without_votes_reads_the_official_votes(make_user):
    from tracks.qa.synthetic import tiny_trec2007

    t = tiny_trec2007()
    ev = t["evaluation"]
    nuggets = [n.pk for n in Nugget.objects.filter(topic__evaluation=ev)]
    qids = [t["q"]["216.3"].pk, t["q"]["217.2"].pk]
    judgment_set = JudgmentSet.objects.create(evaluation=ev, name="matches only", created_by=t["primary"])
    SetJudgment.objects.create(
        judgment_set=judgment_set,
        topic=t["q"]["216.3"],
        kind="nugget_match",
        item=t["items"]["o2"],
        value={"nuggets": []},
    )
    official = nugget_vote_sets(qids)
    with reading(SetReading(judgment_set.pk)):
        assert nugget_vote_sets(qids) == official
        matches = official_values(qids, "nugget_match")
    assert matches == {t["items"]["o2"].pk: {"nuggets": []}}  # the set's own matches, none of the official ones
    assert set(official[1]) <= set(nuggets)


def test_leaving_one_voter_out_changes_only_the_pyramid(make_user):
    from tracks.qa.synthetic import tiny_trec2007

    t = tiny_trec2007()
    n2 = t["nuggets"]["n2"].pk  # votes: primary okay, second vital, third okay
    second = Judgment.objects.get(nugget_id=n2, role=Judgment.SECONDARY, value={"vote": "vital"}).assessor_id
    qids = [t["q"]["216.3"].pk]
    official, votes = nugget_vote_sets(qids)
    assert sorted(votes[n2]) == ["okay", "okay", "vital"]
    with reading(WithoutVoter(second)):
        official_without, without = nugget_vote_sets(qids)
    assert official_without == official  # the official vital/okay vote stays
    assert sorted(without[n2]) == ["okay", "okay"]
    state = rankings.refresh(t["evaluation"].pk)
    keys = [r["key"] for r in state.data["robustness"]["readings"]]
    assert f"without:{second}" in keys and len([k for k in keys if k.startswith("without:")]) == 3


def test_a_refresh_follows_a_full_rescoring_without_a_broker(world, django_capture_on_commit_callbacks):
    RankingState.objects.filter(evaluation=world["ev"]).delete()
    with django_capture_on_commit_callbacks(execute=True):
        rescore_evaluation(world["ev"].pk)
    state = RankingState.objects.get(evaluation=world["ev"])
    assert state.computed_at is not None and state.computed_at >= state.requested_at
    assert state.data["robustness"]["runs"][0]["rank"] == 1


def _login(client, user):
    from tests.conftest import PASSWORD

    client.login(username=user.username, password=PASSWORD)
    return client


def test_the_board_the_page_the_api_and_the_command_show_the_rankings(world, client, make_user):
    from io import StringIO

    from django.core.management import call_command
    from django.urls import reverse

    slug = world["ev"].slug
    organizer = make_user("org", "organizer")
    c = _login(client, organizer)
    assert "Not computed yet" in c.get(reverse("scoring:board", args=[slug])).content.decode()
    assert c.get(reverse("api:rankings", args=[slug])).json()["as_of"] is None
    rankings.refresh(world["ev"].pk)
    board = c.get(reverse("scoring:board", args=[slug])).content.decode()
    assert 'data-pair="official|second"' in board and "0.333" in board  # τ = 1/3
    page = c.get(reverse("scoring:robustness", args=[slug])).content.decode()
    row = page[page.index('<tr data-run="X">') :]
    assert '<td class="interval">1–2</td>' in row[: row.index("</tr>")]
    shown = c.get(reverse("api:rankings", args=[slug])).json()
    assert shown["as_of"] and shown["pending"] is False
    assert {r["tag"]: r["interval"] for r in shown["robustness"]["runs"]} == {"X": [1, 2], "Y": [1, 2], "Z": [3, 3]}
    out = StringIO()
    call_command("rankings", slug, stdout=out)
    assert "Second assessors (else primary) | Official | 3 | 0.333 | 0.000" in out.getvalue()
    for who in (make_user("pat", "participant"), make_user("ann", "assessor")):
        c = _login(client, who)
        assert c.get(reverse("scoring:robustness", args=[slug])).status_code == 403
        assert c.get(reverse("api:rankings", args=[slug])).status_code == 403


def test_with_a_broker_a_refresh_is_queued_when_due_never_run_in_place(world, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from config.celery import app
    from scoring import tasks

    sent = []
    app.conf.task_always_eager = False  # (the autouse _tasks_in_process fixture puts it back)
    monkeypatch.setattr(tasks.refresh_rankings, "apply_async", lambda args, eta: sent.append((args, eta)))
    monkeypatch.setattr(rankings, "refresh", lambda pk: pytest.fail("refreshed on the caller's path"))
    ev = world["ev"].pk
    rankings._unclaim(ev)  # (a claim of an earlier session's evaluation with this id)
    last = timezone.now() - timedelta(seconds=5)
    RankingState.objects.update_or_create(evaluation_id=ev, defaults={"computed_at": last, "seconds": 2.0})
    rankings.request_refresh(ev)
    ((args, eta),) = sent
    state = RankingState.objects.get(evaluation_id=ev)
    # due 30 (RANKINGS_SPACING's default) × 2 s after the last refresh began
    assert args == (ev,) and eta == state.scheduled_for == last + timedelta(seconds=60)
    assert state.requested_at > state.computed_at  # pending, shown so
    rankings.request_refresh(ev)  # a task already waits: no second one
    assert len(sent) == 1
    rankings.request_refresh(ev, set_changed=True)  # a set's load is noted even so
    assert RankingState.objects.get(evaluation_id=ev).requested_at > state.requested_at
    assert len(sent) == 1
    rankings._unclaim(ev)  # Redis lost the claim: the database still knows a task waits
    rankings.request_refresh(ev)
    assert len(sent) == 1
    monkeypatch.setattr(rankings, "refresh", lambda pk: None)
    assert rankings.run_due(ev) is True  # the task starts: the claim is free, the next pass queues the next one
    monkeypatch.setattr(rankings, "spacing", lambda: 0)
    rankings.request_refresh(ev)
    assert len(sent) == 2
    rankings._unclaim(ev)


def test_the_refresh_task_runs_only_when_something_changed(world):
    from scoring.tasks import refresh_rankings

    ev = world["ev"].pk
    assert refresh_rankings(ev) is False  # never requested
    rankings.request_refresh(ev)  # (no broker: refreshed at once)
    state = RankingState.objects.get(evaluation_id=ev)
    assert state.computed_at >= state.requested_at
    assert refresh_rankings(ev) is False


def test_every_declared_bound_is_a_valid_judgment_of_its_kind():
    from assess.kinds import problems
    from core.tracks import TRACKS

    samples = [{}, {"kind": "answer"}, {"kind": "sentence"}, {"kind": "citation"}, {"bolt": "view"}]
    checked = 0
    for track in TRACKS.values():
        for kind in track.kinds:
            if kind.bounds is None:
                continue
            for data in samples:
                pair = kind.bounds(data, (3, 5))
                if pair is None:
                    continue
                worst, best = pair
                assert worst != best
                for value in pair:
                    assert problems(value, kind.shape) == [], (track.slug, kind.name, value)
                    if kind.labels and "label" in value:
                        assert value["label"] in kind.labels
                checked += 1
    assert checked >= 6  # QA's instance and match, BOLT's citation, BioGen's answer, sentence and citation


def test_rescoring_only_where_a_reading_differs_gives_the_full_scoring(make_user):
    """Every reading scored on the topics where it differs (the stored official scores for the rest) equals the
    same reading scored over the whole evaluation, on a generated TREC 2007 evaluation with adjudications, second
    judgments, a judgment set, unjudged items and eight voters."""
    import random

    from assess.official import OFFICIAL
    from scoring.robustness import BEST, WORST, Filled
    from tracks.qa.synthetic import trec2007_sized

    ev = trec2007_sized(slug="partial", series=4, questions=24, runs=5, seed=3)
    adjudicator = make_user("adj", "assessor")
    rng = random.Random(29)
    instance = list(Judgment.objects.filter(evaluation=ev, kind="instance").order_by("id"))
    flip = {"incorrect": GOOD, GOOD: "incorrect"}
    second = make_user("second", "assessor")
    for j in rng.sample(instance, 6):  # a second assessor disagrees, an adjudicator decides on some
        Judgment.objects.create(
            evaluation=ev,
            topic_id=j.topic_id,
            kind="instance",
            item_id=j.item_id,
            assessor=second,
            role=Judgment.SECONDARY,
            value=dict(j.value, label=flip.get(j.value["label"], GOOD)),
        )
        if rng.random() < 0.5:
            Judgment.objects.create(
                evaluation=ev,
                topic_id=j.topic_id,
                kind="instance",
                item_id=j.item_id,
                assessor=adjudicator,
                role=Judgment.ADJUDICATED,
                value=dict(j.value, label=flip.get(j.value["label"], GOOD)),
            )
    judgment_set = JudgmentSet.objects.create(evaluation=ev, name="m", created_by=adjudicator)
    SetJudgment.objects.bulk_create(
        SetJudgment(
            judgment_set=judgment_set,
            topic_id=j.topic_id,
            kind=j.kind,
            item_id=j.item_id,
            value=dict(j.value, label=flip.get(j.value["label"], GOOD)) if rng.random() < 0.2 else j.value,
        )
        for j in instance[: len(instance) // 2]
    )
    Judgment.objects.filter(pk__in=[j.pk for j in rng.sample(instance, 5)]).delete()  # unjudged items
    rescore_evaluation(ev.pk)
    official = rankings.stored_run_scores(ev)
    voters = sorted(
        set(Judgment.objects.filter(evaluation=ev, kind="nugget_vote").values_list("assessor_id", flat=True))
    )
    set_reading = SetReading(judgment_set.pk)
    kinds = set_reading.kinds()
    python_topics = set_reading._differing_in_python(ev.pk, kinds)
    assert python_topics and set_reading._differing_in_the_database(ev.pk, kinds) == python_topics
    sources = [OFFICIAL, PRIMARY_ONLY, SECOND, set_reading, Filled(ev, WORST), Filled(ev, BEST)]
    sources += [WithoutVoter(v) for v in voters[:3]]
    for source in sources:
        topics = rankings.differing_topics(ev, source)
        partial = rankings.scores_under(ev, source, topics, official)
        full = rankings.scores_under(ev, source)
        assert partial.keys() == full.keys()
        for run, values in full.items():
            for measure, value in values.items():
                assert partial[run][measure] == pytest.approx(value, abs=1e-12), (source, run, measure)
    assert rankings.differing_topics(ev, Filled(ev, WORST))  # (the fixture has unjudged items)
    assert rankings.scores_under(ev, Filled(ev, WORST)) != rankings.scores_under(ev, Filled(ev, BEST))
    # a refresh reads what every reading reads of the official state alike once (scoring.registry.memo: stored
    # scores, run entries, pool items, the matches the voter-left-out readings share): the same rankings, and
    # the same again from the memo's values once used (nobody changes them)
    from scoring.registry import one_snapshot

    plain = rankings.compute(ev)
    with one_snapshot():
        memoised = rankings.compute(ev)
        again = rankings.compute(ev)
    assert memoised == plain and again == plain
    assert len(plain["robustness"]["readings"]) == 3 + len(voters)  # (every voter left out was scored)


def test_bolt_bounds_fill_the_unjudged_citations_and_collapse_once_all_are_judged(make_user):
    """BOLT's declared bounds (tracks/bolt/kinds.py): an unjudged citation counts no relevant character today (the
    worst world), every character in the best; judging every citation makes both the score."""
    from pathlib import Path

    from assess.models import Assignment
    from corpus.loading import load_collection
    from pooling.evaluations import create_evaluation
    from pooling.pools import build_pools
    from pooling.runs import RunFile, load_run_files
    from pooling.topics import load_topics
    from tracks.bolt import judging

    fixtures = Path(__file__).resolve().parent / "fixtures" / "bolt"
    load_collection("bolt-rank-forum", "bolt-forum", [str(fixtures / "forum.xml")])
    ev = create_evaluation("bolt-rank", "bolt-ir-p2", ["bolt-rank-forum"])
    load_topics(ev, (fixtures / "topics.xml").read_bytes(), "topics.xml")
    for name, team in (("alpha1.xml", "Team Alpha"), ("beta1.xml", "Team Beta")):
        files = [RunFile(filename=name, data=(fixtures / name).read_bytes(), team=team, priority=1)]
        assert all(not r.problems for r in load_run_files(ev, files))
    build_pools(ev)
    judge = make_user("bolt-judge", "assessor")
    items = []
    for topic in ev.topics.filter(parent__isnull=True):
        Assignment.objects.create(evaluation=ev, topic=topic, assessor=judge, role=Assignment.PRIMARY)
        items += judging.citation_items(topic)
    first, rest = items[: len(items) // 2], items[len(items) // 2 :]
    for item in first:
        judging.judge_citation(judge, item, {"rel": "yes", "trans": "accept", "chksrc": True}, 0)
    rescore_evaluation(ev.pk)
    report = rankings.refresh(ev.pk).data["robustness"]
    assert report["filled"] == len(rest) > 0
    for row in report["runs"]:
        assert row["worst"] == pytest.approx(row["score"])  # unjudged already counts as nothing relevant
        assert row["best"] >= row["score"]
    assert any(row["best"] > row["score"] for row in report["runs"])
    for item in rest:
        judging.judge_citation(judge, item, {"rel": "no", "trans": "accept", "chksrc": True}, 0)
    rescore_evaluation(ev.pk)
    report = rankings.refresh(ev.pk).data["robustness"]
    assert report["filled"] == 0
    assert all(row["worst"] == row["best"] == row["score"] for row in report["runs"])
