"""The primary assessor's later vote set (TREC 2006/2007: nine vote sets from eight assessors, the primary voting
twice): asked for by the organizer, stored as "nugget_revote" judgments with versions and history, counted as one
more vote set in the pyramid weights while the primary's first vote stays the official vital/okay."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from assess import judging
from assess.models import Invitation, Judgment, JudgmentChange, Nugget
from assess.official import REVOTE, VOTE, nugget_vote_sets, nugget_votes, official_values
from scoring.judgments_jsonl import ImportFailed, export_jsonl, import_jsonl
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tracks.qa import measures as qa
from tracks.qa import nugget_judging
from tracks.qa.nist_exports import nist_nuggets
from tracks.qa.sample import build_sample

# Vital votes per nugget over the nine vote sets; the sets vote vital in this order: the primary's later set
# first, then the primary's first set, then the seven invited voters. So nuggets 6-8 (count 1) are vital only
# in the later set: they weigh 1/9 while their official vote (the first) stays okay.
COUNTS = [9, 8, 7, 6, 2, 1, 1, 1, 0]
NUGGET_TEXTS = [f"nugget number {i}" for i in range(1, 10)]


@pytest.fixture
def nine(sample, primary, organizer, make_user):
    """Nine nuggets on Other question 1.3 voted by nine vote sets with vital counts COUNTS."""
    q, series = sample.questions["1.3"], sample.series[0]
    nuggets = [nugget_judging.create_nugget(primary, q, text) for text in NUGGET_TEXTS]
    voters = [make_user(f"voter{i}", "assessor") for i in range(1, 8)]
    for v in voters:
        judging.invite(organizer, sample.evaluation, v, Invitation.VOTER, series)
    judging.ask_revote(organizer, series)
    sets = [(primary, True), (primary, False)] + [(v, False) for v in voters]
    for n, count in zip(nuggets, COUNTS):
        for j, (who, later) in enumerate(sets):
            nugget_judging.vote(who, n, "vital" if j < count else "okay", 0, later=later)
    # run 1 returns all four strings: string 1 holds nugget 1 (count 9), string 2 nugget 6 (count 1, later set)
    for item, held in zip(sample.items["1.3"][:2], ([nuggets[0].pk], [nuggets[5].pk])):
        nugget_judging.match(primary, judging.load_item(primary, item.pk), held, 0)
    return q, nuggets


def test_nine_vote_sets_weigh_the_pyramid_while_the_first_vote_stays_official(sample, primary, nine):
    q, nuggets = nine
    official, votes = nugget_vote_sets([q.pk])
    assert [sum(v == "vital" for v in votes[n.pk]) for n in nuggets] == COUNTS
    assert all(len(votes[n.pk]) == 9 for n in nuggets)
    assert nugget_votes([q.pk]) == votes
    # official vital/okay: the primary's first vote (vital where at least 2 sets said vital)
    assert [official[n.pk] for n in nuggets] == ["vital"] * 5 + ["okay"] * 4
    assert {n: v["vote"] for n, v in official_values([q.pk], VOTE).items()} == official
    weights = qa.pyramid_weights({n.pk: COUNTS[i] for i, n in enumerate(nuggets)})
    assert [round(weights[n.pk], 4) for n in nuggets] == [
        1.0,
        0.8889,
        0.7778,
        0.6667,
        0.2222,
        0.1111,
        0.1111,
        0.1111,
        0.0,
    ]
    # the NIST nugget list: official vote, weight over all nine sets
    lines = "".join(nist_nuggets(sample.evaluation)).splitlines()
    assert lines == [
        "1.3 1 vital 1.0000 nugget number 1",
        "1.3 2 vital 0.8889 nugget number 2",
        "1.3 3 vital 0.7778 nugget number 3",
        "1.3 4 vital 0.6667 nugget number 4",
        "1.3 5 vital 0.2222 nugget number 5",
        "1.3 6 okay 0.1111 nugget number 6",
        "1.3 7 okay 0.1111 nugget number 7",
        "1.3 8 okay 0.1111 nugget number 8",
        "1.3 9 okay 0.0000 nugget number 9",
    ]
    # the primary's two sets are two judgments per nugget, both the primary's, each with its history
    mine = Judgment.objects.filter(nugget=nuggets[0], assessor=primary)
    assert sorted(mine.values_list("kind", "role", "value")) == [
        (REVOTE, "primary", {"vote": "vital"}),
        (VOTE, "primary", {"vote": "vital"}),
    ]
    later = mine.get(kind=REVOTE)
    assert list(JudgmentChange.objects.filter(judgment=later).values_list("version", "after", "changed_by")) == [
        (1, {"vote": "vital"}, primary.pk)
    ]


def _other_score(sample):
    run = sample.evaluation.runs.get(tag="assess-samplerun1")
    return Score.objects.get(run=run, scope="question", topic=sample.questions["1.3"], measure="score")


def test_the_later_vote_changes_the_scored_pyramid_f(sample, primary, nine):
    q, nuggets = nine
    rescore_evaluation(sample.evaluation.pk)
    before = _other_score(sample)
    # matched: nugget 1 (9 vital votes) and nugget 6 (1, the later set's): recall (9 + 1) / 35
    assert before.detail["pyramid_recall"] == pytest.approx(10 / 35)
    assert before.detail["binary_recall"] == pytest.approx(1 / 5)  # nugget 6 is okay officially
    later = Judgment.objects.get(nugget=nuggets[5], assessor=primary, kind=REVOTE)
    saved = nugget_judging.vote(primary, nuggets[5], "okay", later.version, later=True)
    assert saved.judgment.version == 2 and saved.judgment.kind == REVOTE
    rescore_evaluation(sample.evaluation.pk)
    after = _other_score(sample)
    assert after.detail["pyramid_recall"] == pytest.approx(9 / 34)
    assert after.detail["pyramid_f"] != pytest.approx(before.detail["pyramid_f"])
    assert after.value == pytest.approx(after.detail["pyramid_f"]) and after.value < before.value
    assert after.detail["binary_f"] == pytest.approx(before.detail["binary_f"])  # the first vote did not change
    assert nugget_vote_sets([q.pk])[0][nuggets[5].pk] == "okay"
    # and the later vote back to vital restores the score
    nugget_judging.vote(primary, nuggets[5], "vital", 2, later=True)
    rescore_evaluation(sample.evaluation.pk)
    assert _other_score(sample).value == pytest.approx(before.value)


def test_the_later_set_needs_the_organizers_request(sample, primary, organizer, make_user):
    q = sample.questions["1.3"]
    n = nugget_judging.create_nugget(primary, q, "founded in 1909")
    voter = make_user("voter", "assessor")
    judging.invite(organizer, sample.evaluation, voter, Invitation.VOTER, sample.series[0])
    with pytest.raises(judging.Forbidden, match="not asked you for a later vote set"):
        nugget_judging.vote(primary, n, "vital", 0, later=True)
    with pytest.raises(judging.Forbidden):
        judging.ask_revote(primary, sample.series[0])  # only organizers ask
    judging.ask_revote(organizer, sample.series[0])
    with pytest.raises(judging.Forbidden, match="not asked you"):
        nugget_judging.vote(voter, n, "vital", 0, later=True)  # an invited voter has one set only
    nugget_judging.vote(primary, n, "okay", 0)
    nugget_judging.vote(primary, n, "vital", 0, later=True)
    with pytest.raises(judging.StaleJudgment):
        nugget_judging.vote(primary, n, "okay", 0, later=True)  # another tab saw no later vote yet
    judging.close_question(organizer, q)
    with pytest.raises(judging.QuestionClosed):
        nugget_judging.vote(primary, n, "okay", 1, later=True)
    assert sorted(Judgment.objects.filter(nugget=n).values_list("kind", "assessor__username", "value")) == [
        (REVOTE, "prim", {"vote": "vital"}),
        (VOTE, "prim", {"vote": "okay"}),
    ]


def test_voting_page_says_which_set_and_never_shows_responses(client, sample, primary, organizer):
    q = sample.questions["1.3"]
    n = nugget_judging.create_nugget(primary, q, "founded in 1909")
    nugget_judging.vote(primary, n, "vital", 0)
    client.force_login(primary)
    url = reverse("qa:vote_series", args=[sample.series[0].pk])
    page = client.get(url).content.decode()
    assert 'data-set="first"' in page and "Your first vote set" in page and 'name="set"' not in page
    assert "vote-btn current" in page  # the first vote is the one shown on the first set's page
    judging.ask_revote(organizer, sample.series[0])
    home = client.get(reverse("assess:my_assignments")).content.decode()
    assert "Vote again (your later vote set) on the nuggets of series 1" in home
    page = client.get(url).content.decode()
    assert 'data-set="later"' in page and "Your later vote set" in page
    assert 'name="set" value="later"' in page and "founded in 1909" in page
    assert "vote-btn current" not in page  # the first votes are not shown while voting the later set
    for answer in ("headquartered in Paris", "Chanel No. 5 is its top-selling perfume"):
        assert answer not in page  # responses are never shown
    r = client.post(reverse("qa:vote", args=[n.pk]), {"vote": "okay", "version": 0, "set": "later"})
    assert r.status_code == 200 and 'name="set" value="later"' in r.content.decode()
    r = client.post(reverse("qa:vote", args=[n.pk]), {"vote": "vital", "version": 0, "set": "later"})
    assert r.status_code == 409 and "changed elsewhere" in r.content.decode()
    values = dict(Judgment.objects.filter(nugget=n, assessor=primary).values_list("kind", "value"))
    assert values == {VOTE: {"vote": "vital"}, REVOTE: {"vote": "okay"}}
    page = client.get(url).content.decode()
    assert page.count("vote-btn current") == 1 and 'value="okay" class="vote-btn current"' in page


def test_organizer_asks_for_a_later_set_in_the_browser_and_by_command(client, sample, primary, organizer, make_user):
    client.force_login(organizer)
    r = client.post(reverse("assess:revote", args=[sample.evaluation.slug]), {"series": sample.series[0].pk})
    assert r.status_code == 302
    assert Invitation.objects.filter(user=primary, topic=sample.series[0], kind=Invitation.VOTER).exists()
    page = client.get(reverse("assess:organize", args=[sample.evaluation.slug])).content.decode()
    assert 'id="revote-form"' in page and "Later vote set of the primary: prim on series 1" in page
    Invitation.objects.all().delete()
    client.force_login(primary)  # an assessor cannot ask for it
    assert (
        client.post(
            reverse("assess:revote", args=[sample.evaluation.slug]), {"series": sample.series[0].pk}
        ).status_code
        == 403
    )
    assert not Invitation.objects.exists()

    out = StringIO()
    call_command("judging", "revote", sample.evaluation.slug, "1", "--by", "org", stdout=out)
    assert "asked prim, primary of series 1, for a later vote set" in out.getvalue()
    assert Invitation.objects.get().user == primary
    other = build_sample(slug="no-primary")
    with pytest.raises(CommandError, match="no primary assessor"):
        call_command("judging", "revote", other.evaluation.slug, "1", "--by", "org", stdout=StringIO())


def test_jsonl_carries_the_later_set_and_import_checks_the_kind(sample, primary, nine):
    from tests.test_scoring_exports import _copy_without_judgments

    q, nuggets = nine
    text = "".join(export_jsonl(sample.evaluation))
    records = [json.loads(line) for line in text.splitlines()]
    revotes = [r for r in records if r["type"] == "judgment" and r["kind"] == REVOTE]
    assert len(revotes) == 9 and {r["assessor"] for r in revotes} == {"prim"}
    assert all(r["role"] == "primary" and r["history"][0]["after"] == r["value"] for r in revotes)
    copy = _copy_without_judgments(sample.evaluation, "copy")
    counts = import_jsonl(copy, text.splitlines(keepends=True))
    assert counts["judgment"] == len([r for r in records if r["type"] == "judgment"])
    copied_q = copy.topics.get(ident="1.3")
    by_text = dict(Nugget.objects.filter(topic=copied_q).values_list("text", "pk"))

    def sets(question, ids):
        official, votes = nugget_vote_sets([question.pk])
        return [(official[i], sorted(votes[i])) for i in ids]

    assert sets(copied_q, [by_text[t] for t in NUGGET_TEXTS]) == sets(q, [n.pk for n in nuggets])
    assert JudgmentChange.objects.filter(judgment__evaluation=copy, judgment__kind=REVOTE).count() == 9

    header = next(line for line in text.splitlines() if '"header"' in line)
    nugget = next(line for line in text.splitlines() if '"type": "nugget"' in line)
    nid = json.loads(nugget)["id"]
    bad_kind = json.dumps(
        {
            "type": "judgment",
            "topic": "1.3",
            "kind": "nugget_veto",
            "nugget": nid,
            "assessor": "prim",
            "role": "primary",
            "value": {"vote": "vital"},
        }
    )
    on_item = json.dumps(
        {
            "type": "judgment",
            "topic": "1.3",
            "kind": REVOTE,
            "item": {"topic": "1.3", "key": sample.items["1.3"][0].key},
            "assessor": "prim",
            "role": "primary",
            "value": {"vote": "vital"},
        }
    )
    for line, message in (
        (bad_kind, "judgment kind 'nugget_veto' is not one of track trec2007-qa"),
        (on_item, "a nugget_revote judgment is on a nugget"),
    ):
        empty = _copy_without_judgments(sample.evaluation, f"bad{len(message)}")
        with pytest.raises(ImportFailed, match=f"f.jsonl:3: {message}"):
            import_jsonl(empty, [header, nugget, line], filename="f.jsonl")
        assert not Judgment.objects.filter(evaluation=empty).exists()
