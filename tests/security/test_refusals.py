"""Issue 26, item 5: the smaller refusals. A second "second assessor" for a series is a clear refusal, not a 500
from the unique constraint; a refused request is logged as one line without traceback; search snippets' match
markers cannot be forged by a document's own \\x01 and \\x02 characters."""

import json
import logging
import sys

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from assess import judging
from assess.models import Assignment
from config.log_filters import RefusalOnOneLine
from corpus.loading import load_collection
from corpus.models import Collection
from corpus.search import search
from tests.test_search_sqlite import SCRIPT


@pytest.fixture
def doubled(primary, make_user, sample):
    """The sample's first series with its primary and a second assessor already."""
    series = sample.series[0]
    Assignment.objects.create(
        evaluation=sample.evaluation, topic=series, assessor=make_user("second", "assessor"), role=Assignment.SECONDARY
    )
    return series


def test_a_second_second_assessor_is_refused_by_name(doubled, organizer, make_user):
    third = make_user("third", "assessor")
    with pytest.raises(judging.JudgingError, match=f"series {doubled.ident} already has a second assessor, second"):
        judging.assign_secondary(organizer, doubled, third)
    held = Assignment.objects.filter(topic=doubled).values_list("assessor__username", "role")
    assert sorted(held) == [("prim", Assignment.PRIMARY), ("second", Assignment.SECONDARY)]


def test_the_organizer_page_says_so_instead_of_a_500(client, doubled, organizer, make_user):
    third = make_user("third", "assessor")
    client.force_login(organizer)
    slug = doubled.evaluation.slug
    answer = client.post(reverse("assess:second_assessor", args=[slug]), {"series": doubled.pk, "user": third.pk})
    assert answer.status_code == 302
    assert [str(m) for m in get_messages(answer.wsgi_request)] == [
        f"series {doubled.ident} already has a second assessor, second"
    ]
    assert not Assignment.objects.filter(assessor=third).exists()


def test_a_refused_request_is_logged_on_one_line_without_traceback(client, participant, caplog):
    client.force_login(participant)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get(reverse("accounts:users")).status_code == 403
    records = [r for r in caplog.records if r.name == "django.request"]
    assert len(records) == 1
    record = records[0]
    assert record.exc_info is None and record.exc_text is None
    line = caplog.handler.format(record)  # as the console shows it
    assert "Forbidden" in line and reverse("accounts:users") in line and "This page is for" in line
    assert "Traceback" not in line and "\n" not in line


def test_a_bad_parameter_and_a_suspicious_request_too(client, organizer, caplog):
    client.force_login(organizer)
    with caplog.at_level(logging.WARNING):
        assert client.get(reverse("pooling:evaluation_list"), HTTP_HOST="evil.example").status_code == 400
    assert caplog.records and all(r.exc_info is None for r in caplog.records)
    assert "Traceback" not in caplog.text


def test_a_server_error_keeps_its_traceback():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.LogRecord(
            "django.request", logging.ERROR, __file__, 1, "Internal Server Error: %s", ("/x",), sys.exc_info()
        )
    record.status_code = 500
    assert RefusalOnOneLine().filter(record) and record.exc_info is not None


def test_a_refusal_line_cannot_fake_another_entry():
    try:
        raise PermissionError("no\nFAKE ENTRY")
    except PermissionError:
        record = logging.LogRecord(
            "django.security.X", logging.WARNING, __file__, 1, "%s: %s", ("Bad", "/p\r\nx"), sys.exc_info()
        )
    record.status_code = 400
    RefusalOnOneLine().filter(record)
    assert "\n" not in record.getMessage() and "\r" not in record.getMessage() and "FAKE ENTRY" in record.getMessage()


STRAY = {
    "pmid": "777",
    "title": "Zebrafish fins",
    "abstract": "Zebrafish regrow fins. Stray bytes \u0001forged\u0002 here, and \u0002 an odd \u0001 one.",
}


def _stray_file(tmp_path):
    path = tmp_path / "stray.jsonl"
    path.write_text(json.dumps(STRAY) + "\n")
    return path


def _only_real_marks(snippet):
    assert "<mark>forged</mark>" not in snippet
    assert snippet.count("<mark>") == snippet.count("</mark>") and snippet.count("<mark>") >= 1
    assert "\x01" not in snippet and "\x02" not in snippet


def test_a_documents_control_bytes_do_not_become_marks(db, tmp_path):
    load_collection("stray", "pubmed", [_stray_file(tmp_path)])
    hit = search("zebrafish", [Collection.objects.get(name="stray")]).hits[0]
    _only_real_marks(hit.snippet)
    assert "forged" in hit.snippet or "Stray" not in hit.snippet


def test_nor_on_sqlite(sqlite_demo, tmp_path):
    done = sqlite_demo.run(SCRIPT, _stray_file(tmp_path), "zebrafish", "stray")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    for query in ("zebrafish", "stray"):
        [[docno, snippet]] = found[query]
        _only_real_marks(snippet)
