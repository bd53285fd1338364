"""Judgment sets (issue 29) on BOLT's test evaluation (tests/tracks/bolt): qrels read into a set through the
track's declared grades, agreement with the official and the human judgments worked by hand, bad files refused
with their lines, a set provably never changing an official judgment or score, and promotion as an audited
organizer action through the one judgment writer."""

import pytest

from assess.models import Judgment, JudgmentChange
from core.models import AuditEntry
from pooling.evaluations import LoadError
from pooling.models import StaleTopic
from scoring import agreement_store, judgment_sets
from scoring.models import Agreement, JudgmentSet, Score, SetJudgment
from scoring.rescore import rescore_evaluation
from tests.test_qrels_export import T1, T2, judged
from tests.tracks.bolt.test_pipeline import evaluation, loaded  # noqa: F401 (fixtures)

# The machine's grades: T1:p1 no (both its passages, unjudged by the assessors), T1:p2 yes (the fare: primary yes,
# second no), T2:p1 no (taxi drivers: primary maybe), T2:p2 maybe (taxi drivers: maybe; the metro: no); a document
# no run cited is skipped, and so is an unjudged line.
QRELS = f"""\
1.001 0 {T1}:p1 0
1.001 0 {T1}:p2 2
1.001 0 {T2}:p1 0
1.001 0 {T2}:p2 1
1.001 0 bolt-eng-DF-999-000000-0000:p1 2
1.002 0 bolt-eng-DF-183-190210-0042:p1 -1
""".encode()


def passages(loaded):
    """{(docno, first words): pool item} of topic 1.001."""
    from tracks.bolt.qrels import docno

    return {(docno(i.key, i.docid, i.data), i.text[:12]): i for i in loaded.pool_items.filter(topic__ident="1.001")}


@pytest.fixture
def machine(loaded, make_user):
    judged(loaded, make_user)
    org = make_user("js-org", "organizer")
    made = judgment_sets.load_set(
        loaded, QRELS, "umbrela.qrels", "qrels", "umbrela", by=org, provenance={"model": "gpt-4o", "prompt": "v1"}
    )
    return made, org


def test_qrels_become_the_tracks_values_item_by_item(loaded, machine):
    made, org = machine
    assert made.provenance == {"model": "gpt-4o", "prompt": "v1"} and made.released is False
    assert made.skipped == 2 and len(made.sha256) == 64 and made.file_name == "umbrela.qrels"
    rels = {
        key: SetJudgment.objects.get(judgment_set=made, item=item).value["rel"]
        for key, item in passages(loaded).items()
        if SetJudgment.objects.filter(judgment_set=made, item=item).exists()
    }
    # every passage of a graded post takes its grade; T1:p3 was not graded
    assert rels == {
        (f"{T1}:p1", "I took it fr"): "no",
        (f"{T1}:p1", "The new metr"): "no",
        (f"{T1}:p2", "The fare is "): "yes",
        (f"{T2}:p1", "Taxi drivers"): "no",
        (f"{T2}:p2", "Taxi drivers"): "maybe",
        (f"{T2}:p2", "The metro is"): "maybe",
    }
    value = SetJudgment.objects.filter(judgment_set=made).first().value
    assert value == {"rel": value["rel"], "trans": "na", "chksrc": False, "relspans": []}
    assert AuditEntry.objects.filter(action=judgment_sets.SET_LOADED, target="bolt-test:umbrela").exists()


def test_agreement_by_hand(loaded, machine):
    made, _ = machine
    agreement_store.refresh(loaded.id)
    row = Agreement.objects.get(evaluation=loaded, judgment_set=made, topic__isnull=True, kind="citation").stats
    # In common with the official judgments (rows official, columns the set; yes > maybe > no):
    # the fare yes/yes, T2:p1 taxi maybe/no, T2:p2 taxi maybe/maybe, the metro no/maybe.
    assert row["labels"] == ["yes", "maybe", "no"]
    assert row["confusion"] == [[1, 0, 0], [0, 1, 1], [0, 1, 0]]
    assert row["items"] == 4 and row["percent"] == 0.5
    # kappa: p_o = 2/4, p_e = (1*1 + 2*2 + 1*1)/16 = 6/16: (.5 - .375)/.625 = .2
    assert row["kappa"] == pytest.approx(0.2)
    # linear weights (adjacent .5, far 1): observed (.5 + .5)/4 = .25; expected 6 * 1/16 = .375: 1 - .25/.375
    assert row["weighted_kappa"] == pytest.approx(1 / 3)
    # ordinal alpha over the pairs: coincidences yy 2, mm 2, mn = nm 2; n_y 2, n_m 4, n_n 2, n 8;
    # delta(y,m) = (2+4-3)^2 = 9, delta(m,n) = (4+2-3)^2 = 9, delta(y,n) = (8-2)^2 = 36;
    # alpha = 1 - 7 * (2*9 + 2*9) / (2 * (2*4*9 + 4*2*9 + 2*2*36)) = 1 - 252/576
    assert row["alpha"] == pytest.approx(1 - 252 / 576)
    # over all judges (primary, second, the set): the fare yes/no/yes adds 1/2 per ordered pair (yy 1, yn = ny 1),
    # so n_y 2, n_m 4, n_n 3, n 9; delta(y,m) 9, delta(m,n) (7-3.5)^2 = 12.25, delta(y,n) (9-2.5)^2 = 42.25;
    # alpha = 1 - 8 * (2*42.25 + 4*12.25) / (2 * (2*4*9 + 4*3*12.25 + 2*3*42.25)) = 1 - 1068/945
    assert row["alpha_all"] == pytest.approx(1 - 1068 / 945)
    human = Agreement.objects.get(evaluation=loaded, judgment_set=None, topic__isnull=True, kind="citation").stats
    assert human["items"] == 1 and human["percent"] == 0 and human["confusion"][0][2] == 1  # the fare: yes / no
    topic_row = Agreement.objects.get(evaluation=loaded, judgment_set=made, topic__ident="1.001", kind="citation")
    assert topic_row.stats["confusion"] == row["confusion"]
    # the disagreeing items, one click from the matrix: all of them, or one cell's
    found = agreement_store.disagreements(loaded, made, "citation")
    assert sorted((d["first"], d["second"]) for d in found) == [("maybe", "no"), ("no", "maybe")]
    (cell,) = agreement_store.disagreements(loaded, made, "citation", cell=("no", "maybe"))
    assert cell["item_id"] == passages(loaded)[(f"{T2}:p2", "The metro is")].id


def test_the_worker_refreshes_only_what_changed_and_the_totals_follow(loaded, machine, make_user):
    made, _ = machine
    agreement_store.refresh(loaded.id)
    assert agreement_store.changed_topics(loaded.id, ["citation"]) == set()
    assessor = Judgment.objects.filter(role=Judgment.PRIMARY).first().assessor
    from tracks.bolt import judging

    metro = passages(loaded)[(f"{T2}:p2", "The metro is")]
    judgment = Judgment.objects.get(item=metro, assessor=assessor)
    judging.judge_citation(assessor, metro, {"rel": "maybe"}, judgment.version)  # now agrees with the machine
    assert {t for t in agreement_store.changed_topics(loaded.id, ["citation"])} == {metro.topic_id}
    assert agreement_store.refresh_changed(loaded.id) > 0
    row = Agreement.objects.get(evaluation=loaded, judgment_set=made, topic__isnull=True, kind="citation").stats
    assert row["confusion"] == [[1, 0, 0], [0, 2, 1], [0, 0, 0]] and row["percent"] == 0.75


def test_a_bad_file_is_refused_with_its_lines_and_nothing_is_stored(loaded, machine):
    made, org = machine
    bad = f"1.001 0 {T1}:p1 7\n9.999 0 {T1}:p1 1\n1.001 0 {T1}:p2 2\n1.001 1 {T1}:p2 1\n".encode()
    with pytest.raises(LoadError) as refused:
        judgment_sets.load_set(loaded, bad, "bad.qrels", "qrels", "bad", by=org)
    assert refused.value.problems == [
        "bad.qrels:1: grade 7 has no citation label in track bolt-ir-p2 (grades: 0, 1, 2)",
        "bad.qrels:2: topic 9.999 is not a topic of bolt-test",
        f"bad.qrels:4: {T1}:p2 of topic 1.001 again (first on line 3); a set holds one judgment per document: "
        "load each judgment group as a set of its own",
    ]
    with pytest.raises(LoadError, match="qrels line has 4"):
        judgment_sets.load_set(loaded, b"1.001 0 x\n", "short.qrels", "qrels", "short", by=org)
    with pytest.raises(LoadError, match="already has a judgment set named 'umbrela'"):
        judgment_sets.load_set(loaded, QRELS, "again.qrels", "qrels", "umbrela", by=org)
    with pytest.raises(LoadError, match="unknown field 'temperature'"):
        judgment_sets.load_set(loaded, QRELS, "x.qrels", "qrels", "x", by=org, provenance={"temperature": "0"})
    assert list(JudgmentSet.objects.values_list("name", flat=True)) == ["umbrela"]


def test_a_set_never_changes_an_official_judgment_or_score(loaded, make_user):
    judged(loaded, make_user)
    rescore_evaluation(loaded.id)
    StaleTopic.objects.all().delete()
    scores = sorted(Score.objects.values_list("run_id", "scope", "topic_id", "measure", "value"))
    judgments = sorted(Judgment.objects.values_list("id", "value", "version"))
    org = make_user("js-org2", "organizer")
    made = judgment_sets.load_set(loaded, QRELS, "m.qrels", "qrels", "m", by=org)
    judgment_sets.set_release(made, True, by=org)
    agreement_store.refresh(loaded.id)
    assert not StaleTopic.objects.exists()  # nothing asks for rescoring
    rescore_evaluation(loaded.id)
    assert sorted(Score.objects.values_list("run_id", "scope", "topic_id", "measure", "value")) == scores
    assert sorted(Judgment.objects.values_list("id", "value", "version")) == judgments


def test_promotion_is_an_audited_organizer_action_through_the_judgment_writer(loaded, machine):
    made, org = machine
    with pytest.raises(LoadError, match="give a reason"):
        judgment_sets.promote(made, by=org, reason=" ")
    before = Judgment.objects.count()
    counts = judgment_sets.promote(made, by=org, reason="the assessors ran out of time", only_unjudged=True)
    # only the two unjudged passages of T1:p1 take the machine's "no"; the judged ones stay
    assert counts == {"promoted": 2, "unchanged": 0, "skipped_judged": 4, "votes_left": 0}
    decided = Judgment.objects.filter(role=Judgment.ADJUDICATED, assessor=org)
    assert decided.count() == 2 == Judgment.objects.count() - before
    assert {j.value["rel"] for j in decided} == {"no"}
    assert JudgmentChange.objects.filter(judgment__in=decided, changed_by=org).count() == 2
    assert StaleTopic.objects.filter(topic__ident="1.001").exists()  # rescoring follows
    entry = AuditEntry.objects.get(action="judgment set promoted")
    assert entry.target == "bolt-test:umbrela" and entry.reason == "the assessors ran out of time"
    counts = judgment_sets.promote(made, by=org, reason="all of it")
    # now every differing value: T2:p1 taxi (maybe -> no) and the metro (no -> maybe); the fare, T2:p2's taxi and
    # the two just promoted are the same
    assert counts == {"promoted": 2, "unchanged": 4, "skipped_judged": 0, "votes_left": 0}


def test_the_rescoring_worker_recomputes_agreement_after_its_pass(loaded, machine):
    from scoring.tasks import rescore_stale
    from tracks.bolt import judging

    made, _ = machine
    agreement_store.refresh(loaded.id)
    StaleTopic.objects.all().delete()
    metro = passages(loaded)[(f"{T2}:p2", "The metro is")]
    judgment = Judgment.objects.get(item=metro, role=Judgment.PRIMARY)
    judging.judge_citation(judgment.assessor, metro, {"rel": "maybe"}, judgment.version)  # the save: a stale mark
    row = Agreement.objects.get(evaluation=loaded, judgment_set=made, topic__isnull=True, kind="citation")
    assert row.stats["percent"] == 0.5  # nothing recomputed on the save path
    rescore_stale(loaded.id)
    assert not StaleTopic.objects.exists()
    row = Agreement.objects.get(evaluation=loaded, judgment_set=made, topic__isnull=True, kind="citation")
    assert row.stats["percent"] == 0.75
    # the totals moved by the topic's change equal the totals of a refresh of everything
    moved = sorted(
        (a.judgment_set_id or 0, a.kind, a.stats["confusion"], a.stats["coincidence"])
        for a in Agreement.objects.filter(evaluation=loaded, topic__isnull=True)
    )
    agreement_store.refresh(loaded.id)
    whole = sorted(
        (a.judgment_set_id or 0, a.kind, a.stats["confusion"], a.stats["coincidence"])
        for a in Agreement.objects.filter(evaluation=loaded, topic__isnull=True)
    )
    assert moved == whole and len(whole) == 2


def _totals(evaluation):
    return sorted(
        (a.judgment_set_id or 0, a.kind, a.stats["confusion"], a.stats["coincidence"])
        for a in Agreement.objects.filter(evaluation=evaluation, topic__isnull=True)
    )


def test_a_refresh_is_due_the_spacing_times_its_last_duration_after_it_began_and_never_later_than_the_cap():
    from scoring.agreement_schedule import delay

    assert delay(None, 1000.0) == 0  # no refresh known: at once
    assert delay((100.0, 2.0), 110.0) == 50  # 30 × 2 s after 100, 10 s gone
    assert delay((100.0, 2.0), 170.0) == 0  # overdue: at once
    assert delay((100.0, 10.0), 100.0) == 60  # 300 s by the spacing, capped at AGREEMENT_MAX_DELAY


def test_with_a_broker_the_agreement_follows_in_a_task_of_its_own_that_takes_every_changed_question(
    loaded, machine, monkeypatch
):
    from config.celery import app
    from scoring import agreement_schedule as schedule
    from scoring import tasks
    from tracks.bolt import judging

    made, _ = machine
    agreement_store.refresh(loaded.id)
    metro = passages(loaded)[(f"{T2}:p2", "The metro is")]
    judgment = Judgment.objects.get(item=metro, role=Judgment.PRIMARY)
    judging.judge_citation(judgment.assessor, metro, {"rel": "maybe"}, judgment.version)
    sent = []
    app.conf.task_always_eager = False  # (the autouse _tasks_in_process fixture puts it back)
    monkeypatch.setattr(tasks.refresh_agreement_due, "apply_async", lambda args, countdown: sent.append(countdown))
    monkeypatch.setattr(agreement_store, "refresh_changed", lambda *a: pytest.fail("refreshed on the worker's pass"))
    schedule._unclaim(loaded.id)  # (a claim or a duration of an earlier session's evaluation with this id)
    schedule._redis().delete(schedule._key(loaded.id, "last"))
    schedule.request_refresh(loaded.id)
    assert sent == [0]  # no refresh known yet: due at once
    schedule.request_refresh(loaded.id)  # another pass while it waits: no second task
    assert sent == [0]
    row = Agreement.objects.get(evaluation=loaded, judgment_set=made, topic__isnull=True, kind="citation")
    assert row.stats["percent"] == 0.5  # nothing recomputed until the task runs
    monkeypatch.undo()  # (the worker takes the task)
    app.conf.task_always_eager = False
    monkeypatch.setattr(tasks.refresh_agreement_due, "apply_async", lambda args, countdown: sent.append(countdown))
    assert tasks.refresh_agreement_due(loaded.id) > 0
    row = Agreement.objects.get(evaluation=loaded, judgment_set=made, topic__isnull=True, kind="citation")
    assert row.stats["percent"] == 0.75
    moved = _totals(loaded)
    agreement_store.refresh(loaded.id)
    assert moved == _totals(loaded)  # the changed questions' totals equal a refresh of everything
    began, seconds = schedule._last(loaded.id)
    schedule.request_refresh(loaded.id)  # the claim was given back as the task began
    assert len(sent) == 2 and 0 <= sent[1] <= schedule.spacing() * seconds
    assert tasks.refresh_agreement_due(loaded.id) == 0  # nothing changed since: no topic row written
    schedule._unclaim(loaded.id)


def test_a_broker_that_refuses_the_task_leaves_the_questions_refreshed_in_place(loaded, machine, monkeypatch):
    from config.celery import app
    from scoring import agreement_schedule as schedule
    from scoring import tasks

    def refuse(*args, **kwargs):
        raise ConnectionError("broker away")

    done = []
    app.conf.task_always_eager = False
    monkeypatch.setattr(tasks.refresh_agreement_due, "apply_async", refuse)
    monkeypatch.setattr(agreement_store, "refresh_changed", lambda ev: done.append(ev))
    schedule._unclaim(loaded.id)
    schedule.request_refresh(loaded.id)
    assert done == [loaded.id]
    assert schedule._claim(loaded.id)  # the claim was given back: the next pass may queue
    schedule._unclaim(loaded.id)


def test_a_question_whose_judgments_are_all_gone_counts_as_changed(loaded, machine):
    agreement_store.refresh(loaded.id)
    topic = Judgment.objects.filter(kind="citation").first().topic_id
    Judgment.objects.filter(topic_id=topic).delete()
    assert agreement_store.changed_topics(loaded.id, ["citation"]) == {topic}
    agreement_store.refresh_changed(loaded.id)
    moved = _totals(loaded)
    agreement_store.refresh(loaded.id)
    assert moved == _totals(loaded)
