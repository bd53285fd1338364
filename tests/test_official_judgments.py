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
