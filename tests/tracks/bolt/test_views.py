"""BOLT judging pages: who sees what, the JSON saves, assessor-found citations and the agreement page."""

import json
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from assess.models import Assignment, Judgment
from config.models import Session
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.models import PoolItem, RunEntry
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from scoring.models import Score
from tests.conftest import PASSWORD
from tests.samples import assert_item_read_with_session
from tracks.bolt import judging

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "bolt"
T3 = "bolt-eng-DF-183-190210-0042"


@pytest.fixture
def setup(db, make_user):
    load_collection("bolt-view-forum", "bolt-forum", [str(FIXTURES / "forum.xml")])
    ev = create_evaluation("bolt-views", "bolt-ir-p2", ["bolt-view-forum"])
    load_topics(ev, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    load_run_files(
        ev,
        [
            RunFile(filename=n, data=(FIXTURES / n).read_bytes(), team="Team Alpha", priority=1)
            for n in ("alpha1.xml", "alpha1-groups.xml")
        ],
    )
    build_pools(ev)
    a1, a2 = make_user("bolt-a1", "assessor"), make_user("bolt-a2", "assessor")
    topic = ev.topics.get(ident="1.002")
    mine = Assignment.objects.create(evaluation=ev, topic=topic, assessor=a1)
    other = Assignment.objects.create(evaluation=ev, topic=ev.topics.get(ident="1.001"), assessor=a2)
    return {"ev": ev, "topic": topic, "mine": mine, "other": other, "a1": a1, "a2": a2}


def client_for(client, user):
    client.login(username=user.username, password=PASSWORD)
    return client


def test_assessor_sees_own_topic_with_assessor_fields(client, setup):
    c = client_for(client, setup["a1"])
    page = c.get(reverse("bolt:topic", args=[setup["mine"].pk])).content.decode()
    assert "Who funds it" not in page and "Rumours about its funding count as relevant." in page
    assert "Hope Foundation handed out" in page
    assert c.get(reverse("bolt:topic", args=[setup["other"].pk])).status_code == 404


def test_participants_and_anonymous_are_kept_out(client, setup, make_user):
    url = reverse("bolt:topic", args=[setup["mine"].pk])
    assert client.get(url).status_code == 302
    client_for(client, make_user("bolt-p", "participant", team="Team Alpha"))
    assert client.get(url).status_code == 403
    item = judging.citation_items(setup["topic"])[0]
    assert client.post(reverse("bolt:judge", args=[item.pk]), "{}", content_type="application/json").status_code == 403


def test_item_page_shows_the_span_in_the_thread_viewer(client, setup):
    c = client_for(client, setup["a1"])
    item = judging.citation_items(setup["topic"])[0]
    page = c.get(reverse("bolt:item", args=[setup["mine"].pk, item.pk])).content.decode()
    assert (
        f"/corpus/bolt-view-forum/frame/{item.docid}/?s={item.data['post']}%3A{item.data['offset']}"
        f"%3A{item.data['length']}#mark-1" in page.replace("&amp;", "&")
    )
    assert "<iframe" in page and "sandbox" in page
    state = json.loads(page.split('id="bolt-state" type="application/json">')[1].split("</script>")[0])
    assert state["passage"] == item.text and state["version"] == 0


def test_judge_endpoint_saves_refuses_stale_and_strangers(client, setup):
    item = judging.citation_items(setup["topic"])[0]
    url = reverse("bolt:judge", args=[item.pk])
    c = client_for(client, setup["a1"])
    body = {"version": 0, "value": {"rel": "maybe", "trans": "problematic", "chksrc": True, "relspans": [[0, 3]]}}
    r = c.post(url, json.dumps(body), content_type="application/json")
    assert r.status_code == 200 and r.json()["version"] == 1
    assert r.json()["value"] == {"rel": "maybe", "trans": "problematic", "chksrc": True, "relspans": [[0, 3]]}
    r = c.post(url, json.dumps(body | {"value": {"rel": "no"}}), content_type="application/json")
    assert r.status_code == 409 and r.json()["version"] == 1  # another tab saw version 0
    r = c.post(url, json.dumps({"version": 1, "value": {"rel": "perhaps"}}), content_type="application/json")
    assert r.status_code == 400 and "rel must be one of" in r.json()["error"]
    client_for(client, setup["a2"])
    r = client.post(url, json.dumps({"version": 0, "value": {"rel": "no"}}), content_type="application/json")
    assert r.status_code == 403
    assert Judgment.objects.get(item=item).value["rel"] == "maybe"


def test_the_save_reads_its_item_with_the_session_and_keeps_every_refusal(client, setup):
    """Issue 32: the citation save's item, its role and its closure come with the session's statement (no read
    of their own), and every refusal stays: an unknown item 404, a grouping view refused by its data, another
    assessor's topic 403, a revoked session saves nothing."""
    mine = judging.citation_items(setup["topic"])
    c = client_for(client, setup["a1"])
    body = {"version": 0, "value": {"rel": "yes", "trans": "accept", "chksrc": True, "relspans": []}}
    with CaptureQueriesContext(connection) as seen:
        r = c.post(reverse("bolt:judge", args=[mine[0].pk]), json.dumps(body), content_type="application/json")
    assert r.status_code == 200 and r.json()["version"] == 1
    assert_item_read_with_session(seen.captured_queries, tables=("pooling_poolitem", "assess_assignment"))
    if connection.vendor == "postgresql":
        assert len(seen.captured_queries) == 2  # the session's statement with the item, and the write
    assert (
        c.post(reverse("bolt:judge", args=[2**62]), json.dumps(body), content_type="application/json").status_code
        == 404
    )
    ((_, view),) = judging.grouping_views(setup["topic"]).items()
    r = c.post(reverse("bolt:judge", args=[view.pk]), json.dumps(body), content_type="application/json")
    assert r.status_code == 400 and "grouping view" in r.json()["error"]
    theirs = judging.citation_items(setup["other"].topic)[0]
    r = c.post(reverse("bolt:judge", args=[theirs.pk]), json.dumps(body), content_type="application/json")
    assert r.status_code == 403
    Session.objects.all().delete()
    r = c.post(reverse("bolt:judge", args=[mine[1].pk]), json.dumps(body), content_type="application/json")
    assert r.status_code in (302, 403)
    assert list(Judgment.objects.values_list("item_id", flat=True)) == [mine[0].pk]


def test_untrusted_passage_is_escaped(client, setup):
    item = judging.citation_items(setup["topic"])[0]
    PoolItem.objects.filter(pk=item.pk).update(text="<script>alert(1)</script> evil")
    page = client_for(client, setup["a1"]).get(reverse("bolt:item", args=[setup["mine"].pk, item.pk])).content
    assert b"<script>alert(1)" not in page


def test_find_page_segments_map_to_raw_offsets_and_add_found(client, setup):
    c = client_for(client, setup["a1"])
    page = c.get(reverse("bolt:find", args=[setup["mine"].pk]) + f"?thread={T3}").content.decode()
    # The quote tag of post p2 is a marker segment with the tag's raw length.
    assert 'class="seg-tag" data-o="1" data-l="35">[quote from volunteer_ali] </span>' in page
    r = c.post(
        reverse("bolt:add_found", args=[setup["mine"].pk]),
        json.dumps(
            {
                "thread": T3,
                "post": "p3",
                "offset": 50,
                "length": 54,
                "passage": "Say what you want, the Hope Foundation does good work.",
            }
        ),
        content_type="application/json",
    )
    assert r.status_code == 200 and r.json()["pool_id"] == "1.002-A1"
    page = c.get(reverse("bolt:find", args=[setup["mine"].pk])).content.decode()  # the pool's first thread
    assert f'data-thread="{T3}"' in page and "1.002-A1</a> Say what you want" in page
    r = c.post(
        reverse("bolt:add_found", args=[setup["mine"].pk]),
        json.dumps({"thread": T3, "post": "p9", "offset": 0, "length": 4, "passage": "They"}),
        content_type="application/json",
    )
    assert r.status_code == 400 and "post 'p9' is not in thread" in r.json()["error"]


def test_post_segments_cover_the_raw_text():
    from tracks.bolt.views import post_segments

    raw = '\n<quote orig_author="x">Hi &amp; bye</quote>\nOK &lt;3\n'
    segments = post_segments(raw)
    assert sum(length for _, _, _, length in segments) == len(raw)
    assert all(raw[o : o + n] == (t if k == "text" else raw[o : o + n]) for k, t, o, n in segments)
    assert ("entity", "&", 27, 5) in segments


def test_view_page_saves_grouping_judgment(client, setup):
    c = client_for(client, setup["a1"])
    ((_, item),) = judging.grouping_views(setup["topic"]).items()
    url = reverse("bolt:view", args=[setup["mine"].pk, item.pk])
    assert "Food and help given out" in c.get(url).content.decode()
    r = c.post(
        url,
        {
            "version": 0,
            "view-relevant": "yes",
            "view-useful": "no",
            "g0-relevant": "yes",
            "g0-scope": "yes",
            "g0-m0": "yes",
            "g0-m1": "no",
        },
    )
    assert r.status_code == 302
    value = Judgment.objects.get(item=item, kind="grouping").value
    assert value["relevant"] is True and value["useful"] is False
    assert value["groups"]["0"]["relevant"] is True and value["groups"]["0"]["cohesive"] is None
    assert sorted(value["groups"]["0"]["members"].values()) == [False, True]


def test_agreement_page_is_for_organizers(client, setup, make_user):
    url = reverse("bolt:agreement", args=["bolt-views"])
    client_for(client, setup["a1"])
    assert client.get(url).status_code == 403
    client_for(client, make_user("bolt-org", "organizer"))
    assert "No topic has been judged by two assessors yet." in client.get(url).content.decode()


def test_participants_see_only_query_and_language_target(client, setup, make_user):
    client_for(client, make_user("bolt-p2", "participant", team="Team Beta"))
    page = client.get(reverse("bolt:team_topics", args=["bolt-views"])).content.decode()
    assert "What do forum users say about the Hope Foundation and who funds it?" in page and "eng" in page
    assert "Rumours about its funding" not in page and "Statements about the charity" not in page
    client_for(client, setup["a1"])
    assert client.get(reverse("bolt:team_topics", args=["bolt-views"])).status_code == 403


@pytest.mark.parametrize(
    "name,extra",
    [
        ("pooling:evaluation_detail", []),
        ("pooling:topics", []),
        ("pooling:pools", []),
        ("pooling:pool_question", ["1.002"]),
        ("assess:assignments", []),
    ],
)
def test_organizer_pages_of_a_bolt_evaluation_render(client, setup, make_user, name, extra):
    client_for(client, make_user("bolt-org2", "organizer"))
    r = client.get(reverse(name, args=["bolt-views", *extra]))
    assert r.status_code == 200
    if name == "pooling:evaluation_detail":
        assert reverse("bolt:agreement", args=["bolt-views"]) in r.content.decode()


def test_assessor_home_links_to_the_bolt_topic(client, setup):
    page = client_for(client, setup["a1"]).get(reverse("assess:my_assignments")).content.decode()
    assert reverse("bolt:topic", args=[setup["mine"].pk]) in page


def test_export_download_for_organizers(client, setup, make_user):
    from tracks.bolt.formats.export import validate_export

    url = reverse("bolt:export", args=["bolt-views", "alpha1"])
    client_for(client, setup["a1"])
    assert client.get(url).status_code == 403
    client_for(client, make_user("bolt-org3", "organizer"))
    assert url in client.get(reverse("bolt:agreement", args=["bolt-views"])).content.decode()
    r = client.get(url)
    assert r.status_code == 200 and r["Content-Disposition"] == 'attachment; filename="alpha1.xml"'
    assert validate_export(r.content) == []
    assert client.get(reverse("bolt:export", args=["bolt-views", "alpha1-groups"])).status_code == 404


@pytest.mark.parametrize("name", ["assess:organize", "qa:adjudication", "scoring:scoreboard"])
def test_shared_organizer_pages_accept_a_bolt_evaluation(client, setup, make_user, name):
    item = judging.citation_items(setup["topic"])[0]
    judging.judge_citation(setup["a1"], item, {"rel": "yes"}, 0)
    client_for(client, make_user("bolt-org4", "organizer"))
    assert client.get(reverse(name, args=["bolt-views"])).status_code == 200


# --- moving between citations without a page load ---------------------------------------------------------------


def test_moving_between_citations_gets_the_panel_only(client, setup):
    c = client_for(client, setup["a1"])
    items = judging.citation_items(setup["topic"])
    judging.judge_citation(setup["a1"], items[0], {"rel": "maybe", "trans": "accept"}, 0)
    url = reverse("bolt:item", args=[setup["mine"].pk, items[1].pk])
    r = c.get(url, headers={"HX-Request": "true"})
    page = r.content.decode()
    assert r.status_code == 200 and "HX-Request" in r["Vary"]
    assert "<html" not in page and 'id="topic"' not in page and 'id="key-list"' not in page
    assert page.lstrip().startswith(f"<title>Citation {items[1].pool_id} · Assay</title>")
    assert page.count('id="citation-panel"') == 1 and page.count("<iframe") == 1
    assert f"s={items[1].data['post']}%3A{items[1].data['offset']}%3A{items[1].data['length']}#mark-1" in page.replace(
        "&amp;", "&"
    )
    assert f'hx-get="{reverse("bolt:item", args=[setup["mine"].pk, items[0].pk])}"' in page  # previous
    assert f'hx-get="{reverse("bolt:item", args=[setup["mine"].pk, items[2].pk])}"' in page  # next, next unjudged
    assert 'hx-push-url="true"' in page and 'hx-target="#citation-panel"' in page
    assert "Citation 2 of 3" in page and 'data-judged="1"' in page
    # The first one shows its saved judgment as rendered, before any script runs.
    first = c.get(reverse("bolt:item", args=[setup["mine"].pk, items[0].pk]), headers={"HX-Request": "true"})
    assert 'data-rel="maybe" data-key="m" aria-pressed="true"' in first.content.decode()
    assert "Judged maybe (version 1)." in first.content.decode()


def test_direct_load_and_history_restore_get_the_whole_page(client, setup):
    c = client_for(client, setup["a1"])
    item = judging.citation_items(setup["topic"])[1]
    url = reverse("bolt:item", args=[setup["mine"].pk, item.pk])
    for headers in ({}, {"HX-Request": "true", "HX-History-Restore-Request": "true"}):
        page = c.get(url, headers=headers).content.decode()
        assert page.startswith("<!doctype html>") and "<title>Citation" in page
        assert 'id="topic"' in page and 'id="key-list"' in page and page.count('id="citation-panel"') == 1
        assert 'hx-history-elt hx-history="false"' in page


def test_strangers_get_no_panel(client, setup):
    item = judging.citation_items(setup["topic"])[0]
    client_for(client, setup["a2"])
    r = client.get(reverse("bolt:item", args=[setup["mine"].pk, item.pk]), headers={"HX-Request": "true"})
    assert r.status_code == 404


def test_judge_endpoint_requires_the_version(client, setup):
    item = judging.citation_items(setup["topic"])[0]
    c = client_for(client, setup["a1"])
    for body in ({"value": {"rel": "yes"}}, {"version": "0", "value": {"rel": "yes"}}):
        r = c.post(reverse("bolt:judge", args=[item.pk]), json.dumps(body), content_type="application/json")
        assert r.status_code == 400 and "which version" in r.json()["error"]
    assert not Judgment.objects.filter(item=item).exists()


# --- the grouping view, one answer at a time --------------------------------------------------------------------


def view_of(setup):
    ((_, item),) = judging.grouping_views(setup["topic"]).items()
    return item, reverse("bolt:view_answer", args=[setup["mine"].pk, item.pk])


def answer(c, url, version, answer, group="", name="", member=""):
    return c.post(
        url,
        json.dumps({"version": version, "group": group, "name": name, "member": member, "answer": answer}),
        content_type="application/json",
    )


def test_view_page_lists_its_questions_in_order_with_progress(client, setup):
    item, _ = view_of(setup)
    key = judging.view_structure(item)[1]["citations"][0]["key"]
    judging.judge_view_field(setup["a1"], item, "1", "belongs", key, "yes", 0)
    page = client_for(client, setup["a1"]).get(reverse("bolt:view", args=[setup["mine"].pk, item.pk])).content
    page = page.decode()
    # view: relevant, useful; group 0: 3 + 2 members; group 1: 3 + 1 member
    assert '<span id="answered">1</span> of <span id="total">11</span>' in page
    order = [page.index(f'id="q-{n}"') for n in range(11)]
    assert order == sorted(order) and 'id="q-11"' not in page
    assert 'id="q-0" data-q data-group="" data-name="relevant"' in page
    assert 'id="q-4" data-q data-group="0" data-name="scope"' in page
    assert 'data-name="belongs" data-member="' in page and 'id="key-list"' in page
    assert '"answer_url": "' + reverse("bolt:view_answer", args=[setup["mine"].pk, item.pk]) in page


def test_view_answers_are_saved_one_field_at_a_time(client, setup):
    item, url = view_of(setup)
    c = client_for(client, setup["a1"])
    member = judging.view_structure(item)[0]["citations"][1]["key"]
    r = answer(c, url, 0, "yes", name="relevant")
    assert r.status_code == 200 and r.json()["version"] == 1
    assert answer(c, url, 1, "no", group="0", name="scope").json()["version"] == 2
    r = answer(c, url, 2, "yes", group="0", name="belongs", member=member)
    assert r.status_code == 200
    assert r.json()["value"] == {
        "relevant": True,
        "useful": None,
        "groups": {"0": {"relevant": None, "cohesive": None, "scope": False, "members": {member: True}}},
    }
    r = answer(c, url, 3, None, group="0", name="belongs", member=member)  # cleared again
    assert r.json()["value"]["groups"]["0"]["members"] == {}
    judgment = Judgment.objects.get(item=item, kind="grouping", assessor=setup["a1"])
    assert judgment.version == 4 and judgment.changes.count() == 4
    # Another tab still at version 2: refused, and the answer shows what is stored now.
    r = answer(c, url, 2, "no", name="useful")
    assert r.status_code == 409 and r.json()["version"] == 4 and r.json()["value"]["relevant"] is True
    judgment.refresh_from_db()
    assert judgment.value["useful"] is None
    # The same value the whole-view writer (judge_view, which scoring's contract is written for) stores.
    whole = judging.judge_view(setup["a1"], item, judgment.value, 4)
    assert whole.changed is False and whole.judgment.version == 4


@pytest.mark.parametrize(
    "field,error",
    [
        ({"name": "pretty"}, "a view is asked"),
        ({"group": "7", "name": "relevant"}, "has no group '7'"),
        ({"group": "0", "name": "tasty"}, "a group is asked"),
        ({"group": "0", "name": "belongs", "member": "nope"}, "no such citation"),
    ],
)
def test_view_answer_refuses_unknown_fields(client, setup, field, error):
    _, url = view_of(setup)
    r = answer(client_for(client, setup["a1"]), url, 0, "yes", **field)
    assert r.status_code == 400 and error in r.json()["error"]


def test_view_answer_is_for_the_topic_assessor_only(client, setup):
    item, url = view_of(setup)
    client_for(client, setup["a2"])
    assert answer(client, url, 0, "yes", name="relevant").status_code == 404
    assert answer(client_for(client, setup["a1"]), url, None, "yes", name="relevant").status_code == 400
    assert not Judgment.objects.filter(item=item).exists()


# --- the organizer's near-duplicate and grouping pages, and what reports say of them -----------------------------


def test_near_duplicate_classes_page(client, setup, make_user):
    url = reverse("bolt:near_duplicates", args=["bolt-views"])
    client_for(client, setup["a1"])
    assert client.get(url).status_code == 403
    client_for(client, make_user("bolt-org5", "organizer"))
    page = client.get(url).content.decode()
    assert '<tr data-run="alpha1" class="chosen">' in page  # the first run with near-duplicates is shown
    dups = page.split('<tr data-run="alpha1"')[1].split('class="num dups">')[1].split("<")[0]
    assert int(dups) >= 1
    near = RunEntry.objects.filter(run__tag="alpha1", data__near_dup=True).first()
    leader = RunEntry.objects.get(run__tag="alpha1", topic=near.topic, line_no=near.data["leader"])
    section = page.split(f'data-topic="{near.topic.ident}"')[1]
    assert section.index('class="leader"') < section.index('class="member"')
    assert "not judged; scored as a false alarm" in section
    # the leader judged: its class shows the judgment the near-duplicate takes
    item = next(i for i in judging.citation_items(near.topic) if i.text == leader.text and i.docid == leader.docid)
    assignment = Assignment.objects.get(topic=near.topic)
    judging.judge_citation(assignment.assessor, item, {"rel": "yes"}, 0)
    section = client.get(url).content.decode().split(f'data-topic="{near.topic.ident}"')[1]
    assert '<td class="rel">yes</td>' in section and "takes yes; scored as a false alarm" in section
    assert client.get(url + "?run=nope").status_code == 404


def test_grouping_measures_page_and_reports(client, setup, make_user, participant):
    from pooling.models import Run
    from scoring.release import release
    from scoring.rescore import rescore_evaluation

    item, _ = view_of(setup)
    c = client_for(client, setup["a1"])
    c.post(
        reverse("bolt:view", args=[setup["mine"].pk, item.pk]),
        {"version": 0, "g0-relevant": "yes", "g0-scope": "yes", "g0-m0": "yes", "g0-m1": "no"},
    )
    rescore_evaluation(setup["ev"].id)
    client_for(client, make_user("bolt-org6", "organizer"))
    page = client.get(reverse("bolt:groupings", args=["bolt-views"])).content.decode()
    run = page.split('data-run="alpha1-groups"')[1]
    topic = run.split('data-topic="1.002"')[1]
    # group 0 of the judged view: relevant and well scoped, one of its two citations belongs
    group = topic.split('class="group-row"')[1]
    assert "<td>yes</td><td>yes</td>" in group and '<td class="num">0.500</td>' in group
    assert "View precision" in page and "Group skew" in page
    # the stored topic score (mean over the topic's views) heads the topic's rows
    stored = Score.objects.get(run__tag="alpha1-groups", topic__ident="1.002", measure="view_precision").value
    assert f'<td class="num">{stored:.3f}</td>' in topic.split('class="view-row"')[0]
    # the team sees its grouping run's measures per topic once released, as the organizer does
    groups_run = Run.objects.get(tag="alpha1-groups")
    report_url = reverse("scoring:run_report", args=["bolt-views", "alpha1-groups"])
    assert "Grouping measures per topic" in client.get(report_url).content.decode()
    client.logout()
    client.login(username="par", password=PASSWORD)
    assert client.get(report_url).status_code == 404
    release(setup["ev"], groups_run.team, by="test")
    report = client.get(report_url).content.decode()
    assert "Grouping measures per topic" in report and "Group precision" in report
    citations = client.get(reverse("scoring:run_report", args=["bolt-views", "alpha1"])).content.decode()
    assert "are near-duplicates of a higher-ranked citation" in citations or "is a near-duplicate" in citations
