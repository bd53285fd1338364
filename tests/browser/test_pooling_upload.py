"""The organizer's flow in Chromium: create an evaluation, load questions, upload runs (one bad), build pools;
and a participant checking a file before sending it."""

import pytest

from corpus.models import Collection, Document
from pooling.models import PoolItem, Run
from tests.test_pooling_loading import DOCNOS, FIXTURES

pytestmark = pytest.mark.browser


@pytest.fixture
def blog(transactional_db):
    collection = Collection.objects.create(name="test-blog06", format="blog06")
    Document.objects.bulk_create([Document(collection=collection, docno=d, raw=b"<DOC></DOC>") for d in DOCNOS])
    return collection


def test_organizer_creates_loads_checks_and_pools(page, login, make_user, live_server, blog):
    make_user("boss", "organizer")
    login(page, "boss")
    page.click("#new-evaluation")
    page.fill("input[name=slug]", "tac-browser")
    page.select_option("select[name=track]", "tac2008-qa")
    page.select_option("select[name=collections]", ["test-blog06"])
    page.click("#evaluation-form button[type=submit]")
    assert page.locator("h1").inner_text().startswith("TAC 2008 QA")
    assert page.locator("input[name=max_answer_chars]").input_value() == "7000"

    page.click("text=Load or view questions and top-documents lists")
    page.set_input_files("#topics-form input[name=file]", str(FIXTURES / "tac2008_questions.xml"))
    page.click("#topics-form button[type=submit]")
    assert page.locator("#series tr").count() == 1 + 7
    page.click("text=Back to the evaluation")

    page.click("#upload-runs")
    page.set_input_files("input[name=files]", [str(FIXTURES / "tac_valid_run.txt"), str(FIXTURES / "tac_bad_run.txt")])
    page.fill("input[name=new_team]", "Team Alpha")
    page.click("#runs-form button[type=submit]")
    assert page.locator("#results tr.loaded").inner_text().startswith("tac_valid_run.txt")
    problems = page.locator("#results tr.failed pre.problems").inner_text().splitlines()
    assert problems[0] == (
        "tac_bad_run.txt:2: missing columns: expected 'qid run-tag docid answer-string', found 2 columns"
    )
    assert len(problems) == 7
    assert list(Run.objects.values_list("tag", flat=True)) == ["AlphaQA1"]
    # the outcome is above the long form, not a screen below it
    assert page.locator("#results").bounding_box()["y"] < page.locator("#runs-form").bounding_box()["y"]

    page.click("text=Back to the evaluation")
    page.click("text=Pools and build progress")
    page.click("#build-form button[type=submit]")  # htmx swaps in the progress partial, and the sizes
    page.wait_for_selector("#pool-progress[data-status=done]")
    assert "2 of 2 series" in page.locator("#pool-progress").inner_text()
    assert page.locator("#pool-sizes").inner_text().count("\n") >= 5
    assert PoolItem.objects.filter(evaluation__slug="tac-browser").count() == 6


def test_participant_checks_a_file(page, login, make_user, blog):
    from pooling.evaluations import create_evaluation
    from pooling.topics import load_topics

    evaluation = create_evaluation("tac-check", "tac2008-qa", ["test-blog06"], title="TAC check")
    load_topics(evaluation, (FIXTURES / "tac2008_questions.xml").read_bytes(), "q.xml")
    make_user("pat", "participant", team="Team Alpha")
    login(page, "pat")
    page.click("#check-link")
    page.select_option("select[name=evaluation]", "tac-check")
    page.set_input_files("#check-form input[name=file]", str(FIXTURES / "tac_bad_run.txt"))
    page.click("#check-form button[type=submit]")
    assert "7 problems" in page.locator("#check-result").inner_text()
    assert (
        "tac_bad_run.txt:5: docid 'BLOG06-feed-000042' is not a permalink document"
        in page.locator("#problems").inner_text()
    )
    page.set_input_files("#check-form input[name=file]", str(FIXTURES / "tac_valid_run.txt"))
    page.click("#check-form button[type=submit]")
    assert page.locator("#ok").inner_text().startswith("tac_valid_run.txt: no problems.")
    assert not Run.objects.exists()
