"""Progress in sight (issue 12): assessors see their progress per assignment and overall (done, left, time per
item); organizers see it per question, assessor and run on the evaluation page."""

from datetime import timedelta

import pytest
from django.urls import reverse

from assess import judging, progress
from assess.models import Assignment, JudgmentChange
from pooling.models import PoolItem, Run
from pooling.pools import item_sources, run_items
from tests.conftest import PASSWORD
from tests.tracks.bolt.test_pipeline import evaluation, load, loaded  # noqa: F401 (fixtures)
from tracks.bolt import judging as bolt_judging
from tracks.bolt.formats import citations as citation_format
from tracks.qa import instance_judging


def judge(user, item, label="incorrect"):
    instance_judging.judge_instance(user, judging.load_item(user, item.pk), label, 0)


def spread_saves(user, seconds):
    """Space the user's saves `seconds` apart, oldest first (they were all made just now)."""
    changes = list(JudgmentChange.objects.filter(changed_by=user).order_by("changed_at", "pk"))
    start = changes[0].changed_at
    for n, change in enumerate(changes):
        JudgmentChange.objects.filter(pk=change.pk).update(changed_at=start + timedelta(seconds=seconds * n))


@pytest.fixture
def judged(sample, primary, make_user):
    """The primary judged two items of the factoid 1.1, a second assessor one other item of it."""
    second = make_user("sec", "assessor")
    Assignment.objects.create(
        evaluation=sample.evaluation, topic=sample.series[0], assessor=second, role=Assignment.SECONDARY
    )
    factoid = [i for i in sample.items["1.1"] if i.docid]  # the sample's NIL answer is no pool item to judge
    judge(primary, factoid[0])
    judge(primary, factoid[1], "globally-correct")
    spread_saves(primary, 40)
    judge(second, factoid[2])
    return sample, primary, second


def test_evaluation_progress_per_question_assessor_and_run(judged):
    sample, _, _ = judged
    got = progress.evaluation_progress(sample.evaluation)
    per_question = {q.ident: (p.judged, p.total) for q, p in got["questions"]}
    # the second assessor's label is not the one that counts: only the primary's two
    assert per_question == {"1.1": (2, 4), "1.2": (0, 4), "1.3": (0, 4)}
    assert (got["overall"].judged, got["overall"].total, got["overall"].left) == (2, 12, 10)
    assessors = {user.username: p for user, p in got["assessors"]}
    assert (assessors["prim"].judged, assessors["prim"].total) == (2, 12)
    assert (assessors["sec"].judged, assessors["sec"].total) == (1, 8)  # a second assessor judges instances only
    assert assessors["prim"].seconds_per_item == pytest.approx(20.0)  # one 40 s gap over two items
    assert assessors["prim"].seconds_left == pytest.approx(10 * 20.0)
    runs = {run.tag: (p.judged, p.total) for run, p in got["runs"]}
    # run 1 returned every item, run 2 the even-numbered ones (both judged priorities): 1.1's first is in both
    assert runs == {"assess-samplerun1": (2, 12), "assess-samplerun2": (1, 6)}


def test_a_run_of_a_priority_not_judged_is_not_pooled(judged):
    sample, *_ = judged
    Run.objects.filter(tag="assess-samplerun2").update(priority=3)
    runs = {run.tag: p for run, p in progress.evaluation_progress(sample.evaluation)["runs"]}
    assert runs["assess-samplerun2"] is None and runs["assess-samplerun1"].total == 12


def test_run_items_agree_with_the_pool_whether_found_by_link_or_by_key(loaded, monkeypatch):
    """BOLT keeps no link rows: a run's items are found again by key, in SQL on PostgreSQL, else in Python."""
    items = PoolItem.objects.filter(evaluation=loaded)
    expected = {}
    for item_id, lines in item_sources(loaded, items).items():
        for entry in lines:
            expected.setdefault(entry.run_id, set()).add(item_id)
    assert len(expected) == 3 and run_items(loaded) == expected
    monkeypatch.setattr(citation_format, "POOL_KEY_SQL", None)
    assert run_items(loaded) == expected


def test_bolt_grouping_views_are_not_counted_as_citations_to_judge(loaded, make_user):
    load(loaded, "alpha1-groups.xml")
    topic = loaded.topics.get(ident="1.001")
    assert bolt_judging.grouping_views(topic)  # the view's pool item exists
    user = make_user("bea", "assessor")
    assignment = Assignment.objects.create(evaluation=loaded, topic=topic, assessor=user)
    citations = len(bolt_judging.citation_items(topic))
    assert progress.assignment_progress([assignment])[assignment.pk] == (0, citations)
    rows = {q.ident: p.total for q, p in progress.evaluation_progress(loaded)["questions"]}
    assert rows["1.001"] == citations


def test_assessor_sees_progress_per_assignment_and_overall(client, judged):
    _, primary, _ = judged
    client.login(username="prim", password=PASSWORD)
    body = client.get(reverse("assess:my_assignments")).content.decode()
    overall = body.split('id="overall-progress"')[1].split("</p>")[0]
    assert '<progress max="12" value="2"' in overall and "10 items left" in overall
    assert "20 s per item" in overall and "about 3 min to go at this pace" in overall
    row = body.split('data-assignment="')[1].split("</tr>")[0]
    assert '<progress max="12" value="2"' in row and "<td>10</td>" in row and "<td>20 s</td>" in row

    mine = Assignment.objects.get(assessor=primary)
    series = client.get(reverse("qa:assignment", args=[mine.pk])).content.decode()
    summary = series.split('id="series-progress"')[1].split("</p>")[0]
    assert '<progress max="12" value="2"' in summary and "10 items left" in summary and "20 s per item" in summary
    assert '<progress max="4" value="2" aria-label="1.1"' in series


def test_organizer_sees_bars_on_the_evaluation_page(client, judged, organizer):
    sample, *_ = judged
    client.login(username="org", password=PASSWORD)
    slug = sample.evaluation.slug
    page = client.get(reverse("pooling:evaluation_detail", args=[slug])).content.decode()
    # the evaluation page (pooling) loads the section from assess once it is there
    assert f'hx-get="{reverse("assess:evaluation_progress", args=[slug])}"' in page
    section = client.get(reverse("assess:evaluation_progress", args=[slug])).content.decode()
    assert '<progress max="4" value="2" aria-label="1.1"' in section
    assert '<progress max="12" value="2" aria-label="prim"' in section
    assert '<progress max="8" value="1" aria-label="sec"' in section
    assert '<progress max="6" value="1" aria-label="assess-samplerun2"' in section


def test_progress_section_is_for_organizers_only(client, judged):
    sample, *_ = judged
    client.login(username="prim", password=PASSWORD)
    assert client.get(reverse("assess:evaluation_progress", args=[sample.evaluation.slug])).status_code == 403
