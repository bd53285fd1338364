"""A TREC RAG evaluation's judgments file round trip (scoring.judgments_jsonl with tracks.rag.judgments_jsonl):
the demo, judged, with a decision, exported, deleted, rebuilt from the same files and imported: nuggets, their
suggestions, every judgment with its history and the answers' nugget assignments (by the new nugget ids), the
structure log and the scores are what they were."""

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from assess.models import Judgment, JudgmentChange, Nugget, StructureChange
from pooling.models import Evaluation
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tracks.rag import judging
from tracks.rag.demo import SLUG, load_rag_demo


def snapshot(ev):
    nuggets = {
        n.pk: (n.topic.ident, n.text, n.position, n.created_by.username)
        for n in Nugget.objects.filter(topic__evaluation=ev)
    }

    def named(value):
        value = dict(value or {})
        if value.get("nuggets"):
            value["nuggets"] = sorted((nuggets[int(k)][1], v) for k, v in value["nuggets"].items())
        return value

    def subject(j):
        return j.item.key if j.item_id else nuggets[j.nugget_id][1]

    judgments = sorted(
        repr((j.topic.ident, j.kind, subject(j), j.assessor.username, j.role, named(j.value), j.version))
        for j in Judgment.objects.filter(evaluation=ev).select_related("topic", "item", "assessor")
    )
    history = sorted(
        repr((subject(c.judgment), c.changed_by.username, c.version, named(c.before), named(c.after)))
        for c in JudgmentChange.objects.filter(judgment__evaluation=ev).select_related("judgment__item", "changed_by")
    )
    structure = sorted(
        repr((s.topic.ident, s.actor.username, s.action, (s.after or {}).get("text"), (s.before or {}).get("text")))
        for s in StructureChange.objects.filter(topic__evaluation=ev).select_related("topic", "actor")
    )
    rescore_evaluation(ev.id)
    scores = sorted(
        (s.run.tag, s.topic.ident if s.topic_id else "", s.measure, s.value)
        for s in Score.objects.filter(run__evaluation=ev).select_related("run", "topic")
    )
    suggestions = {t.ident: judging.suggestions(t) for t in ev.topics.all()}
    return {"nuggets": sorted(nuggets.values()), "judgments": judgments, "history": history,
            "structure": structure, "scores": scores, "suggestions": suggestions}  # fmt: skip


def test_the_rag_demo_round_trips(tmp_path, make_user):
    users = {
        n: make_user(n, r) for n, r in (("organizer", "organizer"), ("assessor", "assessor"), ("assessor2", "assessor"))
    }
    load_rag_demo(lambda _: None)
    ev = Evaluation.objects.get(slug=SLUG)
    queue = judging.adjudication_queue(ev)
    judging.adjudicate(users["organizer"], queue[0][0], dict(queue[0][2].value), 0)
    before = snapshot(ev)
    assert before["nuggets"] and before["suggestions"]["2024-145"] == [] and before["suggestions"]["2024-212"]
    assert any('"assigned"' in j or "'assigned'" in j for j in before["judgments"])
    assert any(v is not None and m == "nugget_all" for _, _, m, v in before["scores"])
    path = tmp_path / "judgments.jsonl"
    call_command("export_judgments", SLUG, "--output", str(path))
    ev.delete()
    User.objects.filter(username__in=("assessor", "assessor2")).delete()  # the rebuild judges nothing
    load_rag_demo(lambda _: None)
    assert not Nugget.objects.filter(topic__evaluation__slug=SLUG).exists()
    call_command("import_judgments", SLUG, str(path))
    after = snapshot(Evaluation.objects.get(slug=SLUG))
    for part in before:
        assert after[part] == before[part], part


@pytest.fixture(autouse=True)
def _db(db):
    pass
