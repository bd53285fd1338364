"""Judgment sets on QA (issue 29): nuggetizer's assignments read into a set (nugget matches compared nugget by
nugget, the file's importances as votes), Assay's own JSON Lines export loading as a set that agrees with the
official judgments throughout, and bad lines named."""

import json

import pytest

from pooling.evaluations import LoadError
from scoring import agreement_store, judgment_sets
from scoring.judgments_jsonl import export_jsonl
from scoring.models import Agreement
from tests.tracks.qa.test_nuggetizer_exports import ASSIGNMENTS
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db


def _file(records):
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _totals(ev, made, kind):
    return Agreement.objects.get(evaluation=ev, judgment_set=made, topic__isnull=True, kind=kind).stats


def test_a_nuggetizer_assignments_file_with_one_flip(make_user):
    world = tiny_trec2007()
    ev, org = world["evaluation"], make_user("nzs-org", "organizer")
    flipped = json.loads(json.dumps(ASSIGNMENTS))
    flipped[2]["nuggets"][1]["assignment"] = "not_support"  # runB's 216.3 string: no longer "professor at Princeton"
    made = judgment_sets.load_set(ev, _file(flipped), "assigned.jsonl", "nuggetizer", "autonuggetizer", by=org)
    assert made.skipped == 1  # runA gave 217.2 no response: nothing of it is pooled
    agreement_store.refresh(ev.id)
    row = _totals(ev, made, "nugget_match")
    # units: o1 and o2 (216.3) x 3 nuggets, o3 (217.2) x 2 nuggets; official matches o1:n1,n3 o2:n2 o3:m1.
    # rows official, columns the set: match [3, 1] (o2:n2 now "no match"), no match [0, 4]
    assert row["labels"] == ["match", "no match"] and row["confusion"] == [[3, 1], [0, 4]]
    # p_o 7/8, p_e (4*3 + 4*5)/64 = 1/2: kappa (7/8 - 1/2)/(1/2) = 3/4
    assert row["kappa"] == pytest.approx(0.75) and row["weighted_kappa"] is None  # nominal
    # coincidences: MM 6, M/NM 1 each way, NM NM 8; n_M 7, n_NM 9: alpha = 1 - 15 * 2 / (2 * 7 * 9) = 16/21
    assert row["alpha"] == pytest.approx(16 / 21)
    (one,) = agreement_store.disagreements(ev, made, "nugget_match")
    assert (one["item_id"], one["nugget_id"]) == (world["items"]["o2"].id, world["nuggets"]["n2"].id)
    assert (one["first"], one["second"]) == ("match", "no match")
    votes = _totals(ev, made, "nugget_vote")  # the file's importances are the official votes
    assert votes["items"] == 5 and votes["percent"] == 1.0


def test_nuggetizer_lines_naming_what_is_not_there(make_user):
    ev = tiny_trec2007()["evaluation"]
    org = make_user("nzs-org2", "organizer")
    bad = json.loads(json.dumps(ASSIGNMENTS))
    bad[0]["nuggets"][0]["text"] = "won the Nobel prize"
    bad[1]["run_id"] = "runZ"
    bad[3]["qid"] = "999.9"
    with pytest.raises(LoadError) as refused:
        judgment_sets.load_set(ev, _file(bad), "bad.jsonl", "nuggetizer", "bad", by=org)
    assert refused.value.problems == [
        "bad.jsonl:1: nugget 'won the Nobel prize' is not one of question 216.3's (load the nuggets first: import_nuggets)",
        "bad.jsonl:2: run runZ is not a run of tiny-trec",
        "bad.jsonl:4: qid 999.9 is not a question of tiny-trec",
    ]
    with pytest.raises(LoadError, match=r"x.jsonl:1: nugget 1's assignment 'maybe' is not one of"):
        broken = json.loads(json.dumps(ASSIGNMENTS[:1]))
        broken[0]["nuggets"][0]["assignment"] = "maybe"
        judgment_sets.load_set(ev, _file(broken), "x.jsonl", "nuggetizer", "x", by=org)


def test_assays_own_export_loads_as_a_set_that_agrees_throughout(make_user):
    ev = tiny_trec2007()["evaluation"]
    org = make_user("nzs-org3", "organizer")
    data = "".join(export_jsonl(ev)).encode()
    made = judgment_sets.load_set(ev, data, "export.jsonl", "jsonl", "the official judgments", by=org)
    agreement_store.refresh(ev.id)
    kinds = {r["kind"]: r for r in agreement_store.table(ev, made)}
    assert set(kinds) >= {"instance", "nugget_match", "nugget_vote"}
    for kind, row in kinds.items():
        assert row["percent"] == 1.0 and row["items"] > 0, kind
    # instances: 8 judged responses; the labels' order is the track's, a nominal scale
    assert kinds["instance"]["items"] == 8 and kinds["instance"]["weighted_kappa"] is None


def test_a_jsonl_set_refuses_values_that_do_not_fit(make_user):
    world = tiny_trec2007()
    ev, key = world["evaluation"], world["items"]["a1"].key
    org = make_user("nzs-org4", "organizer")
    lines = [
        {"type": "header", "format": "assay-judgments/1"},
        {"type": "judgment", "kind": "instance", "item": {"topic": "216.1", "key": "nope"}, "value": {}},
        {"type": "judgment", "kind": "citation", "item": None, "value": {}},
        {
            "type": "judgment",
            "kind": "instance",
            "item": {"topic": "216.1", "key": key},
            "value": {"label": 3},
        },
    ]
    with pytest.raises(LoadError) as refused:
        judgment_sets.load_set(ev, _file(lines), "s.jsonl", "jsonl", "s", by=org)
    problems = refused.value.problems
    assert problems[0] == 's.jsonl:2: a instance judgment needs an item {"topic", "key"} pooled in tiny-trec'
    assert problems[1].startswith("s.jsonl:3: judgment kind 'citation' is not one of track trec2007-qa's")
    assert problems[2:] == ["s.jsonl:4: instance judgment: value has no 'answer_class'; value.label must be str, not 3"]
