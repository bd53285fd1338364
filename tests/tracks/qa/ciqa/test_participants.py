"""ciQA teams submit for themselves (issue 25): initial runs, final runs naming their initial run and URL files on
the participant's page and through the API, with the checks of load_ciqa_run / load_ciqa_urls, the campaign's
window and a receipt each; runs an organizer loaded (the demo's) have receipts too, so the page lists them."""

import io
from datetime import UTC, datetime, timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from api.tokens import create_token
from pooling.evaluations import update_settings
from pooling.models import Run, Submission
from tests.conftest import PASSWORD
from tests.tracks.qa.ciqa.test_pipeline import ciqa, no_docid_check, run_bytes, url_bytes  # noqa: F401 (fixtures)
from tracks.qa.ciqa import submissions
from tracks.qa.ciqa.models import UrlFile

pytestmark = pytest.mark.django_db
INITIAL = run_bytes("UMDi1", ("56", "D1", "drugs cross the border"), ("57", "D2", "grants"))
FINAL = run_bytes("UMDf1", ("56", "D1", "drugs cross the border"), ("57", "D3", "stock options"))


@pytest.fixture
def umd(client, make_user, ciqa, no_docid_check):
    make_user("umd", "participant", team="UMD")
    client.login(username="umd", password=PASSWORD)
    return client


def post(client, name, data, action="submit", **form):
    url = reverse("pooling:participate", args=["ciqa-test"])
    return client.post(url, {"file": SimpleUploadedFile(name, data), "action": action, **form})


def test_a_team_submits_an_initial_run_a_url_file_then_a_final_run_each_with_a_receipt(umd):
    page = umd.get(reverse("pooling:participate", args=["ciqa-test"])).content.decode()
    assert 'value="urls"' in page and 'value="final"' in page  # the page offers both stages and URL files
    r = post(umd, "UMDi1.txt", INITIAL, kind="initial")
    assert r.status_code == 302
    run = Run.objects.get(tag="UMDi1")
    assert (run.data["kind"], run.team.name, run.priority) == ("initial", "UMD", 1)
    receipt = Submission.objects.get(run=run)
    assert r["Location"] == reverse("pooling:receipt", args=[receipt.pk]) and receipt.user.username == "umd"

    r = post(umd, "u.txt", url_bytes("UMDurl1"), kind="urls")
    assert r.status_code == 302
    url_file = UrlFile.objects.get(tag="UMDurl1")
    assert url_file.team.name == "UMD" and set(url_file.urls) == {"ciQA2007throwaway", "56", "57"}
    receipt = Submission.objects.get(tag="UMDurl1", run=None)
    assert receipt.form["kind"] == "URL file" and receipt.user.username == "umd"
    assert "kind: URL file" in umd.get(reverse("pooling:receipt", args=[receipt.pk])).content.decode()

    # the final run is checked against the ciQA rules before it is stored: a wrong initial run is named
    r = post(umd, "UMDf1.txt", FINAL, action="check", kind="final", initial_tag="UMDi9")
    assert r.status_code == 400
    assert "UMDf1.txt:0: initial run &#x27;UMDi9&#x27; has not been submitted" in r.content.decode()
    r = post(umd, "UMDf1.txt", FINAL, action="check", kind="final", initial_tag="UMDi1")
    assert r.status_code == 200 and "No problems." in r.content.decode()
    assert not Run.objects.filter(tag="UMDf1").exists()  # checked only
    assert post(umd, "UMDf1.txt", FINAL, kind="final", initial_tag="UMDi1").status_code == 302
    assert Run.objects.get(tag="UMDf1").data["initial_tag"] == "UMDi1"
    page = umd.get(reverse("pooling:participate", args=["ciqa-test"])).content.decode()
    assert "(final, after UMDi1)" in page and "(URL file)" in page and "(initial)" in page


def test_the_seeds_limits_and_a_missing_stage_are_refused_by_name(umd, ciqa):
    r = post(umd, "UMDi1.txt", INITIAL)  # no stage said
    assert r.status_code == 400 and "say whether the run is an initial or a final run" in r.content.decode()
    update_settings(ciqa, {"max_url_files": 1})
    assert post(umd, "u.txt", url_bytes("UMDurl1"), kind="urls").status_code == 302
    r = post(umd, "u2.txt", url_bytes("UMDurl2"), kind="urls")
    assert r.status_code == 400
    assert "u2.txt:0: team UMD already has 1 URL files (UMDurl1); at most 1 per team" in r.content.decode()
    assert not UrlFile.objects.filter(tag="UMDurl2").exists()


def test_an_internal_address_in_a_url_file_is_refused_with_file_line_and_reason(umd, ciqa):
    data = b"tag UMDurl1\nciQA2007throwaway https://sys.example.org/t\n56 http://169.254.169.254/latest/\n"
    r = post(umd, "u.txt", data + b"57 https://sys.example.org/57\n", kind="urls")
    assert r.status_code == 400
    assert (
        "u.txt:3: URL &#x27;http://169.254.169.254/latest/&#x27;: host &#x27;169.254.169.254&#x27; is a link-local "
        "address" in r.content.decode()
    )
    assert not UrlFile.objects.exists() and not Submission.objects.exists()


def test_a_host_name_of_a_private_address_is_refused_where_it_resolves(umd, no_dns):
    no_dns["intranet.example.org"] = ["10.0.0.7"]
    r = post(umd, "u.txt", url_bytes("UMDurl1", host="intranet.example.org"), kind="urls")
    assert r.status_code == 400
    assert "host &#x27;intranet.example.org&#x27; resolves to 10.0.0.7, a private address" in r.content.decode()


def test_the_window_holds_for_runs_and_url_files_alike(umd, ciqa):
    update_settings(ciqa, {"submission_closes": (datetime.now(UTC) - timedelta(hours=1)).isoformat()})
    for name, data, kind in (("UMDi1.txt", INITIAL, "initial"), ("u.txt", url_bytes("UMDurl1"), "urls")):
        r = post(umd, name, data, kind=kind)
        assert r.status_code == 400 and f"{name}:0: rule &#x27;submission window&#x27;" in r.content.decode()
    assert not Run.objects.exists() and not UrlFile.objects.exists()


def test_runs_and_url_files_an_organizer_loaded_are_listed_with_their_receipts(umd, ciqa, tmp_path):
    path = tmp_path / "UMDi1.txt"
    path.write_bytes(INITIAL)
    call_command("load_ciqa_run", "ciqa-test", str(path), "--team", "UMD", "--stage", "initial")
    submissions.load_url_file(ciqa, url_bytes("UMDurl1"), "u.txt", "UMD")
    page = umd.get(reverse("pooling:participate", args=["ciqa-test"])).content.decode()
    assert "No runs submitted yet" not in page
    assert "UMDi1" in page and "UMDurl1" in page
    assert [s.user for s in Submission.objects.all()] == [None, None]  # sent by the server, not the team


def test_the_api_takes_the_same_submissions(ciqa, make_user, no_docid_check):
    user = make_user("umd", "participant", team="UMD")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {create_token(user)}")
    url = "/api/evaluations/ciqa-test/submissions/"

    def send(name, data, **fields):
        f = io.BytesIO(data)
        f.name = name
        return api.post(url, {"file": f, **fields}, format="multipart")

    r = send("UMDi1.txt", INITIAL, kind="initial", action="check")
    assert r.status_code == 200 and r.json()["ok"] and not Run.objects.exists()
    r = send("UMDi1.txt", INITIAL, kind="initial")
    assert r.status_code == 201 and r.json()["receipt"]["tag"] == "UMDi1"
    r = send("u.txt", url_bytes("UMDurl1"), kind="urls")
    assert r.status_code == 201 and r.json()["receipt"]["kind"] == "URL file"
    r = send("UMDf1.txt", FINAL, kind="final", initial_tag="UMDi1")
    assert r.status_code == 201 and r.json()["receipt"]["initial_tag"] == "UMDi1"
    r = send("u.txt", b"tag X\n56 http://127.0.0.1:8000/x\n", kind="urls")
    assert (
        r.status_code == 400
        and "u.txt:2: URL 'http://127.0.0.1:8000/x': host '127.0.0.1' is a loopback" in (r.json()["problems"][0])
    )
    assert send("UMDf2.txt", FINAL, kind="sideways").status_code == 400  # an unknown kind is named
    assert send("u.txt", url_bytes("X"), kind="urls", team="MIT").status_code == 404  # not the caller's team
    tags = {(r["tag"], r["kind"]) for r in api.get(url).json()}
    assert tags == {("UMDi1", "initial"), ("UMDurl1", "URL file"), ("UMDf1", "final")}


def test_url_files_are_frozen_with_the_runs_and_refused_unread_over_their_limit(umd, ciqa, settings, monkeypatch):
    from pooling.evaluations import set_state
    from tests.security.test_run_integrity import _spy_reads

    settings.UPLOAD_MAX_BYTES = {"urls": 50, "runs": 50}
    reads = _spy_reads(monkeypatch, 50)
    url = reverse("pooling:participate", args=["ciqa-test"])

    def post(client, name, data, **form):  # a file the test client reads itself, not one of the server's uploads
        f = io.BytesIO(data)
        f.name = name
        return client.post(url, {"file": f, "action": "submit", **form})

    r = post(umd, "u.txt", url_bytes("UMDurl1") + b"#" * 100, kind="urls")
    assert r.status_code == 400 and "u.txt: " in r.content.decode() and "more than the 50 bytes" in r.content.decode()
    assert reads == [] and not UrlFile.objects.exists()

    settings.UPLOAD_MAX_BYTES = {}
    set_state(ciqa, "judging")
    r = post(umd, "u.txt", url_bytes("UMDurl1"), kind="urls")
    assert r.status_code == 400 and "runs frozen once judging starts" in r.content.decode()
    assert reads == [] and not UrlFile.objects.exists()  # refused before the file was read
