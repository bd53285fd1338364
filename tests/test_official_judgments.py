"""The adjudicator's decision beats the primary judgment; second judgments alone never count."""
from assess.models import Judgment, Nugget
from assess.official import nugget_votes, official_values
from pooling.models import Evaluation, PoolItem, Topic


def test_official_values_prefer_adjudication(make_user):
    a, b, c = (make_user(n, "assessor") for n in "abc")
    evaluation = Evaluation.objects.create(slug="e", title="E", track="trec2007-qa")
    q = Topic.objects.create(evaluation=evaluation, ident="1.1", kind="LIST")
    items = [PoolItem.objects.create(evaluation=evaluation, topic=q, key=f"k{i}", docid=f"D{i}") for i in range(3)]

    def judge(item, who, role, label):
        Judgment.objects.create(evaluation=evaluation, topic=q, kind="instance", item=item, assessor=who,
                                role=role, value={"label": label})

    judge(items[0], a, "primary", "incorrect")
    judge(items[0], b, "secondary", "correct")
    judge(items[0], c, "adjudicated", "correct")
    judge(items[1], a, "primary", "non-exact")
    judge(items[2], b, "secondary", "correct")
    assert official_values([q.id], "instance") == {
        items[0].id: {"label": "correct"}, items[1].id: {"label": "non-exact"}}


def test_nugget_votes_collect_every_voter(make_user):
    a, b = make_user("a", "assessor"), make_user("b", "assessor")
    evaluation = Evaluation.objects.create(slug="e", title="E", track="trec2007-qa")
    q = Topic.objects.create(evaluation=evaluation, ident="1.4", kind="OTHER")
    n = Nugget.objects.create(topic=q, text="born in 1950", created_by=a)
    for who, vote, role in ((a, "vital", "primary"), (b, "okay", "secondary")):
        Judgment.objects.create(evaluation=evaluation, topic=q, kind="nugget_vote", nugget=n, assessor=who,
                                role=role, value={"vote": vote})
    assert sorted(nugget_votes([q.id])[n.id]) == ["okay", "vital"]


def test_two_decisions_of_the_same_rank_resolve_to_the_later_on_every_reading(make_user):
    """Stored before one decision per item was enforced: the later decision counts, whatever order rows come in."""
    from datetime import timedelta

    from django.utils import timezone

    from assess.official import official_fields

    a, c, d = (make_user(n, "assessor") for n in "acd")
    evaluation = Evaluation.objects.create(slug="e", title="E", track="trec2007-qa")
    q = Topic.objects.create(evaluation=evaluation, ident="1.1", kind="FACTOID")
    item = PoolItem.objects.create(evaluation=evaluation, topic=q, key="k", docid="D")
    now = timezone.now()
    for who, role, label, at in ((a, "primary", "incorrect", now),
                                 (c, "adjudicated", "globally-correct", now - timedelta(minutes=5)),
                                 (d, "adjudicated", "locally-correct", now)):
        j = Judgment.objects.create(evaluation=evaluation, topic=q, kind="instance", item=item, assessor=who,
                                    role=role, value={"label": label})
        Judgment.objects.filter(pk=j.pk).update(updated_at=at)  # auto_now would stamp them in creation order
    assert official_values([q.id], "instance") == {item.id: {"label": "locally-correct"}}
    assert official_fields([q.id], "instance", "label") == {item.id: ("locally-correct",)}
