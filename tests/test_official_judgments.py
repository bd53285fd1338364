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
        Judgment.objects.create(
            evaluation=evaluation, topic=q, kind="instance", item=item, assessor=who, role=role, value={"label": label}
        )

    judge(items[0], a, "primary", "incorrect")
    judge(items[0], b, "secondary", "correct")
    judge(items[0], c, "adjudicated", "correct")
    judge(items[1], a, "primary", "non-exact")
    judge(items[2], b, "secondary", "correct")
    assert official_values([q.id], "instance") == {
        items[0].id: {"label": "correct"},
        items[1].id: {"label": "non-exact"},
    }


def test_nugget_votes_collect_every_voter(make_user):
    a, b = make_user("a", "assessor"), make_user("b", "assessor")
    evaluation = Evaluation.objects.create(slug="e", title="E", track="trec2007-qa")
    q = Topic.objects.create(evaluation=evaluation, ident="1.4", kind="OTHER")
    n = Nugget.objects.create(topic=q, text="born in 1950", created_by=a)
    for who, vote, role in ((a, "vital", "primary"), (b, "okay", "secondary")):
        Judgment.objects.create(
            evaluation=evaluation, topic=q, kind="nugget_vote", nugget=n, assessor=who, role=role, value={"vote": vote}
        )
    assert sorted(nugget_votes([q.id])[n.id]) == ["okay", "vital"]


def test_two_decisions_of_the_same_rank_resolve_to_the_one_stored_last_on_every_reading(make_user):
    """Stored before one decision per item was enforced: the decision stored last counts on every reading."""
    from assess.official import official_fields

    a, c, d = (make_user(n, "assessor") for n in "acd")
    evaluation = Evaluation.objects.create(slug="e", title="E", track="trec2007-qa")
    q = Topic.objects.create(evaluation=evaluation, ident="1.1", kind="FACTOID")
    item = PoolItem.objects.create(evaluation=evaluation, topic=q, key="k", docid="D")
    stored = {}
    for who, role, label in (
        (d, "adjudicated", "locally-correct"),
        (a, "primary", "incorrect"),
        (c, "adjudicated", "globally-correct"),
    ):
        stored[label] = Judgment.objects.create(
            evaluation=evaluation, topic=q, kind="instance", item=item, assessor=who, role=role, value={"label": label}
        )
    # rewrite the row stored last, so a scan meets it after the other decision: arrival order must not decide
    Judgment.objects.filter(pk=stored["globally-correct"].pk).update(value={"label": "globally-correct"})
    assert official_values([q.id], "instance") == {item.id: {"label": "globally-correct"}}
    assert official_fields([q.id], "instance", "label") == {item.id: ("globally-correct",)}
