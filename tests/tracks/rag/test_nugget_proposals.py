"""Nugget proposals from a model server on TREC RAG's nugget page (issue 30, docs/assist.md "Nugget proposals"),
the server stood in for by a local HTTP server (no network): the prompt reads the segments judged relevant, the
reply is read strictly (a malformed or oversized one is a stored error, no proposal), and under *reveal after*
no proposal is in the page, the API or an answer to a guessed accept before the assessor marks their own list
done; then each is accepted (as proposed or edited), or rejected, once."""

import json

import pytest
from django.urls import reverse

from assess import assist, assist_client, assist_nuggets
from assess.models import Assignment, StructureChange, Suggestion, SuggestionShown
from tests.test_assist_model_server import completion, model_server, no_sleep, turn_on  # noqa: F401 (fixture)
from tests.tracks.rag.test_pipeline import T, items, judged, pooled, seg  # noqa: F401 (fixtures)
from tracks.rag import judging

SECRET = "Caffeine-7f3c blocks adenosine receptors"
PROPOSED = {
    "nuggets": [
        {"text": SECRET, "importance": "vital"},
        {"text": "Caffeine's half-life is about five hours", "importance": "okay"},
        {"text": "  caffeine-7F3C blocks   adenosine receptors ", "importance": "okay"},  # the same again: once
    ],
    "rationale": "read from segments 1 and 2",
}


def grade(ann, topic, docid, label):
    judging.judge_item(ann, items(topic, "relevance")[docid], {"label": label}, 0)


def propose(ev, topic, server, **extra):
    turn_on(ev, server, **extra)
    return assist_client.suggest_topic(ev, topic, assist_nuggets.KIND, sleep=no_sleep)


def test_a_pass_reads_the_relevant_segments_and_stores_the_proposals_with_provenance(judged, model_server, capsys):
    ev, topic, ann = judged
    with pytest.raises(assist_client.Off, match="has no texts to read nuggets from"):
        propose(ev, topic, model_server((200, completion(json.dumps(PROPOSED)), None)))
    grade(ann, topic, seg(0, 0), "3")
    grade(ann, topic, seg(0, 1), "0")
    server = model_server((200, completion(json.dumps(PROPOSED)), None))
    [row] = propose(ev, topic, server)
    assert (row.kind, row.item, row.topic, row.error, row.source, row.source_name) == (
        "nugget_proposals",
        None,
        topic,
        "",
        "model",
        "tiny-instruct",
    )
    assert row.value == {
        "nuggets": [
            {"text": SECRET, "importance": "vital"},
            {"text": "Caffeine's half-life is about five hours", "importance": "okay"},
        ]
    }
    assert row.rationale == "read from segments 1 and 2" and row.cost["total_tokens"] == 62
    sent = server.requests[0]["body"]["messages"][0]["content"]
    assert sent == row.prompt and "Request: how does caffeine affect sleep" in sent
    assert "[1] Caffeine blocks adenosine receptors in the brain" in sent  # graded 3
    assert "six hours before bed" not in sent and "[2]" not in sent  # graded 0: not read
    # a second pass skips a topic that has its proposals; the command prints what it stored
    assert assist_client.suggest_topic(ev, topic, assist_nuggets.KIND) == []
    from django.core.management import call_command

    call_command("suggest_topic", ev.slug, T, "--kind", "nugget_proposals", "--all")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"topic {T}: 2 nuggets (") and "(vital)" in out[0]


@pytest.mark.parametrize(
    "reply, error",
    [
        ("no list here", "the reply holds no JSON object"),
        ('{"nuggets": []}', "the reply's nuggets is not a non-empty list"),
        (
            '{"nuggets": [{"text": "x", "importance": "crucial"}]}',
            "nugget 1's importance 'crucial' is not vital or okay",
        ),
        ('{"nuggets": [{"text": "   ", "importance": "vital"}]}', "nugget 1 has no text"),
        (
            json.dumps({"nuggets": [{"text": "x" * 1001, "importance": "okay"}]}),
            "nugget 1 is longer than 1000 characters",
        ),
        (
            json.dumps({"nuggets": [{"text": f"fact {n}", "importance": "okay"} for n in range(31)]}),
            "the reply proposes 31 nuggets, more than 30",
        ),
    ],
)
def test_a_malformed_or_oversized_reply_is_a_stored_error_and_no_proposal(judged, model_server, reply, error):
    ev, topic, ann = judged
    grade(ann, topic, seg(0, 0), "2")
    [row] = propose(ev, topic, model_server((200, completion(reply), None)))
    assert (row.error, row.value) == (f"malformed reply: {error}", None)
    assert row.raw_output and assist_nuggets.current(topic) is None


def _page(client, a):
    return client.get(reverse("rag:nuggets", args=[a.pk])).content.decode()


def _api(client, topic):
    return client.get(reverse("api:topic_proposals", args=[topic.pk]))


def test_reveal_after_sends_no_proposal_before_the_own_list_is_done(client, judged, model_server):
    ev, topic, ann = judged
    assist.set_design(ev, unit="item", conditions=["reveal_after"], seed=3)
    assert ev.assist_design.topics[T] == "reveal_after"
    grade(ann, topic, seg(0, 0), "3")
    [row] = propose(ev, topic, model_server((200, completion(json.dumps(PROPOSED)), None)))
    a = Assignment.objects.get(assessor=ann)
    client.force_login(ann)
    own = client.post(
        reverse("rag:nugget_create", args=[a.pk]),
        json.dumps({"text": "Caffeine shortens sleep", "importance": "vital"}),
        content_type="application/json",
    )
    assert own.status_code == 200
    page = _page(client, a)
    assert SECRET not in page and "half-life" not in page and "My own list is done" in page
    api = _api(client, topic)
    assert api.json() == {"topic": T, "state": "waiting", "list_done": False, "proposals": None}
    guessed = client.post(
        reverse("rag:proposal", args=[a.pk, row.pk, 1]), json.dumps({"action": "accept"}), "application/json"
    )
    assert guessed.status_code == 400 and SECRET not in guessed.content.decode()
    assert not SuggestionShown.objects.exists() and judging.nuggets_of(topic)[-1][0].text == "Caffeine shortens sleep"
    # the list is done: now the proposals are sent, and the line between own and assisted is recorded
    done = client.post(reverse("rag:nuggets_done", args=[a.pk]))
    assert done.status_code == 302
    assert StructureChange.objects.get(action="nugget.list_done").after == {
        "nuggets": [n.pk for n, _ in judging.nuggets_of(topic)]
    }
    page = _page(client, a)
    assert SECRET in page and "Proposed by the model server (tiny-instruct): read from segments 1 and 2" in page
    assert _api(client, topic).json()["proposals"]["nuggets"][1] == {
        "index": 2,
        "text": "Caffeine's half-life is about five hours",
        "importance": "okay",
    }
    shown = SuggestionShown.objects.get()
    assert (shown.suggestion, shown.item, shown.condition, shown.judgment_version) == (row, None, "reveal_after", 1)
    edited = client.post(
        reverse("rag:proposal", args=[a.pk, row.pk, 2]),
        json.dumps({"action": "accept", "text": "Caffeine's half-life is five hours", "importance": "vital"}),
        "application/json",
    )
    assert edited.status_code == 200
    rejected = client.post(
        reverse("rag:proposal", args=[a.pk, row.pk, 1]), json.dumps({"action": "reject"}), "application/json"
    )
    assert rejected.status_code == 200
    again = client.post(
        reverse("rag:proposal", args=[a.pk, row.pk, 1]), json.dumps({"action": "accept"}), "application/json"
    )
    assert again.status_code == 400 and "taken or rejected meanwhile" in again.json()["error"]
    assert [(n.text, imp) for n, imp in judging.nuggets_of(topic)] == [
        ("Caffeine shortens sleep", "vital"),
        ("Caffeine's half-life is five hours", "vital"),
    ]
    log = list(StructureChange.objects.filter(topic=topic).order_by("id").values_list("action", "after"))
    assert [action for action, _ in log] == [
        "nugget.create",
        "nugget.list_done",
        "nugget.proposal_accepted",
        "nugget.create",
        "nugget.proposal_rejected",
    ]
    assert log[3][1]["from"] == "model proposal, edited"
    assert _api(client, topic).json()["proposals"]["nuggets"] == [] and "No suggestions left." in _page(client, a)


def test_suggest_first_shows_at_once_none_never_and_a_second_assessor_never(client, judged, model_server, make_user):
    ev, topic, ann = judged
    bob = make_user("bob", "assessor")
    Assignment.objects.create(evaluation=ev, topic=topic, assessor=bob, role=Assignment.SECONDARY)
    assist.set_design(ev, unit="topic", conditions=["suggest_first"], seed=1)
    grade(ann, topic, seg(0, 0), "3")
    propose(ev, topic, model_server((200, completion(json.dumps(PROPOSED)), None)))
    client.force_login(ann)
    assert SECRET in _page(client, Assignment.objects.get(assessor=ann))
    client.force_login(bob)
    assert SECRET not in _page(client, Assignment.objects.get(assessor=bob))
    assert _api(client, topic).json()["state"] == "off"
    ev.assist_design.topics = {T: "none"}
    ev.assist_design.save()
    client.force_login(ann)
    assert SECRET not in _page(client, Assignment.objects.get(assessor=ann))
    assert _api(client, topic).json()["state"] == "off"


def test_the_topic_split_is_drawn_with_the_seed(pooled):
    by_topic = assist.set_design(pooled, unit="topic", conditions=["none", "reveal_after", "suggest_first"], seed=9)
    idents = dict(pooled.topics.values_list("pk", "ident"))
    split = assist.draw(set(idents), ["none", "reveal_after", "suggest_first"], 9)
    assert by_topic.topics == {idents[pk]: condition for pk, condition in split.items()}
    by_item = assist.set_design(pooled, unit="item", conditions=["none", "reveal_after", "suggest_first"], seed=9)
    assert by_item.topics == by_topic.topics  # RAG topics have no questions: the same units, the same draw
    assert assist.topic_condition(pooled.topics.get(ident=T)) == by_item.topics[T]
    assert not Suggestion.objects.exists()


def test_the_organizers_page_runs_a_proposals_pass(client, judged, model_server, make_user):
    ev, topic, ann = judged
    grade(ann, topic, seg(0, 0), "3")
    turn_on(ev, model_server((200, completion("no json"), None)))
    client.force_login(make_user("olga", "organizer"))
    page = client.get(reverse("assess:assist", args=[ev.slug])).content.decode()
    assert "<option>nugget_proposals</option>" in page
    ran = client.post(reverse("assess:assist_pass", args=[ev.slug]), {"topic": T, "kind": "nugget_proposals"})
    assert ran.status_code == 302
    row = Suggestion.objects.get(kind="nugget_proposals")
    assert row.error == "malformed reply: the reply holds no JSON object"
    page = client.get(reverse("assess:assist", args=[ev.slug])).content.decode()
    assert "<td>topic</td><td>nugget_proposals</td>" in page  # the failed call, on the topic


FILED = "Caffeine-91ab delays the onset of sleep"


def _file_suggestions(ev, topic, by):
    from tracks.rag.suggestions import load_suggestions

    line = {"qid": topic.ident, "query": "q", "nuggets": [{"text": FILED, "importance": "vital"}]}
    load_suggestions(ev, (json.dumps(line) + "\n").encode(), "nuggets.jsonl", by)


def test_file_suggestions_follow_the_topics_condition_once_a_design_is_drawn(client, judged, make_user):
    """A nuggetizer file's suggestions are shown as before in an unassisted evaluation, and under a design as the
    topic's model proposals are: reveal after sends nothing (page, accept) before the own list is done, none never."""
    ev, topic, ann = judged
    _file_suggestions(ev, topic, make_user("org", "organizer"))
    a = Assignment.objects.get(assessor=ann)
    client.force_login(ann)
    assert FILED in _page(client, a)  # no design: an unassisted campaign, as before
    assist.set_design(ev, unit="topic", conditions=["reveal_after"], seed=3)
    page = _page(client, a)
    assert FILED not in page and "My own list is done" in page
    guessed = client.post(
        reverse("rag:suggestion", args=[a.pk, 1]), json.dumps({"action": "accept"}), "application/json"
    )
    assert guessed.status_code == 400 and FILED not in guessed.content.decode()
    topic.refresh_from_db()
    assert judging.nuggets_of(topic) == [] and judging.suggestions(topic)[0]["text"] == FILED
    assert client.post(reverse("rag:nuggets_done", args=[a.pk])).status_code == 302
    assert FILED in _page(client, a)
    taken = client.post(reverse("rag:suggestion", args=[a.pk, 1]), json.dumps({"action": "accept"}), "application/json")
    assert taken.status_code == 200 and [n.text for n, _ in judging.nuggets_of(topic)] == [FILED]
    _file_suggestions(ev, topic, make_user("org2", "organizer"))
    ev.assist_design.topics = {T: "none"}
    ev.assist_design.save()
    assert FILED not in _page(client, a).split("Suggested by the machine")[1]  # (the nugget made above is listed)
