"""BOLT adjudication: which citations go to the queue, who may see and decide them, how a decision is stored, and
that the decision (not the primary's judgment) then drives the character measures and the export."""

from pathlib import Path

import pytest
from django.urls import reverse
from lxml import etree

from assess import judging as generic
from assess.models import Assignment, Invitation, Judgment, JudgmentChange
from assess.official import official_values
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.models import Run, StaleTopic
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tests.conftest import PASSWORD
from tracks.bolt import adjudication as adj
from tracks.bolt import judging

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "bolt"


def build_disagreements(make_user, slug="bolt-adj"):
    """Topic 1.001 judged by two assessors: the fare citation differs in relevance, the taxi citation in its
    relevant part, the metro citation only in translation; the women's car citation only the primary judged."""
    load_collection("bolt-adj-forum", "bolt-forum", [str(FIXTURES / "forum.xml")])
    ev = create_evaluation(slug, "bolt-ir-p2", ["bolt-adj-forum"])
    load_topics(ev, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    for names, team in ((("alpha1.xml", "alpha2.xml"), "Team Alpha"), (("beta1.xml",), "Team Beta")):
        results = load_run_files(
            ev, [RunFile(filename=n, data=(FIXTURES / n).read_bytes(), team=team, priority=1) for n in names]
        )
        assert all(not r.problems for r in results)
    build_pools(ev)
    topic = ev.topics.get(ident="1.001")
    first, second = make_user("adj-a1", "assessor"), make_user("adj-a2", "assessor")
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=first)
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=second, role=Assignment.SECONDARY)
    items = {i.text[:12]: i for i in judging.citation_items(topic)}
    fare, taxi, metro, women = (
        items["The fare is "],
        items["Taxi drivers"],
        items["The metro is"],
        items["The women's "],
    )
    judge = judging.judge_citation
    judge(first, fare, {"rel": "no"}, 0)  # relevance differs
    judge(second, fare, {"rel": "yes", "trans": "accept", "chksrc": True, "relspans": [[12, 21]]}, 0)
    judge(first, taxi, {"rel": "yes", "relspans": [[0, 20]]}, 0)  # both relevant, different parts
    judge(second, taxi, {"rel": "yes"}, 0)
    judge(first, metro, {"rel": "yes", "trans": "accept"}, 0)  # only the translation differs
    judge(second, metro, {"rel": "yes", "trans": "notaccept", "relspans": [[0, len(metro.text)]]}, 0)
    judge(first, women, {"rel": "maybe"}, 0)  # only the primary judged it
    return {
        "ev": ev,
        "topic": topic,
        "first": first,
        "second": second,
        "fare": fare,
        "taxi": taxi,
        "metro": metro,
        "women": women,
    }


@pytest.fixture
def setup(db, make_user):
    return build_disagreements(make_user)


def invite(ev, user, make_user):
    generic.invite(make_user("adj-inviter", "organizer"), ev, user, Invitation.ADJUDICATOR)


def login(client, user):
    client.login(username=user.username, password=PASSWORD)
    return client


def test_what_counts_as_a_disagreement():
    assert adj.disagreement({"rel": "yes"}, {"rel": "maybe"}, 10) == adj.RELEVANCE
    assert adj.disagreement({"rel": "no"}, {"rel": "maybe"}, 10) == adj.RELEVANCE
    assert adj.disagreement({"rel": "yes", "relspans": [[0, 3]]}, {"rel": "yes"}, 10) == adj.RELEVANT_PART
    assert (
        adj.disagreement({"rel": "maybe", "relspans": [[0, 3]]}, {"rel": "maybe", "relspans": [[1, 3]]}, 10)
        == adj.RELEVANT_PART
    )
    # The same relevant characters, however marked; translation and source checked do not count.
    assert (
        adj.disagreement({"rel": "yes", "relspans": [[0, 5], [5, 5]]}, {"rel": "yes", "relspans": [[0, 10]]}, 10)
        is None
    )
    assert adj.disagreement({"rel": "yes", "relspans": [[0, 10]]}, {"rel": "yes"}, 10) is None
    assert (
        adj.disagreement(
            {"rel": "yes", "trans": "accept", "chksrc": True}, {"rel": "yes", "trans": "notaccept", "chksrc": False}, 10
        )
        is None
    )
    assert adj.disagreement({"rel": "no"}, {"rel": "no", "trans": "accept"}, 10) is None
    assert adj.passage_segments("abcdefgh", [[2, 2], [3, 2]]) == [("ab", False), ("cde", True), ("fgh", False)]
    assert adj.passage_segments("abc", []) == [("abc", False)]


def test_queue_lists_relevance_and_relevant_part_disagreements(setup, make_user, client):
    rows = adj.adjudication_queue(setup["ev"])
    assert [(item.pk, item.reason) for item, *_ in rows] == [
        (setup["fare"].pk, adj.RELEVANCE),
        (setup["taxi"].pk, adj.RELEVANT_PART),
    ]
    item, primary, secondary, decided = rows[0]
    assert (primary.assessor, secondary.assessor, decided) == (setup["first"], setup["second"], None)
    # The topic's own assessors never see it in their queue, even when invited to adjudicate.
    invite(setup["ev"], setup["first"], make_user)
    assert adj.adjudication_queue(setup["ev"], user=setup["first"]) == []
    # The organizer's pages lead to it: the judging overview counts it, the agreement page links it.
    org = login(client, make_user("adj-org", "organizer"))
    queue_url = reverse("bolt:adjudication", args=["bolt-adj"])
    overview = org.get(reverse("assess:organize", args=["bolt-adj"])).content.decode()
    assert f'href="{queue_url}" id="adjudication-link"' in overview and "2 open of 2 disagreements" in overview
    assert f'href="{queue_url}"' in org.get(reverse("bolt:agreement", args=["bolt-adj"])).content.decode()
    assert f'href="{queue_url}"' in org.get(reverse("pooling:evaluation_detail", args=["bolt-adj"])).content.decode()
    page = org.get(queue_url).content.decode()
    assert "2 of 2 disagreements open" in page
    assert setup["fare"].pool_id in page and setup["taxi"].pool_id in page
    assert setup["metro"].pool_id not in page and setup["women"].pool_id not in page


def test_who_may_see_and_decide(setup, make_user, client):
    ev, fare = setup["ev"], setup["fare"]
    queue_url = reverse("bolt:adjudication", args=["bolt-adj"])
    decide_url = reverse("bolt:adjudicate", args=["bolt-adj", fare.pk])
    body = {"version": 0, "rel": "yes"}
    assert client.get(queue_url).status_code == 302  # anonymous: to the login page
    login(client, make_user("adj-part", "participant", team="Team Alpha"))
    assert client.get(queue_url).status_code == 403 and client.get(decide_url).status_code == 403
    assert client.post(decide_url, body).status_code == 403
    login(client, make_user("adj-stranger", "assessor"))  # an assessor nobody invited
    assert client.get(queue_url).status_code == 404 and client.get(decide_url).status_code == 404
    assert client.post(decide_url, body).status_code == 404
    # The topic's primary assessor, even when invited: the disagreement is not theirs to see or decide.
    invite(ev, setup["first"], make_user)
    login(client, setup["first"])
    assert fare.pool_id not in client.get(queue_url).content.decode()
    assert client.get(decide_url).status_code == 404 and client.post(decide_url, body).status_code == 404
    with pytest.raises(generic.Forbidden):
        adj.adjudicate_citation(setup["first"], fare, {"rel": "yes"}, 0)
    login(client, setup["second"])  # the second assessor is not invited
    assert client.get(decide_url).status_code == 404 and client.post(decide_url, body).status_code == 404
    assert not Judgment.objects.filter(role=Judgment.ADJUDICATED).exists()
    # An invited adjudicator who judged nothing sees the passage, both judgments and the topic's rules.
    invited = make_user("adj-third", "assessor")
    invite(ev, invited, make_user)
    login(client, invited)
    page = client.get(decide_url).content.decode()
    assert "Opinions of taxi drivers" in page and 'id="primary-judgment"' in page
    assert '<mark class="relspan">too high for students</mark>' in page  # the second's relspan, in the passage
    assert f"/corpus/bolt-adj-forum/frame/{fare.docid}/?s=p2%3A154%3A72#mark-1" in page.replace("&amp;", "&")
    assert client.post(decide_url, body).status_code == 302


def test_a_decision_is_stored_with_history_and_refuses_stale_and_rival_saves(setup, make_user, client):
    fare, topic = setup["fare"], setup["topic"]
    org = make_user("adj-org", "organizer")
    rescore_evaluation(setup["ev"].pk)
    assert not StaleTopic.objects.filter(topic=topic).exists()
    url = reverse("bolt:adjudicate", args=["bolt-adj", fare.pk])
    login(client, org)
    r = client.post(url, {"version": 0, "rel": "maybe", "trans": "problematic", "chksrc": "1", "spans": "secondary"})
    assert r.status_code == 302 and r["Location"] == url + "?decided=1"
    decided = Judgment.objects.get(item=fare, role=Judgment.ADJUDICATED)
    assert decided.assessor == org and decided.kind == "citation" and decided.version == 1
    assert decided.value == {"rel": "maybe", "trans": "problematic", "chksrc": True, "relspans": [[12, 21]]}
    assert StaleTopic.objects.filter(topic=topic).exists()  # scores will be recomputed
    page = client.get(r["Location"]).content.decode()
    assert "Decided (version 1)." in page and "version 1: adj-org" in page
    stale = client.post(url, {"version": 0, "rel": "no"})  # another tab still saw no decision
    assert stale.status_code == 409 and "changed elsewhere" in stale.content.decode()
    r = client.post(url, {"version": 1, "adopt": "primary"})  # take the primary's judgment whole
    assert r.status_code == 302
    decided.refresh_from_db()
    assert decided.value == {"rel": "no", "trans": "na", "chksrc": False, "relspans": []} and decided.version == 2
    history = list(JudgmentChange.objects.filter(judgment=decided).order_by("version"))
    assert [(c.before and c.before["rel"], c.after["rel"], c.changed_by) for c in history] == [
        (None, "maybe", org),
        ("maybe", "no", org),
    ]
    bad = client.post(url, {"version": 2, "rel": "perhaps"})
    assert bad.status_code == 400 and "rel must be one of" in bad.content.decode()
    # A second adjudicator cannot add a rival decision: one decision per citation.
    rival = make_user("adj-rival", "organizer")
    login(client, rival)
    assert client.post(url, {"version": 2, "rel": "yes"}).status_code == 409
    assert Judgment.objects.filter(item=fare, role=Judgment.ADJUDICATED).count() == 1
    # Only a citation both assessors judged can be decided.
    with pytest.raises(generic.NotInQueue, match="not been judged by both"):
        adj.adjudicate_citation(org, setup["women"], {"rel": "yes"}, 0)


def test_the_decision_drives_the_scores_and_the_export(setup, make_user, django_capture_on_commit_callbacks):
    ev, topic, fare = setup["ev"], setup["topic"], setup["fare"]
    org = make_user("adj-org", "organizer")
    rescore_evaluation(ev.pk)

    def alpha2(measure):
        return Score.objects.get(run__tag="alpha2", scope=Score.SERIES, topic=topic, measure=measure).value

    # The primary said no to the fare citation (the second's yes does not count): alpha2's 72 + 52 characters
    # hold nothing relevant.
    assert alpha2("char_precision") == 0.0
    with django_capture_on_commit_callbacks(execute=True):  # the commit rescores the topic (eager in tests)
        adj.adjudicate_citation(org, fare, {"rel": "yes", "trans": "accept", "chksrc": True}, 0)
    assert alpha2("char_precision") == pytest.approx(72 / 124)
    assert official_values([topic.pk], "citation")[fare.pk]["rel"] == "yes"
    with django_capture_on_commit_callbacks(execute=True):  # only "too high for students" is relevant
        adj.adjudicate_citation(org, fare, {"rel": "yes", "trans": "accept", "relspans": [[12, 21]]}, 1)
    assert alpha2("char_precision") == pytest.approx(21 / 124)
    xml = judging.export_run(Run.objects.get(tag="alpha2"))
    cite = etree.fromstring(xml).find("response").findall("cite")[0]
    assert cite.get("rel") == "yes" and [r.text for r in cite.findall("relspan")] == ["too high for students"]


def test_command_lists_the_queue_and_decides(setup, make_user, capsys):
    from django.core.management import CommandError, call_command

    make_user("adj-org", "organizer")
    fare, taxi = setup["fare"], setup["taxi"]
    call_command("bolt_adjudicate", "bolt-adj")
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[:5] for line in lines] == [
        [fare.pool_id, "relevance", "adj-a1: no", "adj-a2: yes (part)", "open"],
        [taxi.pool_id, "relevant part", "adj-a1: yes (part)", "adj-a2: yes", "open"],
    ]
    call_command("bolt_adjudicate", "bolt-adj", taxi.pool_id, "--by", "adj-org", "--rel", "maybe", "--spans", "primary")
    assert "decided maybe (version 1) by adj-org" in capsys.readouterr().out
    assert Judgment.objects.get(item=taxi, role=Judgment.ADJUDICATED).value["relspans"] == [[0, 20]]
    call_command("bolt_adjudicate", "bolt-adj", taxi.pool_id, "--by", "adj-org", "--adopt", "secondary")
    assert Judgment.objects.get(item=taxi, role=Judgment.ADJUDICATED).version == 2
    invite(setup["ev"], setup["first"], make_user)
    with pytest.raises(CommandError, match="judged topic 1.001 yourself"):
        call_command("bolt_adjudicate", "bolt-adj", fare.pool_id, "--by", "adj-a1", "--rel", "yes")
    with pytest.raises(CommandError, match="not among the disagreements"):
        call_command("bolt_adjudicate", "bolt-adj", setup["metro"].pool_id, "--by", "adj-org", "--rel", "yes")


def test_untrusted_passage_is_escaped(setup, make_user, client):
    from pooling.models import PoolItem

    fare = setup["fare"]
    PoolItem.objects.filter(pk=fare.pk).update(text="<script>alert(1)</script> the fare is too high for us")
    login(client, make_user("adj-org", "organizer"))
    for url in (
        reverse("bolt:adjudication", args=["bolt-adj"]),
        reverse("bolt:adjudicate", args=["bolt-adj", fare.pk]),
    ):
        page = client.get(url).content.decode()
        assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
