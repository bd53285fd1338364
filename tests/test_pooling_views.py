"""The organizer's pages (create, state, settings, questions, runs, pools, assignments), the participant's checker
page, and who may see each of them."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from assess.models import Assignment
from pooling.models import Evaluation, PoolItem, Run, Topic
from tests.conftest import PASSWORD
from tests.test_pooling_loading import FIXTURES, blog, tac  # noqa: F401 (fixtures)

ORGANIZER_PAGES = [
    "pooling:evaluation_detail",
    "pooling:topics",
    "pooling:runs_upload",
    "pooling:pools",
    "pooling:pool_progress",
    "assess:assignments",
]


def upload(name, data=None):
    return SimpleUploadedFile(name, data if data is not None else (FIXTURES / name).read_bytes())


@pytest.fixture
def org_client(client, organizer):
    client.login(username="org", password=PASSWORD)
    return client


@pytest.mark.parametrize("role", ["assessor", "participant"])
@pytest.mark.parametrize("name", ORGANIZER_PAGES)
def test_organizer_pages_refuse_other_roles(client, make_user, tac, role, name):
    make_user("u", role, team="T" if role == "participant" else None)
    client.login(username="u", password=PASSWORD)
    assert client.get(reverse(name, args=["tac-test"])).status_code == 403
    assert client.post(reverse(name, args=["tac-test"])).status_code == 403


def test_checker_page_is_for_participants_and_organizers_only(client, make_user, db):
    make_user("a", "assessor")
    client.login(username="a", password=PASSWORD)
    assert client.get(reverse("pooling:run_check")).status_code == 403
    client.logout()
    assert client.get(reverse("pooling:run_check")).status_code == 302


def test_create_evaluation_in_browser_form(org_client, blog):
    response = org_client.post(
        reverse("pooling:evaluation_create"),
        {"slug": "t08", "track": "tac2008-qa", "collections": ["test-blog06"], "title": ""},
    )
    assert response.status_code == 302
    evaluation = Evaluation.objects.get(slug="t08")
    assert evaluation.settings["max_answer_chars"] == 7000 and evaluation.title.startswith("TAC 2008 QA")
    again = org_client.post(reverse("pooling:evaluation_create"), {"slug": "t08", "track": "tac2008-qa"})
    assert "already exists" in again.content.decode()


def test_state_and_settings_forms(org_client, tac):
    org_client.post(reverse("pooling:evaluation_state", args=["tac-test"]), {"state": "judging"})
    org_client.post(
        reverse("pooling:evaluation_settings", args=["tac-test"]),
        {"judged_priorities": "1, 2, 3", "max_answer_chars": "5000", "allow_nil": ""},
    )
    tac.refresh_from_db()
    assert tac.state == "judging"
    assert tac.settings["judged_priorities"] == [1, 2, 3] and tac.settings["max_answer_chars"] == 5000
    bad = org_client.post(
        reverse("pooling:evaluation_settings", args=["tac-test"]), {"judged_priorities": "one", "max_answer_chars": ""}
    )
    assert bad.status_code == 400 and "numbers separated by commas" in bad.content.decode()


def test_topics_page_loads_questions_and_reports_errors(org_client, blog):
    from pooling.evaluations import create_evaluation

    create_evaluation("t", "tac2008-qa", ["test-blog06"])
    bad = org_client.post(
        reverse("pooling:topics", args=["t"]), {"kind": "questions", "file": upload("q.xml", b"<trecqa><target")}
    )
    assert bad.status_code == 400 and "q.xml:1: malformed XML" in bad.content.decode()
    org_client.post(
        reverse("pooling:topics", args=["t"]), {"kind": "questions", "file": upload("tac2008_questions.xml")}
    )
    org_client.post(reverse("pooling:topics", args=["t"]), {"kind": "top_docs", "file": upload("tac2008_topdocs.txt")})
    body = org_client.get(reverse("pooling:topics", args=["t"])).content.decode()
    assert "Why do people like Trader Joe&#x27;s?" in body and "2 top docs" in body
    assert Topic.objects.filter(evaluation__slug="t").count() == 7


@pytest.mark.parametrize(
    "track, label, top_docs",
    [
        ("tac2008-qa", "Questions (TREC/TAC series XML)", True),
        ("trec2007-ciqa", "Topics (ciQA topic file", True),
        ("bolt-ir-p2", "Topics (BOLT topic XML)", False),
        ("biogen-2024", "Topics (BioGen JSON or JSON Lines)", False),
        ("qa4mre-2012", "Test set (QA4MRE XML", False),
    ],
)
def test_topic_upload_names_the_tracks_file(org_client, db, track, label, top_docs):
    """The kind of file offered is the track's topic file, and top-documents lists only where teams got them."""
    from pooling.evaluations import create_evaluation

    create_evaluation("t", track)
    body = org_client.get(reverse("pooling:topics", args=["t"])).content.decode()
    assert label in body and "series XML" not in body.replace(label, "")
    assert ('value="top_docs"' in body) is top_docs
    if not top_docs:
        refused = org_client.post(
            reverse("pooling:topics", args=["t"]), {"kind": "top_docs", "file": upload("tac2008_topdocs.txt")}
        )
        assert refused.status_code == 400


def test_upload_many_runs_loads_the_good_and_reports_the_bad(org_client, tac):
    beta = (FIXTURES / "tac_valid_run.txt").read_bytes().replace(b"AlphaQA1", b"AlphaQA2")
    response = org_client.post(
        reverse("pooling:runs_upload", args=["tac-test"]),
        {
            "files": [upload("tac_valid_run.txt"), upload("second.txt", beta), upload("tac_bad_run.txt")],
            "new_team": "Team Alpha",
            "priority": "",
        },
    )
    body = response.content.decode()
    assert response.status_code == 400
    assert "tac_bad_run.txt:3: unknown question id &#x27;1001.9&#x27;" in body
    assert sorted(Run.objects.values_list("tag", "priority")) == [("AlphaQA1", 1), ("AlphaQA2", 2)]


def test_pool_build_page_and_progress_partial(org_client, tac, django_capture_on_commit_callbacks):
    org_client.post(
        reverse("pooling:runs_upload", args=["tac-test"]),
        {"files": [upload("tac_valid_run.txt")], "new_team": "Team Alpha"},
    )
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = org_client.post(reverse("pooling:pools", args=["tac-test"]), HTTP_HX_REQUEST="true")
    # queued, not yet run: the partial polls itself
    assert 'hx-trigger="every 1s"' in response.content.decode() and "Queued" in response.content.decode()
    for callback in queued:
        callback()  # tasks run in-process in unit tests
    progress = org_client.get(reverse("pooling:pool_progress", args=["tac-test"])).content.decode()
    assert "Done: 2 of 2 series" in progress and "hx-trigger" not in progress
    assert PoolItem.objects.filter(evaluation=tac).count() == 6
    page = org_client.get(reverse("pooling:pool_question", args=["tac-test", "1001.2"])).content.decode()
    assert "cheap wine and friendly staff" in page and "AlphaQA1:3" in page


def test_assignments_page(org_client, tac, make_user):
    make_user("ann", "assessor")
    make_user("bob", "assessor")
    org_client.post(reverse("assess:assignments", args=["tac-test"]), {"series": "1001", "assessor": "ann"})
    org_client.post(
        reverse("assess:assignments", args=["tac-test"]), {"series": "1001", "assessor": "bob", "second": "on"}
    )
    bad = org_client.post(reverse("assess:assignments", args=["tac-test"]), {"series": "1002", "assessor": "org"})
    assert bad.status_code == 400 and "&#x27;org&#x27; is not an assessor" in bad.content.decode()
    assert sorted(Assignment.objects.values_list("assessor__username", "role")) == [
        ("ann", "primary"),
        ("bob", "secondary"),
    ]


def test_participant_checks_a_file_and_nothing_is_stored(client, make_user, tac):
    make_user("p", "participant", team="Team Alpha")
    client.login(username="p", password=PASSWORD)
    body = client.post(
        reverse("pooling:run_check"), {"evaluation": "tac-test", "file": upload("tac_bad_run.txt")}
    ).content.decode()
    assert "7 problems" in body and "tac_bad_run.txt:6: NIL is not allowed" in body
    body = client.post(
        reverse("pooling:run_check"), {"evaluation": "tac-test", "file": upload("tac_valid_run.txt")}
    ).content.decode()
    assert "no problems" in body and "Run AlphaQA1, 6 lines" in body
    assert not Run.objects.exists()


def test_top_docs_include_renders_ranking_escaped_and_limited(tac):
    from django.template.loader import render_to_string

    from pooling.topics import load_top_docs

    load_top_docs(tac, b"1001 1 D<b>1 9.5\n1001 2 D2 8.25\n1001 3 D3 7\n", "top.txt")
    series = Topic.objects.get(evaluation=tac, ident="1001")
    html = render_to_string("pooling/_top_docs.html", {"series": series, "limit": 2, "doc_url": "/corpus/doc/"})
    assert '<li value="1"><a href="/corpus/doc/D%3Cb%3E1">D&lt;b&gt;1</a> <small>9.500</small></li>' in html
    assert "D2" in html and "D3" not in html
    empty = render_to_string("pooling/_top_docs.html", {"series": Topic.objects.get(evaluation=tac, ident="1002")})
    assert "No top-documents list loaded." in empty


def test_pool_build_answer_carries_the_new_pool_sizes(org_client, tac, django_capture_on_commit_callbacks):
    """The poll that sees the build over swaps in the per-question counts (out of band), so the pools page needs
    no reload; while it runs, and for the evaluation page's poll, no counts come."""
    org_client.post(
        reverse("pooling:runs_upload", args=["tac-test"]),
        {"files": [upload("tac_valid_run.txt")], "new_team": "Team Alpha"},
    )
    page = org_client.get(reverse("pooling:pools", args=["tac-test"])).content.decode()
    assert '<td class="num items">0</td>' in page and "Runs were loaded after the last build" in page
    with django_capture_on_commit_callbacks(execute=False) as queued:
        queued_answer = org_client.post(reverse("pooling:pools", args=["tac-test"]), HTTP_HX_REQUEST="true")
    assert "?sizes=1" in queued_answer.content.decode() and "pool-sizes" not in queued_answer.content.decode()
    for callback in queued:
        callback()
    polled = org_client.get(reverse("pooling:pool_progress", args=["tac-test"]) + "?sizes=1").content.decode()
    assert 'id="pool-sizes-section" hx-swap-oob="true"' in polled
    sizes = {q.ident: q.pool_items.count() for q in Topic.objects.filter(evaluation=tac, parent__isnull=False)}
    assert sum(sizes.values()) == 6
    for ident, n in sizes.items():
        assert f'<tr data-topic="{ident}"><td>' in polled and f'<td class="num items">{n}</td>' in polled
    assert "Runs were loaded after the last build" not in polled
    assert "pool-sizes" not in org_client.get(reverse("pooling:pool_progress", args=["tac-test"])).content.decode()


def test_pools_page_counts_topics_without_questions(org_client, db):
    """BOLT (as BioGen and ciQA) pools topics that have no questions under them: each is a row with its count."""
    from corpus.loading import load_collection
    from pooling.evaluations import create_evaluation
    from pooling.pools import build_pools
    from pooling.topics import load_topics
    from tests.tracks.bolt.test_pipeline import FIXTURES as BOLT
    from tests.tracks.bolt.test_pipeline import load

    load_collection("bolt-sizes-forum", "bolt-forum", [str(BOLT / "forum.xml")])
    ev = create_evaluation("bolt-sizes", "bolt-ir-p2", ["bolt-sizes-forum"])
    load_topics(ev, (BOLT / "topics.xml").read_bytes(), "topics.xml")
    load(ev, "alpha1.xml")
    build_pools(ev)
    body = org_client.get(reverse("pooling:pools", args=["bolt-sizes"])).content.decode()
    assert "No questions" not in body
    for topic in ev.topics.all():
        n = PoolItem.objects.filter(topic=topic).count()
        assert f'<tr data-topic="{topic.ident}">' in body
        assert f'<td class="num items">{n}</td>' in body
    assert PoolItem.objects.filter(evaluation=ev).exists()
