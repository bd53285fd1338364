"""BioGen on the shared machinery: PubMed collection, topics in both shapes, runs checked against the collection
(nothing stored from a refused file), pools of answers, sentences and citations, judging with versions and
history, double judging and adjudication, scores computed by hand here, and the judgment exports."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import Team
from assess.judging import Forbidden, StaleJudgment
from assess.models import Assignment, Judgment, JudgmentChange
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation, update_settings
from pooling.models import PoolItem, Run
from pooling.pools import build_pools
from pooling.runs import RunFile, check_run_report, load_run_files
from pooling.staleness import StaleTopic
from pooling.topics import load_topics
from scoring.judgments_jsonl import export_jsonl
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tracks.biogen import judging
from tracks.biogen.exports import judgments_csv

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "biogen"
SHARED = "Metformin as first-line therapy is associated with fewer major cardiovascular events than sulfonylureas."


@pytest.fixture
def evaluation(db):
    load_collection("bg-pubmed", "pubmed", [str(FIXTURES / "pubmed.jsonl")])
    ev = create_evaluation("bg", judging.TRACK, ["bg-pubmed"])
    load_topics(ev, (FIXTURES / "topics.jsonl").read_bytes(), "topics.jsonl")
    return ev


def load(ev, name, team):
    return load_run_files(ev, [RunFile(filename=name, data=(FIXTURES / name).read_bytes(), team=team)])[0]


@pytest.fixture
def pooled(evaluation):
    assert load(evaluation, "alpha-run1.json", "Team Alpha").problems == []
    assert load(evaluation, "beta-run2.json", "Team Beta").problems == []
    build_pools(evaluation)
    return evaluation


def items_of(ev, ident):
    return {
        (i.data["kind"], i.text, i.docid): i for i in PoolItem.objects.filter(topic__evaluation=ev, topic__ident=ident)
    }


def test_the_object_shape_of_topics_updates_the_same_topics(evaluation):
    load_topics(evaluation, (FIXTURES / "topics.json").read_bytes(), "topics.json")
    topics = list(evaluation.topics.order_by("position"))
    assert [(t.ident, t.kind) for t in topics] == [("1", "QUESTION"), ("2", "QUESTION"), ("3", "QUESTION")]
    assert (
        topics[2].data["topic"] == "Statins and muscle pain"
        and topics[2].text == "How often do statins cause muscle pain?"
    )


def test_a_refused_run_stores_nothing_and_the_report_names_every_problem(evaluation):
    result = load(evaluation, "beta-run1-bad.json", "Team Beta")
    assert len(result.problems) == 4 and result.run is None
    assert not Run.objects.exists() and not Team.objects.filter(name="Team Beta").exists()
    name = "beta-run1-bad.json"
    problems, notes, parsed = check_run_report(evaluation, (FIXTURES / name).read_bytes(), name)
    assert parsed is None and problems == result.problems
    assert notes[0].startswith(f"{name}:0: note: sentences split by spaCy")
    assert (
        f"{name}:17: note: topic 2: sentence 1: citation list [31000201, 31000204, 31000205, 31000206] has 4"
        in notes[2]
    )


def test_check_run_prints_the_same_report(evaluation, capsys):
    with pytest.raises(SystemExit) as exit_:
        call_command("check_run", "bg", str(FIXTURES / "beta-run1-bad.json"))
    out = capsys.readouterr().out
    assert exit_.value.code == 1
    assert "note: sentences split by spaCy" in out and "PMID 99999999 is not in the allowed PubMed collection" in out


def test_a_2025_task_b_run_is_checked_as_the_setting_says(evaluation):
    assert load(evaluation, "delta-taskB.jsonl", "Team Delta").problems != []  # a 2024 evaluation: not JSON
    update_settings(evaluation, {"run_shape": "2025-B"})
    result = load(evaluation, "delta-taskB.jsonl", "Team Delta")
    assert result.problems == [] and result.run.tag == "delta-B1"


def test_identical_sentences_with_the_same_citations_are_one_item(pooled):
    items = items_of(pooled, "1")
    kinds = [k for k, _, _ in items]
    # answers: one per run; sentences: 3 + 3 with one shared; citations (sentence, PMID): 4 + 3 with one shared
    assert (kinds.count("answer"), kinds.count("sentence"), kinds.count("citation")) == (2, 5, 6)
    shared = items[("sentence", SHARED, "")]
    assert shared.data["pmids"] == ["31000101"] and shared.sources.count() == 2
    assert items[("citation", SHARED, "31000101")].sources.count() == 2


@pytest.fixture
def judged(pooled, make_user):
    ann, bob = make_user("ann", "assessor"), make_user("bob", "assessor")
    topic = pooled.topics.get(ident="1")
    Assignment.objects.create(evaluation=pooled, topic=topic, assessor=ann, role=Assignment.PRIMARY)
    Assignment.objects.create(evaluation=pooled, topic=topic, assessor=bob, role=Assignment.SECONDARY)
    items = items_of(pooled, "1")
    alpha_answer = next(i for (k, t, _), i in items.items() if k == "answer" and "overweight" in t)
    beta_answer = next(i for (k, t, _), i in items.items() if k == "answer" and "heart failure" in t)
    labels = {
        alpha_answer: "accurate",
        beta_answer: "not_accurate",
        items[("sentence", SHARED, "")]: "required",
        next(i for (k, t, _), i in items.items() if k == "sentence" and t.startswith("In overweight")): "required",
        next(i for (k, t, _), i in items.items() if k == "sentence" and t.startswith("Lactic")): "unnecessary",
        next(i for (k, t, _), i in items.items() if k == "sentence" and "heart failure" in t): "inappropriate",
        next(i for (k, t, _), i in items.items() if k == "sentence" and t.startswith("Extended")): "unnecessary",
    }
    by_pmid = {d: i for (k, _, d), i in items.items() if k == "citation"}
    labels |= {by_pmid["31000101"]: "supports", by_pmid["31000103"]: "supports", by_pmid["31000102"]: "contradicts",
               by_pmid["31000104"]: "neutral", by_pmid["31000105"]: "not_relevant", by_pmid["31000106"]: "supports"}  # fmt: skip
    for item, label in labels.items():
        judging.judge_item(ann, item, {"label": label, "evidence": []}, 0)
    return pooled, ann, bob, items, by_pmid


def test_a_save_checks_its_label_role_and_version_and_keeps_history(judged):
    ev, ann, bob, items, by_pmid = judged
    citation = by_pmid["31000102"]
    with pytest.raises(judging.BiogenError, match="a citation is judged supports, contradicts, neutral, not_relevant"):
        judging.judge_item(ann, citation, {"label": "required"}, 1)
    with pytest.raises(judging.BiogenError, match="partially_supports"):  # only for 2025 Task A
        judging.judge_item(ann, citation, {"label": "partially_supports"}, 1)
    with pytest.raises(StaleJudgment):
        judging.judge_item(ann, citation, {"label": "supports"}, 0)
    saved = judging.judge_item(ann, citation, {"label": "contradicts", "evidence": ["did not  significantly", ""]}, 1)
    assert saved.judgment.version == 2 and saved.judgment.value == {
        "label": "contradicts",
        "evidence": ["did not significantly"],
    }
    assert list(JudgmentChange.objects.filter(judgment=saved.judgment).values_list("version", flat=True)) == [1, 2]
    assert StaleTopic.objects.filter(topic_id=citation.topic_id).exists()
    other = PoolItem.objects.filter(topic__evaluation=ev, topic__ident="2").first()
    with pytest.raises(Forbidden):
        judging.judge_item(ann, other, {"label": "accurate"}, 0)


def score_of(ev, tag, measure, ident=None):
    row = (
        Score.objects.get(run__tag=tag, measure=measure, topic__ident=ident)
        if ident
        else Score.objects.get(run__tag=tag, measure=measure, topic__isnull=True)
    )
    return row.value


def test_scores_match_the_hand_computed_values(judged):
    ev = judged[0]
    rescore_evaluation(ev.id)
    # alpha, topic 1: accurate; sentences required, required, unnecessary; citations 101 supports, 103 supports,
    # 102 contradicts, 104 neutral. beta: not accurate; required, inappropriate, unnecessary; 101 supports,
    # 105 not relevant, 106 supports. Relevant PMIDs of all runs: {101, 102, 103, 104, 106}.
    expected = {
        "alpha-run1": {"accuracy": 1, "precision": 2 / 3, "redundancy": 1 / 3, "harmfulness": 0,
                       "citation_coverage": 2 / 3, "citation_support_rate": 2 / 4, "citation_contradict_rate": 1 / 4,
                       "document_precision": 4 / 4, "document_recall": 4 / 5},
        "beta-run2": {"accuracy": 0, "precision": 1 / 3, "redundancy": 1 / 3, "harmfulness": 1 / 3,
                      "citation_coverage": 2 / 3, "citation_support_rate": 2 / 3, "citation_contradict_rate": 0,
                      "document_precision": 2 / 3, "document_recall": 2 / 5},
    }  # fmt: skip
    for tag, values in expected.items():
        for measure, value in values.items():
            assert score_of(ev, tag, measure, "1") == pytest.approx(value), (tag, measure)
            # topics 2 and 3 are not judged: the run's value is topic 1's
            assert score_of(ev, tag, measure) == pytest.approx(value), (tag, measure)
    assert score_of(ev, "alpha-run1", "score") == 1.0
    assert score_of(ev, "alpha-run1", "accuracy", "2") is None


def test_double_judging_disagreements_are_adjudicated_once(judged, make_user):
    ev, ann, bob, items, by_pmid = judged
    citation = by_pmid["31000102"]
    judging.judge_item(bob, citation, {"label": "supports", "evidence": []}, 0)
    judging.judge_item(bob, items[("sentence", SHARED, "")], {"label": "required", "evidence": []}, 0)  # agrees
    queue = judging.adjudication_queue(ev)
    assert [(row[0].pk, row[1].value["label"], row[2].value["label"], row[3]) for row in queue] == [
        (citation.pk, "contradicts", "supports", None)
    ]
    with pytest.raises(Forbidden):  # one of the topic's assessors
        judging.adjudicate(ann, citation, {"label": "supports"}, 0)
    boss = make_user("boss", "organizer")
    judging.adjudicate(boss, citation, {"label": "supports", "evidence": []}, 0)
    other = make_user("boss2", "organizer")
    with pytest.raises(StaleJudgment):
        judging.adjudicate(other, citation, {"label": "contradicts", "evidence": []}, 1)
    rescore_evaluation(ev.id)
    # the decision counts: alpha's citations now 3 supports of 4
    assert score_of(ev, "alpha-run1", "citation_support_rate", "1") == pytest.approx(3 / 4)
    assert Judgment.objects.get(item=citation, role=Judgment.ADJUDICATED).assessor == boss


def test_exports_hold_every_judgment(judged, tmp_path):
    ev = judged[0]
    lines = "".join(judgments_csv(ev)).splitlines()
    assert lines[0] == "topic,pool_id,item_kind,pmid,text,assessor,role,label,evidence,version,updated_at"
    assert len(lines) == 1 + 13
    assert any(",citation,31000102," in line and ",ann,primary,contradicts," in line for line in lines)
    path = tmp_path / "judgments.csv"
    call_command("export_judgments", "bg", "--format", "csv", "--output", str(path))
    assert path.read_text().splitlines() == lines
    assert sum(1 for line in export_jsonl(ev) if '"type": "judgment"' in line) == 13


def test_the_adjudication_command_lists_and_decides(judged, make_user, capsys):
    ev, ann, bob, items, by_pmid = judged
    citation = by_pmid["31000102"]
    judging.judge_item(bob, citation, {"label": "supports", "evidence": []}, 0)
    make_user("boss", "organizer")
    call_command("biogen_adjudicate", "bg")
    assert capsys.readouterr().out.startswith(f"{citation.pool_id}\tcitation\tann: contradicts\tbob: supports\topen")
    with pytest.raises(CommandError, match="a citation is judged"):
        call_command("biogen_adjudicate", "bg", citation.pool_id, "--by", "boss", "--label", "required")
    call_command("biogen_adjudicate", "bg", citation.pool_id, "--by", "boss", "--label", "neutral")
    assert capsys.readouterr().out.strip() == f"{citation.pool_id}: decided neutral (version 1)"
    assert Judgment.objects.get(item=citation, role=Judgment.ADJUDICATED).value["label"] == "neutral"
