"""Nugget proposals from a model server on QA's nugget workspace (issue 30, docs/assist.md "Nugget proposals"),
the server stood in for by a local HTTP server: the prompt reads the question's pooled answer strings; under
*reveal after* no proposal is in the question page, the workspace or the API before the primary marks their own
list done; then one is accepted (edited, with its vital/okay vote) and one rejected."""

import json

import pytest
from django.urls import reverse

from assess import assist, assist_client, assist_nuggets
from assess.models import Assignment, Judgment, Nugget, StructureChange
from tests.test_assist_model_server import completion, model_server, no_sleep, turn_on  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db
SECRET = "Founded-9f2e in 1909 by Eugene Schueller"
REPLY = json.dumps(
    {
        "nuggets": [
            {"text": SECRET, "importance": "vital"},
            {"text": "Headquartered in Clichy", "importance": "okay"},
        ],
        "rationale": "strings 1 and 3",
    }
)


def _views(client, assignment, question):
    return {
        "page": client.get(reverse("qa:question", args=[assignment.pk, question.pk])),
        "workspace": client.get(reverse("qa:nuggets", args=[assignment.pk, question.pk])),
        "api": client.get(reverse("api:topic_proposals", args=[question.pk])),
    }


def test_a_pass_reads_the_answer_strings_and_reveal_after_waits_for_the_own_list(client, sample, primary, model_server):
    question = sample.questions["1.3"]  # Other: a nugget question
    assist.set_design(sample.evaluation, unit="topic", conditions=["reveal_after"], seed=2)
    server = model_server((200, completion(REPLY), None))
    turn_on(sample.evaluation, server)
    series = question.parent
    rows = assist_client.suggest_topic(sample.evaluation, series, assist_nuggets.KIND, sleep=no_sleep)
    assert [r.topic for r in rows] == [question]  # of the series' questions, only the nugget one is asked
    (row,) = rows
    assert row.value["nuggets"][0] == {"text": SECRET, "importance": "vital"}
    prompt = server.requests[0]["body"]["messages"][0]["content"]
    strings = list(dict.fromkeys(i.text for i in sample.items["1.3"]))
    assert all(f"] {s}" in prompt for s in strings) and f"[{len(strings)}] " in prompt
    assert f"Request: {question.text}" in prompt

    assignment = Assignment.objects.get(assessor=primary)
    client.force_login(primary)
    for name, response in _views(client, assignment, question).items():
        assert response.status_code == 200 and SECRET not in response.content.decode(), name
    assert "My own list is done" in _views(client, assignment, question)["workspace"].content.decode()
    guessed = client.post(reverse("qa:proposal", args=[assignment.pk, question.pk, row.pk, 1, "accept"]))
    assert guessed.status_code == 400 and SECRET not in guessed.content.decode()
    own = client.post(reverse("qa:nugget_create", args=[assignment.pk, question.pk]), {"text": "A cosmetics company"})
    assert own.status_code == 200 and SECRET not in own.content.decode()

    done = client.post(reverse("qa:nuggets_done", args=[assignment.pk, question.pk]))
    assert done.status_code == 200 and SECRET in done.content.decode()
    for name, response in _views(client, assignment, question).items():
        assert SECRET in response.content.decode(), name
    taken = client.post(
        reverse("qa:proposal", args=[assignment.pk, question.pk, row.pk, 1, "accept"]),
        {"text": "Founded in 1909", "importance": "okay"},
    )
    assert taken.status_code == 200 and "from the proposals" in taken.content.decode()
    assert SECRET not in taken.content.decode() and "Proposed by the model server (1)" in taken.content.decode()
    client.post(reverse("qa:proposal", args=[assignment.pk, question.pk, row.pk, 2, "reject"]))
    nuggets = list(Nugget.objects.filter(topic=question).order_by("position"))
    assert [n.text for n in nuggets] == ["A cosmetics company", "Founded in 1909"]
    vote = Judgment.objects.get(nugget=nuggets[1], kind="nugget_vote")
    assert (vote.assessor, vote.value) == (primary, {"vote": "okay"})
    assert client.get(reverse("api:topic_proposals", args=[question.pk])).json()["proposals"]["nuggets"] == []
    actions = list(StructureChange.objects.filter(topic=question).order_by("id").values_list("action", flat=True))
    assert actions == [
        "nugget.create",
        "nugget.list_done",
        "nugget.proposal_accepted",
        "nugget.create",
        "nugget.proposal_rejected",
    ]


def test_the_api_marks_the_list_done_for_the_primary_only(client, sample, primary, make_user):
    question = sample.questions["1.3"]
    other = make_user("other", "assessor")
    client.force_login(other)
    assert client.post(reverse("api:topic_proposals", args=[question.pk])).status_code == 404  # not theirs
    client.force_login(primary)
    first = client.post(reverse("api:topic_proposals", args=[question.pk]))
    assert first.status_code == 200 and first.json() == {"topic": question.ident, "list_done": True, "new": True}
    assert client.post(reverse("api:topic_proposals", args=[question.pk])).json()["new"] is False
    assert StructureChange.objects.filter(action="nugget.list_done").count() == 1


def test_the_keys_accept_and_reject_a_proposal_are_on_the_nugget_page():
    from tracks.qa import keys

    actions = {key.action: key.keys for key, _ in keys.NUGGETS.keys}
    assert actions["yes"] == ("y",) and actions["no"] == ("n",)


def test_the_report_counts_a_qa_questions_proposals_by_its_series_primary(client, sample, primary, make_user):
    """QA logs no `from` on a nugget's creation: an edit is told by the created text differing from the proposal's
    (assess.assist_report.nugget_facts). By hand: 1 own nugget, 2 shown, #1 accepted edited, #2 pending."""
    from assess import assist_report
    from assess.models import Suggestion
    from tracks.qa import nugget_judging

    question = sample.questions["1.3"]
    assist.set_design(sample.evaluation, unit="topic", conditions=["suggest_first"], seed=2)
    nugget_judging.create_nugget(primary, question, "A cosmetics company")
    row = Suggestion.objects.create(
        evaluation=sample.evaluation,
        topic=question,
        kind=assist_nuggets.KIND,
        value={"nuggets": json.loads(REPLY)["nuggets"]},
        source="model",
        source_name="tiny-instruct",
    )
    assert assist_nuggets.visible(primary, question).state == "shown"
    nugget_judging.accept_proposal(primary, question, row.pk, 0, text="Founded in 1909 by Eugene Schueller")
    rows = assist_report.report(sample.evaluation, "nugget_proposals")
    mine = [r for r in rows if r["assessor"] == primary.username]
    assert mine == [
        {
            "condition": "suggest_first",
            "assessor": primary.username,
            "topics": 1,
            "own_nuggets": 1,
            "proposals_shown": 2,
            "accepted": 0,
            "accepted_edited": 1,
            "rejected": 0,
            "pending": 1,
            "from_proposals_share": 0.5,
            "from_proposals": 1,
            "final_nuggets": 2,
        }
    ]
