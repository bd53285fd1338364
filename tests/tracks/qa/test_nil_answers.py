"""The organizer's NIL decisions (seed 001: NIL is right "only if there was no known answer to the question in
the collection"): recorded with who and when, rescored, offered on a page and a command, and written into NIST's
list-judgment file as NIST judged NIL responses."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.judging import Forbidden
from assess.models import Judgment, StructureChange
from pooling.models import Evaluation, StaleTopic, Topic
from scoring.models import Score
from scoring.rescore import rescore_evaluation, rescore_stale_topics
from tracks.qa import nil_answers
from tracks.qa.nist_exports import nist_list_judgments
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db


def _question_score(run, question):
    return Score.objects.get(run=run, scope="question", topic=question, measure="score").value


def _nil_lines(evaluation, qid="216.1"):
    return [line for line in "".join(nist_list_judgments(evaluation)).splitlines() if " NIL " in f"{line} "]


def test_nist_file_judges_a_nil_response_as_nist_did():
    t = tiny_trec2007()
    ev = t["evaluation"]
    # 216.1: runA's answer is judged globally correct, so runB's NIL is wrong (-1), not "not judged" (0).
    assert _nil_lines(ev) == ["216.1 runB NIL -1 0 "]
    Judgment.objects.filter(item=t["items"]["a1"]).update(value={"label": "incorrect", "answer_class": None})
    assert _nil_lines(ev) == ["216.1 runB NIL 1 0 "]  # no known answer: NIL right
    Judgment.objects.filter(item=t["items"]["a1"]).delete()
    assert _nil_lines(ev) == ["216.1 runB NIL 0 0 "]  # cannot be told yet


def test_organizer_marks_nil_recorded_and_rescored(organizer):
    t = tiny_trec2007()
    ev, q = t["evaluation"], t["q"]["216.1"]
    rescore_evaluation(ev.id)
    assert _question_score(t["runB"], q) == 0.0  # runA's answer is known to be right

    assert nil_answers.set_answer_is_nil(organizer, q, "nil", reason="the answer was in no document") is True
    assert Topic.objects.get(pk=q.pk).data["answer_is_nil"] is True
    change = StructureChange.objects.get(topic=q, action=nil_answers.ACTION)
    assert change.actor == organizer and change.at is not None
    assert change.before == {"answer_is_nil": None}
    assert change.after == {"answer_is_nil": True, "reason": "the answer was in no document"}
    assert StaleTopic.objects.filter(topic=q).exists()  # rescored live by the worker
    rescore_stale_topics(ev.id)
    assert _question_score(t["runB"], q) == 1.0
    assert _question_score(t["runA"], q) == 1.0  # the answer judged right stays right
    assert _nil_lines(ev) == ["216.1 runB NIL 1 0 "]

    # The same decision again records nothing; "auto" hands the question back to the judgments.
    assert nil_answers.set_answer_is_nil(organizer, q, "nil") is False
    assert nil_answers.set_answer_is_nil(organizer, q, "auto") is True
    assert "answer_is_nil" not in Topic.objects.get(pk=q.pk).data
    rescore_stale_topics(ev.id)
    assert _question_score(t["runB"], q) == 0.0
    assert StructureChange.objects.filter(topic=q, action=nil_answers.ACTION).count() == 2


def test_marking_an_answer_makes_nil_wrong_though_nothing_was_judged_right(organizer):
    t = tiny_trec2007()
    ev, q = t["evaluation"], t["q"]["216.1"]
    Judgment.objects.filter(item=t["items"]["a1"]).update(value={"label": "incorrect", "answer_class": None})
    rescore_evaluation(ev.id)
    assert _question_score(t["runB"], q) == 1.0
    nil_answers.set_answer_is_nil(organizer, q, "answer", reason="the assessor knows one")
    rescore_stale_topics(ev.id)
    assert _question_score(t["runB"], q) == 0.0
    assert _nil_lines(ev) == ["216.1 runB NIL -1 0 "]


def test_nil_decisions_refused_where_they_make_no_sense(organizer, assessor):
    t = tiny_trec2007()
    with pytest.raises(Forbidden):
        nil_answers.set_answer_is_nil(assessor, t["q"]["216.1"], "nil")
    with pytest.raises(nil_answers.NilError, match="LIST question; NIL answers factoid questions only"):
        nil_answers.set_answer_is_nil(organizer, t["q"]["216.2"], "nil")
    with pytest.raises(nil_answers.NilError, match="unknown decision"):
        nil_answers.set_answer_is_nil(organizer, t["q"]["216.1"], "maybe")
    tac = Evaluation.objects.create(slug="tac-nil", title="TAC", track="tac2008-qa")
    rigid = Topic.objects.create(evaluation=tac, ident="1.1", kind="FACTOID", position=1)
    with pytest.raises(nil_answers.NilError, match="allows no NIL"):
        nil_answers.set_answer_is_nil(organizer, rigid, "nil")
    assert not StructureChange.objects.filter(action=nil_answers.ACTION).exists()


def test_nil_page_for_organizers_only(client, organizer, assessor, participant):
    t = tiny_trec2007()
    url = f"/assess/organize/{t['evaluation'].slug}/nil/"
    for user in (assessor, participant):
        client.force_login(user)
        assert client.get(url).status_code in (302, 403)
        assert client.post(url, {"qid": "216.1", "decision": "nil"}).status_code in (302, 403)
        assert "answer_is_nil" not in Topic.objects.get(pk=t["q"]["216.1"].pk).data
    client.force_login(organizer)
    page = client.get(url).content.decode()
    assert 'data-qid="216.1" data-nil="no"' in page and 'data-qid="217.1"' in page
    assert 'data-qid="216.2"' not in page  # list questions take no NIL
    response = client.post(url, {"qid": "216.1", "decision": "nil", "reason": "none in the collection"})
    assert response.status_code == 302
    page = client.get(url).content.decode()
    assert 'data-qid="216.1" data-nil="yes"' in page and "none in the collection" in page
    assert "org," in page  # who decided
    tac = Evaluation.objects.create(slug="tac-nil-page", title="TAC", track="tac2008-qa")
    assert client.get(f"/assess/organize/{tac.slug}/nil/").status_code == 404


def test_nil_command_lists_and_decides(organizer):
    t = tiny_trec2007()
    slug = t["evaluation"].slug
    out = io.StringIO()
    call_command("nil_answers", slug, stdout=out)
    assert out.getvalue().splitlines() == [
        "216.1\tnot NIL (decided by the judgments; a judged answer shows one)",
        "217.1\tnot NIL (decided by the judgments; a judged answer shows one)",
    ]
    out = io.StringIO()
    call_command("nil_answers", slug, "217.1", "nil", "--by", organizer.username, "--reason", "checked", stdout=out)
    assert out.getvalue().strip() == "217.1: NIL (marked NIL; a judged answer shows one)"
    with pytest.raises(CommandError, match="--by USER is required"):
        call_command("nil_answers", slug, "217.1", "auto")
    with pytest.raises(CommandError, match="NIL answers factoid questions only"):
        call_command("nil_answers", slug, "216.3", "nil", "--by", organizer.username)
