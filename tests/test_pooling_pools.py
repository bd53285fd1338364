"""Pools: distinct instances of judged runs, sources kept, rebuilds keep items and judgments; the Celery task."""

import pytest

from config import patience
from pooling.models import PoolBuild, PoolItem
from pooling.pools import build_pools, pools_out_of_date, start_pool_build
from pooling.runs import RunFile, load_run_files
from tests.test_pooling_loading import FIXTURES, blog, tac  # noqa: F401 (fixtures)

VALID = (FIXTURES / "tac_valid_run.txt").read_bytes()


def load(evaluation, tag, priority, data=VALID, team=None):
    [result] = load_run_files(
        evaluation,
        [
            RunFile(
                filename=f"{tag}.txt",
                data=data.replace(b"AlphaQA1", tag.encode()),
                team=team or f"team-{tag}",
                priority=priority,
            )
        ],
        override_reason="a run changed after pooling, as the test needs",  # runs are frozen once judging starts
    )
    assert result.problems == []
    return result.run


def items(evaluation, ident):
    return list(PoolItem.objects.filter(topic__evaluation=evaluation, topic__ident=ident).order_by("position"))


def test_same_instance_from_many_runs_is_one_item_with_every_source(tac):
    a = load(tac, "A1", 1)
    # B returns the 1001.2 instance with other white space, and one new instance for 1001.1
    b_data = VALID.replace(b"cheap   wine and friendly staff", b"cheap wine   and\tfriendly staff").replace(
        b"food bloggers", b"food critics"
    )
    b = load(tac, "B1", 2, b_data)
    load(tac, "C3", 3)  # priority 3 is not judged by default
    totals = build_pools(tac)
    assert totals["created"] == 7  # 6 instances of A + "food critics" of B
    squishy = items(tac, "1001.2")
    assert len(squishy) == 1
    assert squishy[0].text == "cheap wine and friendly staff" and squishy[0].pool_id == "1001.2-1"
    assert sorted((e.run.tag, e.line_no) for e in squishy[0].sources.all()) == [("A1", 3), ("B1", 3)]
    rigid = items(tac, "1001.1")
    assert [(i.pool_id, i.docid, i.text) for i in rigid] == [
        ("1001.1-1", "BLOG06-20051206-000-0000000001", "college students"),
        ("1001.1-2", "BLOG06-20051206-000-0000000002", "food bloggers"),
        ("1001.1-3", "BLOG06-20051206-000-0000000002", "food critics"),
    ]
    assert {e.run_id for i in PoolItem.objects.all() for e in i.sources.all()} == {a.pk, b.pk}


def test_rebuild_after_late_run_keeps_items_ids_and_judgments(tac, make_user):
    from assess.models import Judgment

    load(tac, "A1", 1)
    build_pools(tac)
    before = {i.key: (i.pk, i.pool_id, i.position) for i in PoolItem.objects.all()}
    judged = items(tac, "1001.1")[1]  # "food bloggers"
    judge = make_user("j", "assessor")
    Judgment.objects.create(
        evaluation=tac,
        topic=judged.topic,
        kind="instance",
        item=judged,
        assessor=judge,
        value={"label": "correct", "answer_class": None},
    )
    # the run is replaced by one without "food bloggers" and a late run adds a new instance
    load(tac, "A1", 1, VALID.replace(b"food bloggers", b"vegans"))
    assert pools_out_of_date(tac)
    totals = build_pools(tac)
    assert not pools_out_of_date(tac)
    after = {i.key: (i.pk, i.pool_id, i.position) for i in PoolItem.objects.all()}
    for key, value in before.items():
        assert after[key] == value  # same row, same pool id, same place
    judged.refresh_from_db()
    assert judged.data == {"unreturned": True} and judged.sources.count() == 0
    assert Judgment.objects.filter(item=judged).count() == 1
    new = items(tac, "1001.1")[-1]
    assert (new.text, new.pool_id, new.position) == ("vegans", "1001.1-3", 2)
    assert totals["created"] == 1 and totals["unreturned"] == 1


def test_unjudged_items_no_run_returns_are_removed(tac):
    load(tac, "A1", 1)
    build_pools(tac)
    load(tac, "A1", 1, VALID.replace(b"food bloggers", b"vegans"))
    totals = build_pools(tac)
    assert totals["removed"] == 1
    assert [i.text for i in items(tac, "1001.1")] == ["college students", "vegans"]


def test_judged_priorities_setting_decides_which_runs_are_pooled(tac):
    load(tac, "C3", 3)
    assert build_pools(tac)["created"] == 0
    tac.settings["judged_priorities"] = [1, 2, 3]
    tac.save()
    assert build_pools(tac)["created"] == 6


def test_build_records_progress(tac):
    load(tac, "A1", 1)
    build = PoolBuild.objects.create(evaluation=tac)
    build_pools(tac, build)
    build.refresh_from_db()
    assert (build.status, build.done, build.total, build.percent) == ("done", 2, 2, 100)
    assert build.counts["created"] == 6 and "6 new items" in build.message


@pytest.mark.worker
def test_pool_build_runs_in_a_real_worker(transactional_db, celery_worker, blog):  # noqa: F811
    import time

    from pooling.evaluations import create_evaluation
    from pooling.topics import load_topics

    evaluation = create_evaluation("tac-worker", "tac2008-qa", ["test-blog06"])
    load_topics(evaluation, (FIXTURES / "tac2008_questions.xml").read_bytes(), "q.xml")
    load(evaluation, "A1", 1)
    build = start_pool_build(evaluation)
    assert start_pool_build(evaluation).pk == build.pk  # a second request joins the queued build
    deadline = patience.Deadline(30)
    while build.status not in ("done", "failed") and not deadline.passed():
        time.sleep(0.2)
        build.refresh_from_db()
    assert build.status == "done", build.message
    assert PoolItem.objects.filter(evaluation=evaluation).count() == 6
