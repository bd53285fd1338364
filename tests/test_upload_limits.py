"""Uploads larger than their kind allows are refused with a message naming the file, its size and the limit,
before they are read (issue 19); XML parsers never expand entities or fetch external ones."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from pooling.evaluations import create_evaluation
from pooling.models import Run, Topic

FIXTURES = Path(__file__).parent / "fixtures"
LIMITS = {"topics": 100, "top_docs": 100, "runs": 50, "manifest": 10, "gold": 100}

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_limits(settings):
    settings.UPLOAD_MAX_BYTES = LIMITS


def _file(name, size):
    return SimpleUploadedFile(name, b"x" * size)


def test_question_file_too_large(client, organizer, small_limits):
    ev = create_evaluation("big-q", "trec2007-qa", [])
    client.force_login(organizer)
    response = client.post(f"/evaluations/{ev.slug}/topics/", {"kind": "questions", "file": _file("q.xml", 2048)})
    assert response.status_code == 400
    assert "q.xml: 2.0 KB is more than the 100 bytes allowed for topics files" in response.content.decode()
    assert not Topic.objects.filter(evaluation=ev).exists()


def test_run_files_and_manifest_too_large(client, organizer, participant, small_limits):
    ev = create_evaluation("big-runs", "trec2007-qa", [])
    client.force_login(organizer)
    response = client.post(
        f"/evaluations/{ev.slug}/runs/upload/",
        {"files": [_file("run1.txt", 51)], "new_team": "Team Alpha", "manifest": _file("m.txt", 11)},
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "run1.txt: 51 bytes is more than the 50 bytes allowed for runs files" in page
    assert "m.txt: 11 bytes is more than the 10 bytes allowed for manifest files" in page
    assert not Run.objects.filter(evaluation=ev).exists()
    client.force_login(participant)
    page = client.post("/check/", {"evaluation": ev.slug, "file": _file("run2.txt", 60)}).content.decode()
    assert "run2.txt: 60 bytes is more than the 50 bytes allowed for runs files" in page


def test_gold_too_large(client, organizer, small_limits):
    ev = create_evaluation("big-gold", "qa4mre-2012", [])
    client.force_login(organizer)
    response = client.post(f"/qa4mre/{ev.slug}/gold/", {"gold": _file("gold.xml", 101)}, follow=True)
    assert "gold.xml: 101 bytes is more than the 100 bytes allowed for gold files" in response.content.decode()


LEVELS = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)]
BOMB = ('<?xml version="1.0"?>\n<!DOCTYPE x [' + "".join(LEVELS) + "]>\n").encode()  # a billion "lol"s
PARSERS = [
    (
        "tracks.qa.formats.topics.parse_topics",
        b'<trecqa><target id="1" text="&{e};"><qa><q id="1.1" type="FACTOID">&{e};?</q></qa></target></trecqa>',
    ),
    (
        "tracks.bolt.formats.topics.parse_topics",
        b'<bolt-ir-topics eval="x" contact="y"><topic number="1.001"><query>&{e};</query>'
        b'<language-target lang="eng"/><description>d</description></topic></bolt-ir-topics>',
    ),
    (
        "tracks.qa4mre.formats.test_set.parse_topics",
        b'<test-set><topic t_id="1" t_name="&{e};"><reading-test r_id="1"><doc d_id="1">&{e};</doc>'
        b"</reading-test></topic></test-set>",
    ),
]


def _parse(dotted, data):
    from importlib import import_module

    module, name = dotted.rsplit(".", 1)
    return getattr(import_module(module), name)(data, "f.xml")


@pytest.mark.parametrize("parse, body", PARSERS, ids=["qa-questions", "bolt-topics", "qa4mre-test-set"])
def test_entity_bombs_refused(parse, body):
    problems, topics = _parse(parse, BOMB + body.replace(b"{e}", b"lol9"))
    assert topics == []
    assert "entity amplification" in problems[0].message


@pytest.mark.parametrize("parse, body", PARSERS, ids=["qa-questions", "bolt-topics", "qa4mre-test-set"])
def test_external_entities_never_fetched(parse, body, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-7f3a")
    external = f'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY secret SYSTEM "file://{secret}">]>\n'.encode()
    _, topics = _parse(parse, external + body.replace(b"{e}", b"secret"))
    assert all("TOP-SECRET" not in f"{t.text} {t.data}" for t in topics)
