"""QA4MRE pages: who sees what, and that they show the stored scores and escaped documents."""

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from pooling.evaluations import create_evaluation, set_state

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "qa4mre"
SLUG = "qa4mre-views"


def load(evaluation, gold=True):
    call_command("load_topics", SLUG, str(FIXTURES / "test_set.xml"), stdout=StringIO())
    for name, team in [
        ("alph12011enen.xml", "Team Alpha"),
        ("alph12022enen.xml", "Team Alpha"),
        ("beta12013enen.xml", "Team Beta"),
    ]:
        call_command("load_runs", SLUG, str(FIXTURES / name), "--team", team, stdout=StringIO(), stderr=StringIO())
    if gold:
        call_command("load_gold", SLUG, str(FIXTURES / "gold.xml"), stdout=StringIO())


@pytest.fixture
def evaluation(db):
    evaluation = create_evaluation(SLUG, "qa4mre-2012", title="QA4MRE views test")
    load(evaluation)
    return evaluation


def urls(name=None):
    pages = {
        "overview": f"/qa4mre/{SLUG}/",
        "questions": f"/qa4mre/{SLUG}/questions/",
        "test": f"/qa4mre/{SLUG}/tests/1.1/",
        "own report": f"/qa4mre/{SLUG}/runs/alph12022enen/",
        "other report": f"/qa4mre/{SLUG}/runs/beta12013enen/",
    }
    return pages if name is None else pages[name]


def test_anonymous_goes_to_login(client, evaluation):
    for url in urls().values():
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith("/login/")


def test_organizer_sees_everything(client, evaluation, organizer):
    client.force_login(organizer)
    for url in urls().values():
        assert client.get(url).status_code == 200, url
    overview = client.get(urls("overview")).content.decode()
    assert "Gold standard loaded." in overview
    # runs sorted by c@1: 0.700, 0.600, 0.000
    assert overview.index("alph12011enen") < overview.index("alph12022enen") < overview.index("beta12013enen")
    assert '<td class="num c-at-1">0.600</td>' in overview
    assert "2 of 3" in overview  # self-validation: 2 of the 3 candidates right


def test_per_question_view(client, evaluation, organizer):
    client.force_login(organizer)
    page = client.get(urls("questions")).content.decode()
    row = page[page.index('data-question="1.1.3"') :]
    row = row[: row.index("</tr>")]
    # gold 1; runs in tag order: alph12011enen answered 1 (right), alph12022enen NO with candidate 1,
    # beta12013enen NO without candidate
    assert '<td class="right" title="right">1</td>' in row
    assert '<td class="candidate-right" title="candidate-right">NO (1)</td>' in row
    assert '<td class="unanswered" title="unanswered">NO</td>' in row
    assert "1 / 3" in row
    row = page[page.index('data-question="1.2.3"') :]
    assert "<td>none</td>" in row[: row.index("</tr>")]  # no correct answer in the gold standard


FRAME = f"/corpus/{SLUG}-docs/frame/{SLUG}-RT1.1/"


def test_reading_test_page_shows_document_in_viewer_and_gold(client, evaluation, organizer):
    client.force_login(organizer)
    page = client.get(urls("test")).content.decode()
    assert f'data-frame-src="{FRAME}"' in page and "sandbox" in page
    assert 'class="gold">Dr. Mara Okonjo ✓ gold' in page
    frame = client.get(FRAME)
    assert frame.status_code == 200
    assert "Memory clinics in the valley town of Ardel" in frame.content.decode()


def test_document_is_escaped(client, db, organizer, participant, tmp_path):
    evaluation = create_evaluation(SLUG, "qa4mre-2012")
    data = (
        (FIXTURES / "test_set.xml")
        .read_text()
        .replace("Memory clinics in the valley", "&lt;script&gt;alert(1)&lt;/script&gt; Memory clinics in the valley")
    )
    (tmp_path / "t.xml").write_text(data)
    call_command("load_topics", SLUG, str(tmp_path / "t.xml"), stdout=StringIO())
    call_command(
        "load_runs",
        SLUG,
        str(FIXTURES / "alph12011enen.xml"),
        "--team",
        "Team Alpha",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    client.force_login(organizer)
    frame = client.get(FRAME).content.decode()
    assert "<script>alert(1)" not in frame and "&lt;script&gt;alert(1)&lt;/script&gt;" in frame
    # participants read the document as escaped text in their report (the viewer serves organizers and assessors)
    set_state(evaluation, "released")
    client.force_login(participant)
    report = client.get(f"/qa4mre/{SLUG}/runs/alph12011enen/").content.decode()
    assert "<script>alert(1)" not in report
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Memory clinics" in report
    assert "/frame/" not in report


def cells(row):
    return re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)


def test_participant_sees_own_report_only_after_release(client, evaluation, participant):
    client.force_login(participant)
    for name in ("overview", "questions", "test"):
        assert client.get(urls(name)).status_code == 403, name
    assert client.get(urls("own report")).status_code == 404  # not released yet: as if there were no report
    set_state(evaluation, "released")
    response = client.get(urls("own report"))
    assert response.status_code == 200
    assert client.get(urls("other report")).status_code == 404
    page = response.content.decode()
    row = page[page.index('data-topic="1.1"') :]
    row = row[: row.index("</tr>")]
    # reading test 1.1: this run 0.64; c@1 of the three runs 0.8, 0.64, 0.0
    assert cells(row)[:4] == ["0.640", "0.800", "0.640", "0.000"]
    row = page[page.index('data-scope="run"') :]
    assert cells(row[: row.index("</tr>")])[:4] == ["0.600", "0.700", "0.600", "0.000"]
    assert "Memory clinics in the valley town of Ardel" in page  # the documents are part of the report


def test_assessor_sees_nothing(client, evaluation, assessor):
    client.force_login(assessor)
    set_state(evaluation, "released")
    for url in urls().values():
        assert client.get(url).status_code == 403, url


def test_report_before_gold(client, db, organizer):
    evaluation = create_evaluation(SLUG, "qa4mre-2012")
    load(evaluation, gold=False)
    client.force_login(organizer)
    assert "Not scored yet" in client.get(urls("own report")).content.decode()
    overview = client.get(urls("overview")).content.decode()
    assert "No gold standard yet" in overview
    # the page that loads it says so, and sends nobody to a command line for it
    assert "manage.py" not in overview and 'id="gold-form"' in overview


def test_other_tracks_are_not_shown(client, db, organizer):
    create_evaluation("trec-x", "trec2007-qa")
    client.force_login(organizer)
    assert client.get("/qa4mre/trec-x/").status_code == 404


def test_shared_report_scoreboard_and_downloads(client, evaluation, organizer, participant):
    """The scoring app's report page, CSV/JSON downloads and scoreboard show QA4MRE's stored scores."""
    client.force_login(organizer)
    board = client.get(f"/scores/{SLUG}/").content.decode()
    assert board.index("alph12011enen") < board.index("alph12022enen") < board.index("beta12013enen")
    data = client.get(f"/scores/{SLUG}/runs/alph12022enen/report.json").json()
    summary = {r["key"]: r for r in data["summary"]}
    assert summary["c_at_1"]["value"] == pytest.approx(0.6)
    assert (summary["c_at_1"]["best"], summary["c_at_1"]["median"], summary["c_at_1"]["worst"]) == (
        pytest.approx(0.7),
        pytest.approx(0.6),
        0.0,
    )
    assert summary["c_at_1"]["note"] == "4 right, 1 wrong, 5 unanswered of 10; candidates right 2 of 3"
    assert summary["self_validation"]["value"] == pytest.approx(2 / 3)
    sections = {s["title"]: {r["key"]: r for r in s["rows"]} for s in data["sections"]}
    tests = sections["c@1 per reading test"]
    assert tests["1.2"]["value"] == pytest.approx(0.56)
    assert (tests["1.1"]["best"], tests["1.1"]["median"], tests["1.1"]["worst"]) == (
        pytest.approx(0.8),
        pytest.approx(0.64),
        0.0,
    )
    assert sections["c@1 per topic"]["1"]["value"] == pytest.approx(0.6)
    assert sections["Per question (1 = answered right)"]["1.1.3"]["note"] == "not answered (candidate 1); gold 1"
    csv_text = client.get(f"/scores/{SLUG}/runs/alph12022enen/report.csv").content.decode()
    assert "c@1 per reading test,1.1,Reading test 1,0.6400,0.8000,0.6400,0.0000" in csv_text
    page = client.get(f"/scores/{SLUG}/runs/alph12022enen/").content.decode()
    assert "c@1 per reading test" in page
    # participants: their own runs once released, through the same page
    client.force_login(participant)
    assert client.get(f"/scores/{SLUG}/runs/alph12022enen/").status_code == 404
    set_state(evaluation, "released")
    assert client.get(f"/scores/{SLUG}/runs/alph12022enen/").status_code == 200
    assert client.get(f"/scores/{SLUG}/runs/beta12013enen/").status_code == 404


def test_gold_upload_form(client, db, organizer, participant):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from scoring.models import Score

    evaluation = create_evaluation(SLUG, "qa4mre-2012")
    load(evaluation, gold=False)
    url = f"/qa4mre/{SLUG}/gold/"
    gold = (FIXTURES / "gold.xml").read_bytes()
    client.force_login(participant)
    assert client.post(url, {"gold": SimpleUploadedFile("gold.xml", gold)}).status_code == 403
    client.force_login(organizer)
    bad = gold.replace(
        b'<answer a_id="1">a fishing cooperative</answer>',
        b'<answer a_id="1" correct="Yes">a fishing cooperative</answer>',
    )
    page = client.post(url, {"gold": SimpleUploadedFile("bad.xml", bad)}, follow=True).content.decode()
    assert "bad.xml was not loaded: 1 problem(s)." in page
    assert "bad.xml:16: question 1.1.1 has 2 answers marked correct=&quot;Yes&quot; (at most one)" in page
    assert not Score.objects.exists()
    page = client.post(url, {"gold": SimpleUploadedFile("gold.xml", gold)}, follow=True).content.decode()
    assert "Gold answers of 10 questions loaded (1 without a correct answer); every run rescored." in page
    assert Score.objects.get(run__tag="alph12022enen", scope="run", measure="c_at_1").value == pytest.approx(0.6)


def test_results_export(client, evaluation, organizer, participant):
    client.force_login(participant)
    assert client.get(f"/qa4mre/{SLUG}/results.csv").status_code == 403
    client.force_login(organizer)
    lines = client.get(f"/qa4mre/{SLUG}/results.csv").content.decode().splitlines()
    assert lines[0] == (
        "run,team,scope,id,c_at_1,accuracy_answered,self_validation,n,right,wrong,unanswered,"
        "candidates,candidates_right"
    )
    assert lines[1:5] == [
        "alph12011enen,Team Alpha,run,,0.7000,0.7000,,10,7,3,0,0,0",
        "alph12011enen,Team Alpha,topic,1,0.7000,0.7000,,10,7,3,0,0,0",
        "alph12011enen,Team Alpha,reading-test,1.1,0.8000,0.8000,,5,4,1,0,0,0",
        "alph12011enen,Team Alpha,reading-test,1.2,0.6000,0.6000,,5,3,2,0,0,0",
    ]
    assert "alph12022enen,Team Alpha,reading-test,1.1,0.6400,1.0000,0.5000,5,2,0,3,2,1" in lines
    assert "beta12013enen,Team Beta,run,,0.0000,,,10,0,0,10,0,0" in lines


def test_upload_page_checks_and_scores_a_run(client, db, organizer, participant):
    """Pooling's shared upload page loads a QA4MRE run (priority = run number) and it is scored at once."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from pooling.models import Run
    from scoring.models import Score

    create_evaluation(SLUG, "qa4mre-2012")
    call_command("load_topics", SLUG, str(FIXTURES / "test_set.xml"), stdout=StringIO())
    call_command("load_gold", SLUG, str(FIXTURES / "gold.xml"), stdout=StringIO())
    client.force_login(organizer)
    body = (FIXTURES / "alph12022enen.xml").read_bytes()
    response = client.post(
        f"/evaluations/{SLUG}/runs/upload/",
        {"files": [SimpleUploadedFile("alph12022enen.xml", body)], "new_team": "Team Alpha"},
    )
    assert response.status_code == 200, response.content.decode()[-2000:]
    run = Run.objects.get(tag="alph12022enen")
    assert run.priority == 2
    assert Score.objects.get(run=run, scope="run", measure="c_at_1").value == pytest.approx(0.6)
    # a participant checks a broken file on the shared check page: every problem with its line
    client.force_login(participant)
    broken = body.replace(b'<question q_id="2" answered="NO"/>', b'<question q_id="2" answered="no"/>', 1)
    page = client.post("/check/", {"evaluation": SLUG, "file": SimpleUploadedFile("x.xml", broken)}).content.decode()
    assert "x.xml:8: question 1.1.2: answered=&quot;no&quot;; it must be &quot;YES&quot; or &quot;NO&quot;" in page
