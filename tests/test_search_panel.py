"""The judging pages' search panel (issue 18) without a browser: searches scoped to the evaluation's collections and
logged per assessor and item, a result opened (logged) with the track's form, an assessor-found answer (QA) added
from it through instance_judging.add_found_answer, a thread (BOLT) shown for selecting a citation, who may do what,
and the searches in the judgment export and back in by its import. Chromium: tests/browser/test_search_panel.py."""

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse

from assess.models import Assignment, Judgment, SearchLog
from corpus.models import Document
from corpus.search import build_index
from pooling.models import PoolItem
from scoring.judgments_jsonl import export_jsonl, import_jsonl

pytestmark = pytest.mark.django_db
FOUND = "NYT_ENG_20050101.0001"


@pytest.fixture
def qa(sample, primary, make_user):
    """The sample evaluation with one more document (an answer no run returned), indexed for search."""
    collection = sample.evaluation.collections.get()
    Document.objects.create(
        collection=collection,
        docno=FOUND,
        raw=b'<DOC id="x" type="story"><TEXT><P>Coco Chanel opened her first shop in 1910.</P></TEXT></DOC>',
        text="Coco Chanel opened her first shop in 1910.",
    )
    build_index(collection)
    assignment = Assignment.objects.get(assessor=primary)
    question = sample.questions["1.1"]
    return {"sample": sample, "assignment": assignment, "question": question, "item": sample.items["1.1"][0]}


def run_search(client, qa, q="coco chanel shop", **extra):
    return client.get(
        reverse("assess:search", args=[qa["assignment"].pk]),
        {"q": q, "topic": qa["question"].pk, "item": qa["item"].pk, **extra},
    )


def test_a_search_is_logged_with_the_item_and_opens_in_the_viewer_with_the_words_marked(client, qa, primary):
    client.force_login(primary)
    r = run_search(client, qa)
    assert r.status_code == 200
    html = r.content.decode()
    assert FOUND in html and "<mark>Coco</mark>" in html
    log = SearchLog.objects.get()
    assert (log.assessor, log.topic, log.item, log.query, log.hits) == (
        primary,
        qa["question"],
        qa["item"],
        "coco chanel shop",
        1,
    )
    open_url = re.search(r'hx-get="([^"]+)"', html).group(1).replace("&amp;", "&")
    opened = client.get(open_url)
    assert opened.status_code == 200
    page = opened.content.decode()
    assert "m=coco&amp;m=chanel&amp;m=shop" in page  # the frame marks the query's words
    assert 'name="docid" value="' + FOUND in page and reverse("qa:search_found", args=[qa["assignment"].pk]) in page
    log.refresh_from_db()
    assert [o["docno"] for o in log.opened] == [FOUND]


def test_an_answer_found_by_search_is_added_and_judged_correct(client, qa, primary):
    client.force_login(primary)
    r = client.post(
        reverse("qa:search_found", args=[qa["assignment"].pk]),
        {"question": qa["question"].pk, "docid": FOUND, "text": "1910"},
    )
    assert r.status_code == 200 and "added [" in r.content.decode()
    item = PoolItem.objects.get(topic=qa["question"], origin=PoolItem.ASSESSOR)
    assert (item.docid, item.text) == (FOUND, "1910")
    judgment = Judgment.objects.get(item=item, assessor=primary)
    from tracks.qa.questions import class_label

    assert judgment.value["label"] == class_label(qa["sample"].evaluation)  # judged correct in the same step
    again = client.post(
        reverse("qa:search_found", args=[qa["assignment"].pk]),
        {"question": qa["question"].pk, "docid": FOUND, "text": "1910"},
    )
    assert again.status_code >= 400 and "already in the pool" in again.content.decode()


def test_the_search_covers_only_the_evaluations_collections(client, qa, primary):
    from corpus.loading import load_collection

    load_collection("elsewhere", "pubmed", [Path(__file__).parent / "fixtures" / "search" / "relevance.jsonl"])
    client.force_login(primary)
    assert "100005" not in run_search(client, qa, q="metformin").content.decode()
    assert run_search(client, qa, q="metformin", collection="elsewhere").status_code == 400


def test_who_may_search_open_and_add(client, qa, primary, make_user):
    other = make_user("other", "assessor")
    client.force_login(primary)
    run_search(client, qa)
    log = SearchLog.objects.get()
    open_url = (
        reverse("assess:search_open", args=[log.pk]) + f"?collection={log.filters['collections'][0]}&docno={FOUND}"
    )
    client.force_login(other)
    assert run_search(client, qa).status_code == 404  # not their assignment
    assert client.get(open_url).status_code == 404  # not their search
    found = reverse("qa:search_found", args=[qa["assignment"].pk])
    assert client.post(found, {"question": qa["question"].pk, "docid": FOUND, "text": "1910"}).status_code == 404
    second = Assignment.objects.create(
        evaluation=qa["sample"].evaluation, topic=qa["assignment"].topic, assessor=other, role=Assignment.SECONDARY
    )
    r = client.post(
        reverse("qa:search_found", args=[second.pk]), {"question": qa["question"].pk, "docid": FOUND, "text": "1910"}
    )
    assert r.status_code == 403 and "primary" in r.content.decode()
    client.force_login(make_user("part", "participant"))
    assert run_search(client, qa).status_code == 403
    client.logout()
    assert run_search(client, qa).status_code == 302
    client.force_login(primary)
    assert client.get(open_url.replace(FOUND, "NOPE")).status_code == 404


def test_searches_are_exported_with_the_judgments_and_imported_back(client, qa, primary):
    from tracks.qa.sample import build_sample

    client.force_login(primary)
    run_search(client, qa)
    log = SearchLog.objects.get()
    client.get(
        reverse("assess:search_open", args=[log.pk]), {"collection": log.filters["collections"][0], "docno": FOUND}
    )
    lines = list(export_jsonl(qa["sample"].evaluation))
    searches = [json.loads(x) for x in lines if '"type": "search"' in x]
    assert len(searches) == 1
    rec = searches[0]
    assert (rec["assessor"], rec["topic"], rec["query"], rec["hits"]) == ("prim", "1.1", "coco chanel shop", 1)
    assert rec["item"] == {"topic": "1.1", "key": qa["item"].key} and rec["opened"][0]["docno"] == FOUND
    copy = build_sample(slug="copy")
    counts = import_jsonl(copy.evaluation, lines, "export.jsonl")
    assert counts["search"] == 1
    back = SearchLog.objects.get(evaluation=copy.evaluation)
    assert (back.query, back.topic.ident, back.item.key, back.at) == (log.query, "1.1", qa["item"].key, log.at)
    bad = [
        lines[0],
        json.dumps(
            {
                "type": "search",
                "topic": "1.1",
                "assessor": "prim",
                "query": "x",
                "item": {"topic": "1.1", "key": "nope"},
            }
        ),
    ]
    with pytest.raises(Exception, match="export.jsonl:2: no pool item 'nope'"):
        import_jsonl(build_sample(slug="copy2").evaluation, bad, "export.jsonl")


# --- BOLT -------------------------------------------------------------------------------------------------------


def test_bolt_a_thread_opened_from_a_search_is_ready_for_selecting_a_citation(client, make_user):
    from corpus.loading import load_collection
    from pooling.evaluations import create_evaluation
    from pooling.pools import build_pools
    from pooling.runs import RunFile, load_run_files
    from pooling.topics import load_topics
    from tests.tracks.bolt.test_views import FIXTURES, T3

    load_collection("bolt-search-forum", "bolt-forum", [str(FIXTURES / "forum.xml")])
    ev = create_evaluation("bolt-search", "bolt-ir-p2", ["bolt-search-forum"])
    load_topics(ev, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    load_run_files(
        ev, [RunFile(filename="alpha1.xml", data=(FIXTURES / "alpha1.xml").read_bytes(), team="A", priority=1)]
    )
    build_pools(ev)
    user = make_user("boltie", "assessor")
    topic = ev.topics.get(ident="1.002")
    assignment = Assignment.objects.create(evaluation=ev, topic=topic, assessor=user)
    client.force_login(user)
    r = client.get(
        reverse("assess:search", args=[assignment.pk]), {"q": '"Hope Foundation" good work', "topic": topic.pk}
    )
    assert r.status_code == 200 and T3 in r.content.decode()
    log = SearchLog.objects.get(evaluation=ev)
    page = client.get(reverse("assess:search_open", args=[log.pk]), {"collection": "bolt-search-forum", "docno": T3})
    html = page.content.decode()
    assert f'data-thread="{T3}"' in html and 'data-post="p3"' in html and "data-add-found" in html
    assert reverse("bolt:add_found", args=[assignment.pk]) in html
