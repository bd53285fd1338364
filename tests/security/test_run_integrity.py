"""Issue 26, replayed from outside: a participant cannot change a run once judging starts (page and API), an
organizer can only with a reason that the released reports then show, an oversized upload is refused before it is
read, a hostile BioGen run is refused before it holds the thread, and a GET never starts a team's clock."""

import io
import json
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import InMemoryUploadedFile, SimpleUploadedFile, TemporaryUploadedFile
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from api.tokens import create_token
from core.models import AuditEntry
from pooling.evaluations import LoadError, create_evaluation, set_state
from pooling.models import Download, Evaluation, Participation, Run, Submission
from pooling.pools import build_pools
from pooling.runs import delete_run, load_run_files
from pooling.topics import load_topics
from scoring.release import release
from scoring.reports import build_report
from tests.conftest import PASSWORD
from tests.test_pooling_loading import FIXTURES, blog, run_file, tac  # noqa: F401 (fixtures)
from tracks.qa4mre.loading import load_gold

pytestmark = pytest.mark.django_db
QA4MRE = Path(__file__).resolve().parents[1] / "fixtures" / "qa4mre"
ALPHA_RUN = (QA4MRE / "alph12011enen.xml").read_bytes()
# The same run with every answer withdrawn: c@1 changes, as the attacker's "better" file did.
UNANSWERED = re.sub(rb'answered="YES">\s*<answer a_id="\d"/>', b'answered="NO">', ALPHA_RUN)
# The gold standard with question 1's correct answer withdrawn (an erratum).
GOLD = (QA4MRE / "gold.xml").read_bytes()
GOLD_V2 = re.sub(rb'(<answer a_id="\d") correct="Yes"', rb"\1", GOLD, count=1)


@pytest.fixture
def qa4mre(organizer, participant):
    """A QA4MRE evaluation with Team Alpha's run alph12011enen scored against the gold standard."""
    evaluation = create_evaluation("qa4mre-freeze", "qa4mre-2012")
    load_topics(evaluation, (QA4MRE / "test_set.xml").read_bytes(), "test_set.xml")
    [loaded] = load_run_files(evaluation, [run_file("alph12011enen.xml", data=ALPHA_RUN)])
    assert not loaded.problems
    load_gold(evaluation, (QA4MRE / "gold.xml").read_bytes(), "gold.xml")
    return evaluation


@pytest.fixture
def alpha(client, participant):
    client.login(username="par", password=PASSWORD)
    return client


def _token_client(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {create_token(user)}")
    return client


def _file(name, data):
    """A file for the test client to send (it reads it itself: not one of the server's upload classes)."""
    f = io.BytesIO(data)
    f.name = name
    return f


def _participate(client, slug, name, data, action="submit"):
    return client.post(reverse("pooling:participate", args=[slug]), {"file": _file(name, data), "action": action})


def _c_at_1(run):
    return next(r.value for r in build_report(run).summary if r.key == "c_at_1")


def test_a_released_score_cannot_be_changed_by_the_participant_page_or_api(alpha, participant, qa4mre):
    release(qa4mre, by="org")
    run = Run.objects.get(tag="alph12011enen")
    before = _c_at_1(run)
    refused = _participate(alpha, qa4mre.slug, "alph12011enen.xml", UNANSWERED)
    body = refused.content.decode()
    assert refused.status_code == 400
    assert "runs frozen once judging starts" in body and "are released" in body
    assert Submission.objects.filter(tag="alph12011enen").count() == 1
    assert _c_at_1(Run.objects.get(tag="alph12011enen")) == before
    page = alpha.get(reverse("pooling:participate", args=[qa4mre.slug])).content.decode()
    assert "Closed for runs: the scores of" in page
    # the API gives a participant no way either: storing and deleting runs are the organizers'
    api = _token_client(participant)
    url = f"/api/evaluations/{qa4mre.slug}/runs/"
    sent = api.post(url, {"files": [_file("a.xml", UNANSWERED)], "team": "Team Alpha"}, format="multipart")
    assert sent.status_code == 403 and api.delete(f"{url}alph12011enen/").status_code == 403
    assert Submission.objects.filter(tag="alph12011enen").count() == 1


def test_the_organizer_api_refuses_a_frozen_run_without_a_reason(organizer, qa4mre):
    release(qa4mre, by="org")
    api = _token_client(organizer)
    url = f"/api/evaluations/{qa4mre.slug}/runs/"
    body = {"files": [SimpleUploadedFile("alph12011enen.xml", UNANSWERED)], "team": "Team Alpha"}
    refused = api.post(url, body, format="multipart")
    assert refused.status_code == 400 and "runs frozen once judging starts" in json.dumps(refused.json())
    assert api.delete(f"{url}alph12011enen/").status_code == 400  # no reason given
    assert Run.objects.filter(tag="alph12011enen").exists()


def test_replacing_a_run_while_it_is_judged_is_refused(alpha, tac):
    [loaded] = load_run_files(tac, [run_file("tac_valid_run.txt")])
    build_pools(tac)
    assert Evaluation.objects.get(pk=tac.pk).state == Evaluation.JUDGING
    refused = _participate(alpha, tac.slug, "tac_valid_run.txt", (FIXTURES / "tac_valid_run.txt").read_bytes())
    assert refused.status_code == 400 and "is being judged: runs are frozen" in refused.content.decode()
    assert Submission.objects.count() == 1 and Run.objects.get().loaded_at == loaded.run.loaded_at
    # nor through the organizer's paths without a reason, nor when the organizer reopens the evaluation
    [again] = load_run_files(tac, [run_file("tac_valid_run.txt")])
    assert any("runs frozen once judging starts" in p for p in again.problems)
    set_state(tac, Evaluation.OPEN)
    [reopened] = load_run_files(tac, [run_file("tac_valid_run.txt")])
    assert any("is in the pools built for judging" in p for p in reopened.problems)


def test_an_organizer_override_is_logged_and_the_released_report_says_why_it_changed(qa4mre, organizer):
    release(qa4mre, by="org")
    run = Run.objects.get(tag="alph12011enen")
    before = _c_at_1(run)
    [loaded] = load_run_files(
        qa4mre, [run_file("alph12011enen.xml", data=UNANSWERED)], by=organizer, override_reason="file mix-up at NIST"
    )
    assert not loaded.problems and loaded.replaced
    assert _c_at_1(loaded.run) != before
    entry = AuditEntry.objects.get(action="frozen run loaded")
    assert entry.reason == "file mix-up at NIST" and entry.username == "org"
    [rescored] = build_report(loaded.run).status["rescored"]
    assert rescored["because"] == "file mix-up at NIST" and rescored["what"] == "run alph12011enen loaded"
    with pytest.raises(LoadError, match="cannot be deleted without a reason"):
        delete_run(qa4mre, "alph12011enen")
    with pytest.raises(LoadError, match="give a reason"):  # a gold change is an organizer action too
        load_gold(qa4mre, GOLD_V2, "gold-v2.xml")
    delete_run(qa4mre, "alph12011enen", by=organizer, reason="withdrawn by the team")
    assert AuditEntry.objects.get(action="run deleted").reason == "withdrawn by the team"


def test_the_report_page_shows_the_rescoring(client, qa4mre, organizer, participant):
    release(qa4mre, by="org")
    call_command("load_gold", qa4mre.slug, str(QA4MRE / "gold.xml"))  # the same answers: nothing to explain
    assert GOLD_V2 != GOLD
    load_gold(qa4mre, GOLD_V2, "gold-v2.xml", by=organizer, reason="erratum of question 1.1")
    client.login(username="par", password=PASSWORD)
    page = client.get(reverse("scoring:run_report", args=[qa4mre.slug, "alph12011enen"])).content.decode()
    assert re.search(r"Re-scored on <strong>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</strong> because erratum", page)


def _spy_reads(monkeypatch, most):
    """Every read() of an uploaded file, failing the test when one asks for more than `most` bytes."""
    asked = []

    def spy(original):
        def read(self, size=-1):
            asked.append(size)
            assert size is not None and 0 <= size <= most + 1, f"read({size}) of an upload over its limit"
            return original(self, size)

        return read

    for cls in (InMemoryUploadedFile, TemporaryUploadedFile):
        monkeypatch.setattr(cls, "read", spy(cls.read), raising=False)
    return asked


@pytest.fixture
def small_limits(settings):
    settings.UPLOAD_MAX_BYTES = {k: 50 for k in ("topics", "top_docs", "runs", "manifest", "gold", "judgments")}


def test_an_oversized_run_is_refused_before_it_is_read(alpha, organizer, tac, small_limits, monkeypatch):
    asked = _spy_reads(monkeypatch, 50)
    big = b"x" * 5000
    refused = _participate(alpha, tac.slug, "big.txt", big)
    assert (
        refused.status_code == 400 and "big.txt: 4.9 KB is more than the 50 bytes allowed" in refused.content.decode()
    )
    api = _token_client(organizer)
    for url, body in (
        (f"/api/evaluations/{tac.slug}/runs/", {"files": [_file("big.txt", big)], "team": "Team Alpha"}),
        (f"/api/evaluations/{tac.slug}/runs/check/", {"file": _file("big.txt", big)}),
        (f"/api/evaluations/{tac.slug}/topics/", {"file": _file("big.txt", big)}),
        (f"/api/evaluations/{tac.slug}/judgments/import/", {"file": _file("big.txt", big)}),
    ):
        answer = api.post(url, body, format="multipart")
        assert answer.status_code == 413, url
        assert "big.txt: 4.9 KB is more than the 50 bytes allowed" in json.dumps(answer.json()), url
    assert asked == [] and not Run.objects.exists()


def test_a_file_larger_than_its_size_said_is_read_no_further_than_the_limit(small_limits):
    from config import uploads

    lying = SimpleUploadedFile("run.txt", b"y" * 10_000)
    lying.size = 10
    with pytest.raises(uploads.TooLarge, match="run.txt: what it holds is more than the 50 bytes"):
        uploads.read(lying, "runs")
    assert lying.tell() == 51


def test_a_biogen_run_of_20000_topics_is_refused_before_its_answers_are_split(monkeypatch):
    from pooling.formats.base import CheckContext
    from tracks.biogen.formats import runs

    split, original = [], runs.split_answer
    monkeypatch.setattr(runs, "split_answer", lambda text: split.append(text) or original(text))
    base = json.loads((FIXTURES.parent / "biogen" / "alpha-run1.json").read_text())
    results = [dict(base["results"][0], topic_id=str(i + 1)) for i in range(20_000)]
    data = json.dumps(dict(base, results=results)).encode()
    context = CheckContext(topics={"1": "topic", "2": "topic", "3": "topic"}, settings={"run_shape": "2024"})
    problems, parsed = runs.check_run(data, "big.json", context)
    assert parsed is None and len(split) == 3 + runs.EXTRA_ANSWERS
    assert problems[-1].message.startswith(f"results[{3 + runs.EXTRA_ANSWERS}]: more than 100 answers beyond the 3")


def test_a_get_never_starts_the_qa4mre_clock(alpha, db):
    evaluation = create_evaluation("qa4mre-clock", "qa4mre-2012")
    load_topics(evaluation, (QA4MRE / "test_set.xml").read_bytes(), "test_set.xml")
    url = reverse("pooling:team_file", args=[evaluation.slug, "topics"])
    page = alpha.get(url)
    assert page.status_code == 200 and "Download and start my clock" in page.content.decode()
    assert not Participation.objects.filter(first_download_at__isnull=False).exists() and not Download.objects.exists()
    got = alpha.post(url)
    assert got["Content-Disposition"].startswith("attachment") and got.content.startswith(b"<?xml")
    assert Participation.objects.get(team__name="Team Alpha").first_download_at is not None
    again = alpha.get(url)  # the clock runs already: a GET downloads
    assert again["Content-Disposition"].startswith("attachment")


def test_a_request_over_the_whole_request_limit_is_refused_before_its_body_is_parsed(
    alpha, organizer, tac, settings, monkeypatch
):
    from django.http import multipartparser

    def parse(self):
        raise AssertionError("the body of an oversized request was parsed")

    monkeypatch.setattr(multipartparser.MultiPartParser, "parse", parse)
    settings.UPLOAD_MAX_REQUEST_BYTES = 1000
    refused = _participate(alpha, tac.slug, "big.txt", b"x" * 5000)
    assert refused.status_code == 413 and "more than the 1000 bytes allowed for one request" in refused.content.decode()
    api = _token_client(organizer)
    answer = api.post(f"/api/evaluations/{tac.slug}/topics/", {"file": _file("big.txt", b"x" * 5000)})
    assert answer.status_code == 413 and "UPLOAD_MAX_REQUEST_BYTES" in answer.json()["problems"][0]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)  # the live server's thread sees the data
def test_the_clock_starts_only_from_the_confirmation_button(page, login, live_server, make_user):
    make_user("carol", "participant", team="Team Alpha")
    evaluation = create_evaluation("qa4mre-button", "qa4mre-2012", title="QA4MRE clock")
    load_topics(evaluation, (QA4MRE / "test_set.xml").read_bytes(), "test_set.xml")
    login(page, "carol")
    page.goto(f"{live_server.url}{reverse('pooling:participate', args=[evaluation.slug])}")
    assert "starts your 5-day clock" in page.locator("#files").inner_text()
    page.click("a.team-file[data-kind=topics]")  # a GET: what it starts, and the button
    page.wait_for_selector("#start-clock-button")
    assert not Participation.objects.filter(first_download_at__isnull=False).exists()
    with page.expect_download() as info:
        page.click("#start-clock-button")
    assert info.value.suggested_filename == "test_set.xml"
    assert Participation.objects.get(team__name="Team Alpha").first_download_at is not None
