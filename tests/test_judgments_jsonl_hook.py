"""The judgments file's track records come through core.extension_points.judgments_jsonl (issue 27): QA registers
its answer classes and nuggets, TREC RAG its nuggets and suggestions; a track that registers nothing gets the base TrackRecords, which adds no record
and maps pool-item ids only."""

import json

import pytest

from core import extension_points as ep
from core.tracks import TRACKS
from pooling.models import Evaluation
from scoring.judgments_jsonl import FORMAT, ImportFailed, TrackRecords, import_jsonl, item_ids, track_records
from tracks.qa.judgments_jsonl import QaRecords
from tracks.rag.judgments_jsonl import RagRecords

QA = ("tac2008-qa", "trec2007-qa", "trec2007-ciqa")


# the tracks with records of their own: QA (answer classes, nuggets) and TREC RAG (nuggets, their suggestions)
OWN = {slug: (QaRecords, {"answer_class", "nugget"}) for slug in QA} | {
    "trec-rag": (RagRecords, {"nugget", "nugget_suggestions"})
}


@pytest.mark.parametrize("slug", sorted(TRACKS))
def test_qa_tracks_register_their_records_and_the_others_none(slug):
    records = track_records(Evaluation(slug="e", track=slug))
    cls, readers = OWN.get(slug, (TrackRecords, set()))
    assert type(records) is cls
    assert (ep.judgments_jsonl.get(slug) is cls) == (slug in OWN)
    assert set(records.readers) == readers


def test_the_base_maps_pool_items_and_leaves_a_class_alone():
    base = TrackRecords(Evaluation(track="bolt-ir-p2"))
    value = {"id": 7, "item": 3, "items": [3, 4], "order": [7]}
    assert base.structure_ids("class.create", value, lambda i: i * 10, lambda i: -i) == {
        "id": 7,
        "item": 30,
        "items": [30, 40],
        "order": [7],
    }
    assert item_ids("not a dict", abs) == "not a dict" and value["item"] == 3  # a copy, the value untouched


def test_qa_maps_its_own_ids_in_the_structure_log():
    qa = QaRecords(Evaluation(track="trec2007-qa"))  # an export: the source's own ids as they are
    seen = []
    out = qa.structure_ids("nugget.delete", {"id": 5, "votes": [{"nugget_id": 5, "assessor_id": 2}]}, abs, seen.append)
    assert out == {"id": 5, "votes": [{"nugget_id": 5, "assessor_id": None}]} and seen == [2]


@pytest.mark.django_db
def test_a_track_without_records_refuses_qa_records_naming_the_line():
    evaluation = Evaluation.objects.create(slug="bolt-x", title="x", track="bolt-ir-p2")
    header = json.dumps({"type": "header", "format": FORMAT, "track": "bolt-ir-p2"})
    nugget = json.dumps({"type": "nugget", "id": 1, "topic": "t", "text": "n", "created_by": "u"})
    with pytest.raises(ImportFailed, match="^f.jsonl:2: unknown record type 'nugget'$"):
        import_jsonl(evaluation, [header, nugget], "f.jsonl")
