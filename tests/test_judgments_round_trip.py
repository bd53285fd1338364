"""Export → import is lossless for every track (issue 14, part 3): an evaluation with every kind of judgment
(primary, second, adjudicated; classes, nuggets, votes, matches; found answers and found citations; grouping
views; closures; several versions) is exported, deleted, rebuilt from the same files, and the export imported;
every judgment, history row, structure-log row, found item and score is then what it was.

The organizer decisions that change a score, each covered below: answer classes (made, merged, split), nuggets
(made, edited, merged, deleted) and their vital/okay votes (the primary's later vote set, invited voters),
adjudications (QA, BOLT, BioGen), found answers and citations, closed questions, NIL decisions (TREC 2007) and the
evaluation's settings (series weights). Every Score row is compared before and after (`snapshot`)."""

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from assess import judging as generic
from assess.models import (
    AnswerClass,
    Assignment,
    Invitation,
    Judgment,
    JudgmentChange,
    Nugget,
    StructureChange,
    TopicClosure,
)
from corpus.loading import load_collection
from corpus.models import Document
from pooling.models import Evaluation, PoolItem
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tests.test_scoring_full_unchanged import portable  # (a series' sums hold id sums)
from tracks.qa.judgments_jsonl import structure_ids

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def snapshot(evaluation):
    """Everything the export must carry, named by what survives a rebuild (idents, keys, usernames, labels)."""
    classes = {
        c.id: (c.topic.ident, c.label, c.created_by.username, c.created_at)
        for c in AnswerClass.objects.filter(topic__evaluation=evaluation).select_related("topic", "created_by")
    }
    nuggets = {
        n.id: (n.topic.ident, n.text, n.position, n.created_by.username, n.created_at)
        for n in Nugget.objects.filter(topic__evaluation=evaluation).select_related("topic", "created_by")
    }

    def by_identity(rows):
        # a class or nugget deleted in the source keeps its source id (the import negates it: -id)
        return lambda pk: rows[pk] if pk in rows else ("gone", abs(pk))

    def value(v):
        if not isinstance(v, dict):
            return v
        v = dict(v)
        if v.get("answer_class") is not None:
            v["answer_class"] = by_identity(classes)(v["answer_class"])
        if "nuggets" in v:
            v["nuggets"] = sorted(by_identity(nuggets)(n) for n in v["nuggets"])
        return v

    items = {
        i.pk: (i.topic.ident, i.key) for i in PoolItem.objects.filter(evaluation=evaluation).select_related("topic")
    }
    usernames = dict(User.objects.values_list("id", "username"))

    def structure_value(action, v):
        return structure_ids(
            action, v, by_identity(classes), by_identity(nuggets), by_identity(items), by_identity(usernames)
        )

    def subject(j):
        return (j.item.topic.ident, j.item.key) if j.item_id else nuggets[j.nugget_id]

    judgments = sorted(
        repr((j.topic.ident, j.kind, subject(j), j.assessor.username, j.role, value(j.value), j.version, j.updated_at))
        for j in Judgment.objects.filter(evaluation=evaluation).select_related("topic", "item__topic", "assessor")
    )
    history = sorted(
        repr(
            (
                subject(c.judgment),
                c.judgment.kind,
                c.judgment.assessor.username,
                c.changed_by.username,
                c.changed_at,
                c.version,
                value(c.before),
                value(c.after),
            )
        )
        for c in JudgmentChange.objects.filter(judgment__evaluation=evaluation).select_related(
            "judgment__item__topic", "judgment__assessor", "changed_by"
        )
    )
    structure = sorted(
        repr(
            (
                s.topic.ident,
                s.actor.username,
                s.at,
                s.action,
                structure_value(s.action, s.before),
                structure_value(s.action, s.after),
            )
        )
        for s in StructureChange.objects.filter(topic__evaluation=evaluation).select_related("topic", "actor")
    )
    found = sorted(
        (i.topic.ident, i.key, i.pool_id, i.docid, i.text, i.position, repr(i.data))
        for i in PoolItem.objects.filter(evaluation=evaluation, origin=PoolItem.ASSESSOR).select_related("topic")
    )
    closures = sorted(
        (c.topic.ident, c.closed_by.username, c.closed_at)
        for c in TopicClosure.objects.filter(topic__evaluation=evaluation).select_related("topic", "closed_by")
    )
    assignments = sorted(
        (a.topic.ident, a.assessor.username, a.role, a.created_at)
        for a in Assignment.objects.filter(evaluation=evaluation).select_related("topic", "assessor")
    )
    invitations = sorted(
        (i.kind, i.topic.ident if i.topic_id else "", i.user.username, i.invited_by.username, i.created_at)
        for i in Invitation.objects.filter(evaluation=evaluation).select_related("topic", "user", "invited_by")
    )
    rescore_evaluation(evaluation.id)
    scores = sorted(
        (s.run.tag, s.scope, s.topic.ident if s.topic_id else "", s.measure, s.value, repr(portable(s.detail)))
        for s in Score.objects.filter(run__evaluation=evaluation).select_related("run", "topic")
    )
    return {
        "classes": sorted(classes.values()),
        "nuggets": sorted(nuggets.values()),
        "judgments": judgments,
        "history": history,
        "structure": structure,
        "found": found,
        "closures": closures,
        "assignments": assignments,
        "invitations": invitations,
        "scores": scores,
    }


def round_trip(tmp_path, evaluation, rebuild, forget=()):
    """Export, delete the evaluation (and the users named in `forget`, as a fresh database would not have
    them), rebuild it from the same files (`rebuild()` returns it), import."""
    before = snapshot(evaluation)
    path = tmp_path / "judgments.jsonl"
    call_command("export_judgments", evaluation.slug, "--output", str(path))
    slug = evaluation.slug
    evaluation.delete()
    assert not Judgment.objects.filter(evaluation__slug=slug).exists()
    User.objects.filter(username__in=forget).delete()
    rebuild()
    call_command("import_judgments", slug, str(path))
    after = snapshot(Evaluation.objects.get(slug=slug))
    for part in before:
        assert after[part] == before[part], part
    return before


# --- TAC 2008 and TREC 2007 QA -------------------------------------------------------------------------------


@pytest.fixture
def blog06(db):
    load_collection(
        "demo-blog06", "blog06", [FIXTURES / "corpus" / "blog06-demo.txt", FIXTURES / "corpus" / "blog06-demo-2.txt.gz"]
    )


@pytest.fixture
def demo_users(make_user):
    return {
        name: make_user(name, role)
        for name, role in (
            ("organizer", "organizer"),
            ("assessor", "assessor"),
            ("assessor2", "assessor"),
            ("assessor3", "assessor"),
        )
    }


def _any_docno():
    return Document.objects.filter(collection__name="demo-blog06").order_by("docno").values_list("docno", flat=True)[0]


def test_tac2008_round_trip(tmp_path, blog06, demo_users):
    from tracks.qa import adjudication, instance_judging, nugget_judging
    from tracks.qa.demo_evaluation import SLUG, load_tac_demo
    from tracks.qa.demo_judgments import judge_demo

    load_tac_demo(out=lambda _: None)
    judge_demo(lambda _: None)
    ev = Evaluation.objects.get(slug=SLUG)
    users = demo_users
    rigid = ev.topics.get(ident="1001.1")
    found = instance_judging.add_found_answer(users["assessor"], rigid, _any_docno(), "a   found answer")
    assert found.origin == PoolItem.ASSESSOR
    # the disagreement judge_demo leaves, decided by the organizer
    ((item, _, _, _),) = adjudication.adjudication_queue(ev)
    adjudication.adjudicate(users["organizer"], item, "incorrect", 0)
    # a second version of a judgment, a nugget edited, and a closed question
    judgment = Judgment.objects.filter(evaluation=ev, kind="instance", role=Judgment.PRIMARY).order_by("id").first()
    instance_judging.judge_instance(
        users["assessor"], generic.load_item(users["assessor"], judgment.item_id), "incorrect", 1
    )
    nugget = Nugget.objects.filter(topic__evaluation=ev).order_by("id").first()
    nugget_judging.edit_nugget(users["assessor"], nugget, nugget.text + " (edited)")
    # Classes and nuggets merged away and deleted: the history still names them.
    first, second, *_ = AnswerClass.objects.filter(topic=rigid).order_by("id")
    instance_judging.merge_classes(users["assessor"], first, [second])
    nuggets = list(Nugget.objects.filter(topic=nugget.topic).order_by("id"))
    nugget_judging.merge_nuggets(users["assessor"], nuggets[0], [nuggets[1]])
    nugget_judging.delete_nugget(users["assessor"], nuggets[2], confirmed=True)
    member = Judgment.objects.filter(kind="instance", value__answer_class=first.pk).values_list("item_id", flat=True)
    instance_judging.split_class(users["assessor"], first, [member[0]], "split off")
    generic.close_question(users["organizer"], ev.topics.get(ident="1002"))
    kinds = set(Judgment.objects.filter(evaluation=ev).values_list("kind", "role"))
    assert kinds >= {("instance", "primary"), ("instance", "secondary"), ("instance", "adjudicated")}
    assert {k for k, _ in kinds} == {"instance", "nugget_match", "nugget_vote"}

    def rebuild():
        load_tac_demo(out=lambda _: None)
        return Evaluation.objects.get(slug=SLUG)

    before = round_trip(tmp_path, ev, rebuild)
    assert any(f[1].endswith("a found answer") for f in before["found"]) and before["closures"]
    assert any(s[4] is not None and s[4] > 0 for s in before["scores"])


# A run answering every TREC 2007 demo question with NIL: the factoids' NIL responses and the list and Other
# questions' explicit empty responses, so the organizer's NIL decisions change its score.
GAMMA = "".join(f"{q} GammaQA07 NIL\n" for q in ("301.1", "301.2", "301.3", "302.1", "302.2", "302.3")).encode()


def _trec2007_with_nil_run():
    from pooling.pools import build_pools
    from pooling.runs import RunFile, load_run_files
    from tracks.qa.demo_trec2007 import SLUG, load_trec2007_demo

    load_trec2007_demo(out=lambda _: None)
    ev = Evaluation.objects.get(slug=SLUG)
    late = [RunFile(filename="GammaQA07.txt", data=GAMMA, team="Team Gamma", priority=1)]
    (loaded,) = load_run_files(ev, late, override_reason="a late run, judged with the others")  # the demo is judged
    assert loaded.problems == []
    build_pools(ev)
    return ev


def test_trec2007_round_trip(tmp_path, blog06, demo_users):
    from pooling.evaluations import update_settings
    from tracks.qa import instance_judging, nil_answers, nugget_judging, questions

    ev = _trec2007_with_nil_run()
    user = demo_users["assessor3"]
    factoid, listq, other = (ev.topics.get(ident=i) for i in ("301.1", "301.2", "301.3"))
    for question in (factoid, listq, ev.topics.get(ident="302.1")):
        for n, item in enumerate(PoolItem.objects.filter(topic=question).order_by("position", "id")):
            item = generic.load_item(user, item.pk)
            labels = questions.labels_for(item, ev)
            if questions.is_list_question(question) and n == 0:
                instance_judging.create_class(user, question, item.text, item=item, expected_version=0)
            else:
                instance_judging.judge_instance(user, item, labels[-1] if n == 0 else labels[0], 0)
    instance_judging.add_found_answer(user, listq, _any_docno(), "Fay Wray")
    instance_judging.add_found_answer(user, factoid, _any_docno(), "Naomi Watts herself")
    first = nugget_judging.create_nugget(user, other, "too long")
    second = nugget_judging.create_nugget(user, other, "fake effects")
    nugget_judging.vote(user, first, "vital", 0)
    nugget_judging.vote(user, second, "okay", 0)
    for item in PoolItem.objects.filter(topic=other):
        nugget_judging.match(user, generic.load_item(user, item.pk), [first.pk], 0)
    generic.ask_revote(demo_users["organizer"], ev.topics.get(ident="301"))  # the primary's later vote set
    nugget_judging.vote(user, first, "okay", 0, later=True)
    generic.close_question(demo_users["organizer"], factoid)
    assert {k for (k,) in Judgment.objects.filter(evaluation=ev).values_list("kind")} == {
        "instance",
        "nugget_vote",
        "nugget_revote",
        "nugget_match",
    }
    # The organizer's decisions that are no judgments: 302.1 has no answer in the collection though its first
    # answer was judged right (NIL decision), 301.1 has one; the series weigh factoids half (a setting).
    organizer = demo_users["organizer"]
    nil_answers.set_answer_is_nil(organizer, ev.topics.get(ident="302.1"), "nil", reason="no document holds it")
    nil_answers.set_answer_is_nil(organizer, factoid, "answer")
    update_settings(ev, {"series_weights": {"FACTOID": 0.5, "LIST": 0.25, "OTHER": 0.25}}, by=organizer)

    before = round_trip(tmp_path, ev, _trec2007_with_nil_run)
    assert len(before["found"]) == 2 and before["nuggets"] and before["classes"] and before["invitations"]
    # GammaQA07 by hand: series 301 all 0 (NIL wrong: 301.1 has an answer; empty list and Other responses);
    # series 302: factoid 1 (NIL right by decision), list 302.2 left out (nothing judged: its final answer set is
    # empty), Other 0 (no nugget) -> (.5 x 1 + .25 x 0) / (.5 + .25) = 2/3; run = (0 + 2/3) / 2 = 1/3
    # (without the NIL decision 0; with the default ⅓ weights 1/4).
    gamma = {(s[1], s[2], s[3]): s[4] for s in before["scores"] if s[0] == "GammaQA07"}
    assert gamma[("question", "302.1", "score")] == 1.0 and gamma[("question", "301.1", "score")] == 0.0
    assert gamma[("series", "302", "score")] == pytest.approx(2 / 3)
    assert gamma[("run", "", "score")] == pytest.approx(1 / 3)


# --- QA4MRE (no human judgments: the gold standard comes from the files) ------------------------------------


def test_qa4mre_round_trip(tmp_path, db):
    from tracks.qa4mre.demo import SLUG, load_qa4mre_demo

    load_qa4mre_demo(lambda _: None)

    def rebuild():
        load_qa4mre_demo(lambda _: None)
        return Evaluation.objects.get(slug=SLUG)

    before = round_trip(tmp_path, Evaluation.objects.get(slug=SLUG), rebuild)
    assert before["scores"] and not before["judgments"]


# --- BioGen -----------------------------------------------------------------------------------------------------


def test_biogen_round_trip(tmp_path, demo_users):
    from tracks.biogen import judging
    from tracks.biogen.demo import SLUG, load_biogen_demo

    load_biogen_demo(lambda _: None)  # topic 1 judged by assessor, partly by assessor2 (disagreements)
    ev = Evaluation.objects.get(slug=SLUG)
    queue = judging.adjudication_queue(ev)
    assert queue
    item = queue[0][0]
    judging.adjudicate(demo_users["organizer"], item, {"label": queue[0][2].value["label"], "evidence": []}, 0)
    generic.close_question(demo_users["organizer"], ev.topics.get(ident="2"))
    assert ("biogen", "adjudicated") in set(Judgment.objects.filter(evaluation=ev).values_list("kind", "role"))

    def rebuild():  # without its users, the demo judges nothing: the import brings every judgment back
        load_biogen_demo(lambda _: None)
        return Evaluation.objects.get(slug=SLUG)

    before = round_trip(tmp_path, ev, rebuild, forget=("assessor", "assessor2"))
    assert before["closures"] and any(s[4] for s in before["scores"])


# --- BOLT -------------------------------------------------------------------------------------------------------

BOLT = FIXTURES / "bolt"
BOLT_RUNS = [("alpha1.xml", "Team Alpha"), ("alpha2.xml", "Team Alpha"), ("beta1.xml", "Team Beta")]


def _bolt_from_files(organizer):
    from pooling.evaluations import create_evaluation
    from pooling.pools import build_pools
    from pooling.runs import RunFile, load_run_files
    from pooling.topics import load_topics
    from tracks.bolt import judging

    load_collection("bolt-rt-forum", "bolt-forum", [str(BOLT / "forum.xml")])
    ev = create_evaluation("bolt-rt", "bolt-ir-p2", ["bolt-rt-forum"])
    load_topics(ev, (BOLT / "topics.xml").read_bytes(), "topics.xml")
    files = [RunFile(filename=n, data=(BOLT / n).read_bytes(), team=t, priority=1) for n, t in BOLT_RUNS]
    files.append(
        RunFile(filename="alpha1-groups.xml", data=(BOLT / "alpha1-groups.xml").read_bytes(), team="Team Alpha")
    )
    assert all(not r.problems for r in load_run_files(ev, files))
    build_pools(ev)
    judging.import_topic_citations(ev, organizer)  # the topic file's citations, judged as the files say
    return ev


def test_bolt_round_trip(tmp_path, make_user):
    from tracks.bolt import adjudication, judging

    org = make_user("bolt-org", "organizer")
    a1, a2 = make_user("bolt-a1", "assessor"), make_user("bolt-a2", "assessor")
    ev = _bolt_from_files(org)
    t1, t2 = ev.topics.get(ident="1.001"), ev.topics.get(ident="1.002")
    for topic, user, role in ((t1, a1, "primary"), (t1, a2, "secondary"), (t2, a1, "primary")):
        Assignment.objects.create(evaluation=ev, topic=topic, assessor=user, role=role)
    for topic in (t1, t2):
        for n, item in enumerate(judging.citation_items(topic)):
            rel = ("yes", "maybe", "no")[n % 3]
            judging.judge_citation(a1, item, {"rel": rel, "trans": "accept", "chksrc": True}, None)
            if topic == t1:
                judging.judge_citation(a2, item, {"rel": "yes" if n == 1 else rel}, 0)
    fare = next(i for i in judging.citation_items(t1) if i.text.startswith("The fare is too high"))
    version = Judgment.objects.get(item=fare, assessor=a1).version
    judging.judge_citation(a1, fare, {"rel": "yes", "trans": "accept", "chksrc": True, "relspans": [[12, 21]]}, version)
    disputed = adjudication.adjudication_queue(ev)[0][0]
    adjudication.adjudicate_citation(org, disputed, {"rel": "yes", "relspans": [[0, 5]]}, 0)
    judging.add_found_citation(
        a1, t2, "bolt-eng-DF-183-190210-0042", "p3", 50, 54, "Say what you want, the Hope Foundation does good work."
    )
    ((_, view),) = judging.grouping_views(t2).items()
    food, funding = judging.view_structure(view)
    judging.judge_view(
        a1,
        view,
        {
            "relevant": "yes",
            "useful": "no",
            "groups": {
                "0": {
                    "relevant": "yes",
                    "cohesive": "yes",
                    "scope": "yes",
                    "members": {food["citations"][0]["key"]: "yes"},
                },
                "1": {"relevant": "no", "cohesive": "yes", "scope": "no", "members": {}},
            },
        },
        0,
    )
    generic.close_question(org, t2)
    assert {r for r in Judgment.objects.filter(evaluation=ev).values_list("kind", "role")} == {
        ("citation", "primary"),
        ("citation", "secondary"),
        ("citation", "adjudicated"),
        ("grouping", "primary"),
    }
    before = round_trip(tmp_path, ev, lambda: _bolt_from_files(org), forget=("bolt-a1", "bolt-a2"))
    assert not User.objects.get(username="bolt-a1").is_active  # made again by the import, unable to log in
    pool_ids = {f[2] for f in before["found"]}
    assert {"1.001-A1", "1.002-A1"} <= pool_ids and any("-V-" in p for p in pool_ids)
