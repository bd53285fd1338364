"""manage.py import_nuggets: nuggets in from a nuggetizer nuggets file (issue 28), for questions without any."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.models import Judgment, Nugget
from core.models import AuditEntry
from pooling.models import StaleTopic
from tracks.qa.nuggetizer_exports import nuggetizer_nuggets
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db


def _file(tmp_path, records):
    path = tmp_path / "nuggets.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_nuggets_come_in_with_their_importance_as_the_official_vote(tmp_path, make_user):
    t = tiny_trec2007()
    ev = t["evaluation"]
    Nugget.objects.filter(topic=t["q"]["217.2"]).delete()  # 217.2 has no nuggets now
    StaleTopic.objects.all().delete()
    org = make_user("nz-importer", "organizer")
    theirs = {
        "query": "Jay-Z",
        "qid": "217.2",
        "nuggets": [{"text": " founded Roc Nation ", "importance": "okay"}, {"text": "rapper"}],  # no importance: vital
    }
    call_command("import_nuggets", ev.slug, _file(tmp_path, [theirs]), "--by", org.username)
    made = list(Nugget.objects.filter(topic=t["q"]["217.2"]).order_by("position"))
    assert [(n.text, n.position, n.created_by_id) for n in made] == [
        ("founded Roc Nation", 1, org.pk),
        ("rapper", 2, org.pk),
    ]
    votes = Judgment.objects.filter(nugget__in=made, kind="nugget_vote", role=Judgment.PRIMARY, assessor=org)
    assert sorted(v.value["vote"] for v in votes) == ["okay", "vital"]
    lines = [json.loads(line) for line in nuggetizer_nuggets(ev)]
    assert lines[1]["nuggets"] == [
        {"text": "founded Roc Nation", "importance": "okay"},
        {"text": "rapper", "importance": "vital"},
    ]
    assert StaleTopic.objects.filter(topic=t["q"]["217.2"]).exists()  # rescored
    entry = AuditEntry.objects.get(action="qa.import_nuggets")
    assert entry.user == org and entry.after == {
        "file": _file(tmp_path, [theirs]),
        "questions": ["217.2"],
        "nuggets": 2,
    }


def test_a_bad_file_is_refused_whole_naming_each_line(tmp_path, make_user):
    t = tiny_trec2007()
    ev = t["evaluation"]
    Nugget.objects.filter(topic=t["q"]["217.2"]).delete()
    org = make_user("nz-importer2", "organizer")
    before = Nugget.objects.count()
    path = _file(
        tmp_path,
        [
            {"qid": "217.2", "nuggets": [{"text": "rapper", "importance": "vital"}]},  # fine alone
            {"qid": "216.3", "nuggets": [{"text": "economist", "importance": "vital"}]},
            {"qid": "999.9", "nuggets": []},
            {"qid": "216.1", "nuggets": [{"text": "x", "importance": "okay"}]},
        ],
    )
    with pytest.raises(CommandError) as raised:
        call_command("import_nuggets", ev.slug, path, "--by", org.username)
    assert str(raised.value).splitlines() == [
        f"{path}:2: question 216.3 already has nuggets; nothing is replaced",
        f"{path}:3: {ev.slug} has no question '999.9'",
        f"{path}:4: question 216.1 is a FACTOID question; it has no nuggets",
    ]
    twice = _file(tmp_path, [{"qid": "217.2", "nuggets": [{"text": "Rapper"}, {"text": "rapper "}]}])
    with pytest.raises(CommandError, match=r"nuggets.jsonl:1: nugget 'Rapper' twice in question 217.2"):
        call_command("import_nuggets", ev.slug, twice, "--by", org.username)
    syntax = tmp_path / "bad.jsonl"
    syntax.write_text('{"qid": "217.2", "nuggets": [{"text": "a", "importance": "ok"}]}\n')
    with pytest.raises(CommandError, match="bad.jsonl:1: nugget 1's importance 'ok'"):
        call_command("import_nuggets", ev.slug, str(syntax), "--by", org.username)
    assert Nugget.objects.count() == before and not AuditEntry.objects.filter(action="qa.import_nuggets").exists()
