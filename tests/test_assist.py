"""Assisted judging as a controlled condition (issue 30): the split reproducible from its seed, suggestions loaded
from files all or nothing, what each condition lets an assessor see on the wire (pages, panel, API), and the
report's numbers against a hand count. The model server: tests/test_assist_model_server.py."""

import json

import pytest
from django.urls import reverse

from assess import assist, assist_report
from assess.assist_report import Fact, summarize
from assess.models import Assignment, AssistCondition, AssistDesign, Suggestion, SuggestionShown
from tests.tracks.biogen.browser.test_judging import assigned as biogen_assigned  # noqa: F401 (a fixture)
from tracks.qa.instance_judging import judge_instance

pytestmark = pytest.mark.django_db
SECRET = "ZEBRA-RATIONALE-7731"  # in the suggestion only: a page or answer holding it has leaked the suggestion


# --- the split ----------------------------------------------------------------------------------------------------


def test_the_draw_is_balanced_and_the_same_for_the_same_seed():
    units = list(range(1, 31))
    first = assist.draw(units, list(assist.CONDITIONS), 4242)
    assert first == assist.draw(list(reversed(units)), list(assist.CONDITIONS), 4242)  # order given does not matter
    assert sorted(list(first.values()).count(c) for c in assist.CONDITIONS) == [10, 10, 10]
    assert first != assist.draw(units, list(assist.CONDITIONS), 4243)


def test_set_design_stores_the_split_its_seed_gives_and_records_the_seed(sample, organizer):
    design = assist.set_design(sample.evaluation, unit="item", conditions=list(assist.CONDITIONS), by=organizer)
    stored = dict(AssistCondition.objects.filter(evaluation=sample.evaluation).values_list("item_id", "condition"))
    items = sample.evaluation.pool_items.values_list("pk", flat=True)
    assert set(stored) == set(items) and len(stored) == 12
    # anyone can recompute it from the recorded seed
    assert stored == assist.draw(list(items), design.conditions, AssistDesign.objects.get().seed)
    assert {c: n for c, n in assist.split_counts(sample.evaluation).items()} == {
        "none": 4,
        "reveal_after": 4,
        "suggest_first": 4,
    }


def test_a_topic_draw_gives_every_item_of_a_series_its_condition(make_user):
    from tracks.qa.sample import build_sample

    sample = build_sample(slug="assist-topics", n_series=4)
    assist.set_design(sample.evaluation, unit="topic", conditions=["none", "reveal_after"], seed=7)
    for series in sample.series:
        conditions = set(AssistCondition.objects.filter(item__topic__parent=series).values_list("condition", flat=True))
        assert len(conditions) == 1
    expected = assist.draw([s.pk for s in sample.series], ["none", "reveal_after"], 7)
    for series in sample.series:
        item = sample.items[f"{series.ident}.1"][0]
        assert AssistCondition.objects.get(item=item).condition == expected[series.pk]


def test_the_design_is_refused_once_judging_has_started(sample, primary):
    judge_instance(primary, sample.items["1.1"][0], "globally-correct", 0)
    with pytest.raises(assist.AssistError, match="has judgments already"):
        assist.set_design(sample.evaluation, unit="item", conditions=["none"], seed=1)
    with pytest.raises(assist.AssistError, match="conditions must be"):
        assist.set_design(sample.evaluation, unit="item", conditions=["always"], seed=1)


# --- suggestions from files -----------------------------------------------------------------------------------------


def _jsonl(*rows):
    return "\n".join(json.dumps(r) for r in rows).encode()


def test_a_jsonl_file_is_stored_with_its_provenance(sample):
    item = sample.items["1.1"][1]
    data = _jsonl(
        {
            "topic": "1.1",
            "key": item.key,
            "kind": "instance",
            "value": {"label": "globally-correct"},
            "rationale": "r",
            "model": "m",
        }
    )
    (stored,) = assist.load_suggestions(sample.evaluation, "jsonl", data, "s.jsonl")
    assert (stored.item, stored.value, stored.rationale, stored.source, stored.source_name) == (
        item,
        {"label": "globally-correct"},
        "r",
        "file",
        "s.jsonl",
    )
    assert stored.parameters == {"format": "jsonl", "line": 1, "model": "m"}


def test_a_bad_file_stores_nothing_and_names_every_problem_by_line(sample):
    item = sample.items["1.1"][1]
    data = (
        _jsonl(
            {"topic": "1.1", "key": item.key, "kind": "instance", "value": {"label": "globally-correct"}},
            {"topic": "9.9", "key": item.key, "kind": "instance", "value": {"label": "globally-correct"}},
            {"topic": "1.1", "key": item.key, "kind": "instance", "value": {"label": "brilliant"}},
            {
                "topic": "1.1",
                "key": item.key,
                "kind": "instance",
                "value": {"label": "globally-correct", "colour": "red"},
            },
            {"topic": "1.1", "key": "nothing", "kind": "instance", "value": {"label": "globally-correct"}},
        )
        + b"\n{not json"
    )
    with pytest.raises(assist.AssistError) as refused:
        assist.load_suggestions(sample.evaluation, "jsonl", data, "s.jsonl")
    assert refused.value.problems[0] == "s.jsonl:6: not JSON (Expecting property name enclosed in double quotes)"
    with pytest.raises(assist.AssistError) as refused:
        assist.load_suggestions(sample.evaluation, "jsonl", data.rsplit(b"\n", 1)[0], "s.jsonl")
    problems = refused.value.problems
    assert problems[0] == "s.jsonl:2: assess-sample has no topic '9.9'"
    assert (
        "s.jsonl:3: 'brilliant' is not a label of instance (incorrect, unsupported, non-exact, locally-correct, globally-correct)"
        in problems
    )
    assert "s.jsonl:4: instance has no field 'colour'" in problems
    assert problems[-1] == "s.jsonl:5: topic 1.1 has no pool item with key 'nothing'"
    assert not Suggestion.objects.exists()


def test_graded_qrels_become_labels_through_the_mapping(sample):
    items = sample.items["1.1"]
    data = f"1.1 0 {items[0].docid} 2\n1.1 0 {items[1].docid} 0\n".encode()
    stored = assist.load_suggestions(
        sample.evaluation,
        "qrels",
        data,
        "umbrela.qrels",
        kind="instance",
        grades={"0": "incorrect", "2": "globally-correct"},
    )
    assert sorted((s.item_id, s.value["label"]) for s in stored) == sorted(
        [(items[0].pk, "globally-correct"), (items[1].pk, "incorrect")]
    )
    with pytest.raises(assist.AssistError, match=r"umbrela.qrels:1: grade '3' has no label"):
        assist.load_suggestions(
            sample.evaluation,
            "qrels",
            f"1.1 0 {items[0].docid} 3\n".encode(),
            "umbrela.qrels",
            kind="instance",
            grades={"0": "incorrect"},
        )


def test_a_nuggetizer_assignment_suggests_the_supported_nuggets_for_the_items_with_that_answer(sample, primary):
    from assess.models import Nugget

    question = sample.questions["1.3"]  # Other
    n1 = Nugget.objects.create(topic=question, text="Founded in 1909", position=1, created_by=primary)
    Nugget.objects.create(topic=question, text="Paris headquarters", position=2, created_by=primary)
    line = {
        "query": "q",
        "qid": "1.3",
        "answer_text": "founded by Coco Chanel in 1909",
        "response_length": 6,
        "run_id": "r1",
        "nuggets": [
            {"text": "founded in 1909", "importance": "vital", "assignment": "support"},
            {"text": "Paris headquarters", "importance": "okay", "assignment": "not_support"},
        ],
    }
    (stored,) = assist.load_suggestions(sample.evaluation, "nuggetizer", _jsonl(line), "assign.jsonl")
    assert (stored.kind, stored.value, stored.item.text) == ("nugget_match", {"nuggets": [n1.pk]}, line["answer_text"])
    line["nuggets"][0]["text"] = "a nugget nobody wrote"
    with pytest.raises(assist.AssistError, match="assign.jsonl:1: topic 1.3 has no nugget 'a nugget nobody wrote'"):
        assist.load_suggestions(sample.evaluation, "nuggetizer", _jsonl(line), "assign.jsonl")


# --- what each condition shows, on the wire -------------------------------------------------------------------------


@pytest.fixture
def assisted(sample, primary, organizer):
    """Question 1.1's items with a suggestion each ("globally-correct", with the SECRET rationale), under one condition
    chosen by the test (set_condition)."""
    items = sample.items["1.1"]
    for item in items:
        Suggestion.objects.create(
            evaluation=sample.evaluation,
            topic=item.topic,
            kind="instance",
            item=item,
            value={"label": "globally-correct"},
            rationale=SECRET,
            source="file",
            source_name="s.jsonl",
        )
    assist.set_design(sample.evaluation, unit="item", conditions=["none"], seed=1, by=organizer)

    def set_condition(condition):
        AssistCondition.objects.filter(evaluation=sample.evaluation).update(condition=condition)

    assignment = Assignment.objects.get(assessor=primary)
    return {"items": items, "set": set_condition, "assignment": assignment, "question": sample.questions["1.1"]}


def _wire(client, assisted, item):
    """Every answer that could carry the suggestion to the assessor: the item page, the panel, the API."""
    a, q = assisted["assignment"], assisted["question"]
    return {
        "page": client.get(reverse("qa:item_panel", args=[a.pk, q.pk, item.pk])),
        "panel": client.get(reverse("assess:assist_panel", args=[item.pk, "instance"])),
        "api": client.get(reverse("api:item_suggestion", args=[item.pk, "instance"])),
    }


def test_reveal_after_sends_nothing_of_the_suggestion_before_the_first_save(client, assisted, primary):
    assisted["set"]("reveal_after")
    item = assisted["items"][0]
    client.force_login(primary)
    before = _wire(client, assisted, item)
    for name, response in before.items():
        assert response.status_code == 200, name
        assert SECRET not in response.content.decode(), name
    assert "once you have saved your own judgment" in before["page"].content.decode()
    assert before["api"].json() == {"item": item.pk, "kind": "instance", "state": "waiting", "suggestion": None}
    assert not SuggestionShown.objects.exists()

    saved = client.post(reverse("qa:judge", args=[item.pk]), {"label": "incorrect", "version": "0"})
    assert saved.status_code == 200 and SECRET not in saved.content.decode()  # the save's own answer neither

    after = _wire(client, assisted, item)
    for name, response in after.items():
        assert SECRET in response.content.decode(), name
    assert after["api"].json()["suggestion"]["value"] == {"label": "globally-correct"}
    assert "saved before this suggestion was shown" in after["panel"].content.decode()
    shown = SuggestionShown.objects.get()
    assert (shown.assessor, shown.item, shown.condition, shown.judgment_version) == (primary, item, "reveal_after", 1)

    # revised after the reveal: marked as made with the suggestion visible, the own judgment kept in words
    client.post(reverse("qa:judge", args=[item.pk]), {"label": "globally-correct", "version": "1"})
    panel = client.get(reverse("assess:assist_panel", args=[item.pk, "instance"])).content.decode()
    assert "saved with this suggestion visible (your own, before it: incorrect)" in panel
    history = client.get(reverse("assess:item_history", args=[item.pk])).content.decode()
    assert history.count("⚑ suggestion visible") == 1  # version 2 only: version 1 was the assessor's own
    # another item of the same question is still hidden
    assert SECRET not in _wire(client, assisted, assisted["items"][1])["api"].content.decode()


def test_suggest_first_shows_it_at_once_and_none_never(client, assisted, primary):
    item = assisted["items"][0]
    client.force_login(primary)
    assisted["set"]("none")
    for name, response in _wire(client, assisted, item).items():
        assert SECRET not in response.content.decode(), name
    client.post(reverse("qa:judge", args=[item.pk]), {"label": "incorrect", "version": "0"})
    assert SECRET not in _wire(client, assisted, item)["page"].content.decode()  # none: not even after saving

    assisted["set"]("suggest_first")
    other = assisted["items"][1]
    wire = _wire(client, assisted, other)
    html = wire["page"].content.decode()
    assert SECRET in html and 'data-assist-accept="globally-correct"' in html and 'data-key="g"' in html
    assert wire["api"].json()["state"] == "shown"
    assert SuggestionShown.objects.get(item=other).judgment_version == 0


def test_a_second_assessor_never_sees_a_suggestion(client, assisted, sample, make_user):
    second = make_user("second", "assessor")
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=second, role="secondary")
    assisted["set"]("suggest_first")
    item = assisted["items"][0]
    client.force_login(second)
    assert SECRET not in client.get(reverse("assess:assist_panel", args=[item.pk, "instance"])).content.decode()
    assert client.get(reverse("api:item_suggestion", args=[item.pk, "instance"])).json()["state"] == "off"


def test_the_panel_and_the_api_answer_404_off_ones_assignments_and_the_organizers_api_is_refused(
    client, assisted, make_user
):
    other = make_user("other", "assessor")
    assisted["set"]("suggest_first")
    item = assisted["items"][0]
    client.force_login(other)
    assert client.get(reverse("assess:assist_panel", args=[item.pk, "instance"])).status_code == 404
    assert client.get(reverse("api:item_suggestion", args=[item.pk, "instance"])).status_code == 404
    assert client.get(reverse("api:assist_suggestions", args=["assess-sample"])).status_code == 403
    assert client.get(reverse("assess:assist", args=["assess-sample"])).status_code == 403


# --- the report -------------------------------------------------------------------------------------------------


def test_summarize_against_a_hand_count():
    F = Fact
    rows = [
        # reveal after: own value, then the suggestion shown, then the final value
        F("reveal_after", "ann", 1, "correct", "incorrect", "correct", True, True, 30.0),  # anchored
        F("reveal_after", "ann", 2, "correct", "incorrect", "incorrect", True, False, 20.0),  # stood firm
        F("reveal_after", "ann", 3, "correct", "correct", "correct", True, False, 10.0, second="correct"),
        F("reveal_after", "ann", 4, "correct", "unsupported", "non-exact", True, True, 20.0, second="incorrect"),
        F("none", "ann", 5, "correct", "correct", "correct", False, False, 40.0),  # hidden: the control
        F("none", "ann", 6, "correct", "incorrect", "incorrect", False, False, 20.0),
        F("suggest_first", "ann", 7, "correct", None, "correct", True, False, 5.0),
        F("suggest_first", "ann", 8, "incorrect", None, "correct", True, False, 15.0),
    ]
    by = {(r["condition"], r["assessor"]): r for r in summarize(rows)}
    reveal = by[("reveal_after", "ann")]
    # own values agreeing: item 3 of 4; final agreeing: 1 and 3 of 4; differed at reveal: 1, 2, 4, moved: 1
    assert (reveal["agree_before"], reveal["agree_before_n"]) == (0.25, 4)
    assert (reveal["agree_after"], reveal["agree_after_n"]) == (0.5, 4)
    assert (reveal["anchoring_rate"], reveal["anchored"], reveal["anchoring_n"]) == (0.3333, 1, 3)
    assert reveal["revised_after_reveal"] == 2
    assert reveal["seconds_per_item"] == 20.0  # 80 s over 4 items
    assert (reveal["second_human_agreement"], reveal["second_human_n"]) == (0.5, 2)  # item 3 agrees, item 4 not
    none = by[("none", "ann")]
    assert (none["agree_before"], none["agree_after"], none["anchoring_rate"]) == (0.5, None, None)
    first = by[("suggest_first", "ann")]
    assert (first["agree_before"], first["agree_after"], first["agree_after_n"]) == (None, 0.5, 2)
    assert by[("reveal_after", "*")]["judged"] == 4 and [r["condition"] for r in summarize(rows)][0] == "none"


def test_the_anchoring_rate_of_a_judged_fixture_equals_the_hand_count(client, assisted, primary, organizer):
    """Four reveal-after items judged through the pages: own label, the panel opened (the reveal), the final."""
    assisted["set"]("reveal_after")
    client.force_login(primary)
    plan = [
        ("incorrect", "globally-correct"),
        ("incorrect", None),
        ("globally-correct", None),
        ("unsupported", "non-exact"),
    ]
    for item, (own, final) in zip(assisted["items"], plan, strict=True):
        assert client.post(reverse("qa:judge", args=[item.pk]), {"label": own, "version": "0"}).status_code == 200
        client.get(reverse("assess:assist_panel", args=[item.pk, "instance"]))
        if final:
            client.post(reverse("qa:judge", args=[item.pk]), {"label": final, "version": "1"})
    (all_rows, mine) = [r for r in assist_report.report(assisted["items"][0].evaluation, "instance")]
    assert all_rows["assessor"] == "*" and mine["assessor"] == "prim"
    # by hand: differed at the reveal 1, 2, 4; moved to the suggestion: 1 -> 1/3; own agreeing: 3 -> 1/4
    assert (mine["anchored"], mine["anchoring_n"], mine["anchoring_rate"]) == (1, 3, 0.3333)
    assert (mine["agree_before"], mine["agree_after"], mine["revised_after_reveal"]) == (0.25, 0.5, 2)

    client.force_login(organizer)
    page = client.get(reverse("assess:assist", args=["assess-sample"]))
    assert page.status_code == 200 and "0.3333" in page.content.decode()
    csv_text = client.get(reverse("assess:assist", args=["assess-sample"]), {"format": "csv"}).content.decode()
    assert csv_text.splitlines()[0] == ",".join(assist_report.COLUMNS)
    assert csv_text.splitlines()[2].startswith("reveal_after,prim,4,4,0.25,4,0.5,4,2,0.3333,1,3,")
    api = client.get(reverse("api:assist_report", args=["assess-sample"]), {"kind": "instance"}).json()
    assert api["rows"] == [all_rows, mine] and api["design"]["seed"] == 1
    facts = client.get(reverse("api:assist_report", args=["assess-sample"]), {"output": "facts"}).content.decode()
    lines = facts.splitlines()
    assert len(lines) == 5 and lines[1].startswith(f"reveal_after,prim,{assisted['items'][0].pk},globally-correct,")
    assert ",incorrect,globally-correct,True,True," in lines[1]  # own, final, shown, revised


def test_the_api_draws_the_design_and_loads_a_file(client, sample, organizer):
    client.force_login(organizer)
    url = reverse("api:assist_design", args=["assess-sample"])
    made = client.post(url, {"unit": "item", "conditions": ["none", "reveal_after"], "seed": 99}, "application/json")
    assert made.status_code == 201 and made.json()["design"]["seed"] == 99
    assert made.json()["split"] == {"none": 6, "reveal_after": 6, "suggest_first": 0}
    item = sample.items["1.1"][0]
    from django.core.files.uploadedfile import SimpleUploadedFile

    line = {"topic": "1.1", "key": item.key, "kind": "instance", "value": {"label": "unsupported"}}
    upload = SimpleUploadedFile("s.jsonl", _jsonl(line))
    loaded = client.post(reverse("api:assist_suggestions", args=["assess-sample"]), {"file": upload, "format": "jsonl"})
    assert loaded.status_code == 201 and loaded.json() == {"stored": 1}
    listed = client.get(reverse("api:assist_suggestions", args=["assess-sample"])).json()["results"]
    assert listed[0]["value"] == {"label": "unsupported"} and listed[0]["source_name"] == "s.jsonl"
    bad = SimpleUploadedFile("s.jsonl", _jsonl(line | {"topic": "7"}))
    refused = client.post(reverse("api:assist_suggestions", args=["assess-sample"]), {"file": bad, "format": "jsonl"})
    assert refused.status_code == 400 and refused.json() == {"problems": ["s.jsonl:1: assess-sample has no topic '7'"]}


def test_the_organizers_page_loads_a_file_and_refuses_a_pass_while_the_model_server_is_off(client, sample, organizer):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(organizer)
    item = sample.items["1.1"][0]
    url = reverse("assess:assist_load", args=["assess-sample"])
    qrels = SimpleUploadedFile("u.qrels", f"1.1 0 {item.docid} 1\n".encode())
    page = client.post(
        url, {"file": qrels, "format": "qrels", "kind": "instance", "grades": "1=unsupported"}, follow=True
    )
    assert "1 suggestions stored from u.qrels." in page.content.decode()
    assert Suggestion.objects.get().value == {"label": "unsupported"}
    bad = SimpleUploadedFile("u.qrels", f"1.1 0 {item.docid} 1\n".encode())
    page = client.post(url, {"file": bad, "format": "qrels", "kind": "instance", "grades": "1=great"}, follow=True)
    assert "u.qrels:1: &#x27;great&#x27; is not a label of instance" in page.content.decode()
    page = client.post(
        reverse("assess:assist_pass", args=["assess-sample"]), {"topic": "1.1", "kind": "instance"}, follow=True
    )
    assert "the model server is off" in page.content.decode()
    facts = client.get(reverse("assess:assist", args=["assess-sample"]), {"format": "facts"}).content.decode()
    assert facts.splitlines() == [",".join(assist_report.FACT_COLUMNS)]  # nothing judged yet


def test_biogen_suggestions_must_fit_the_items_own_labels(biogen_assigned):
    from pooling.models import PoolItem

    ann, topic, assignment = biogen_assigned
    citation = PoolItem.objects.get(topic=topic, docid="31000103")
    assert assist.labels_of(citation, "biogen")[0] == "supports"
    line = {"topic": topic.ident, "key": citation.key, "kind": "biogen", "value": {"label": "accurate"}}
    with pytest.raises(assist.AssistError, match=r"s.jsonl:1: 'accurate' is not a label of biogen \(supports, "):
        assist.load_suggestions(topic.evaluation, "jsonl", _jsonl(line), "s.jsonl")
    (stored,) = assist.load_suggestions(topic.evaluation, "jsonl", _jsonl(line | {"value": {"label": "supports"}}), "s")
    assert stored.value == {"label": "supports"}


# --- which value is official --------------------------------------------------------------------------------------


def _scores(evaluation):
    from scoring.models import Score
    from scoring.rescore import rescore_evaluation

    rescore_evaluation(evaluation.pk)
    return {
        (tag, measure, topic): value
        for tag, measure, topic, value in Score.objects.filter(run__evaluation=evaluation).values_list(
            "run__tag", "measure", "topic__ident", "value"
        )
    }


def test_the_pre_reveal_value_is_official_only_when_the_setting_says_so_and_scoring_follows(
    client, assisted, primary, organizer, capsys
):
    from django.core.management import call_command

    from assess.official import official_fields, official_values
    from pooling.evaluations import LoadError, update_settings
    from pooling.models import StaleTopic

    evaluation, question = assisted["items"][0].evaluation, assisted["question"]
    assisted["set"]("reveal_after")
    client.force_login(primary)
    first, other = assisted["items"][:2]
    for item, own in ((first, "incorrect"), (other, "globally-correct")):
        assert client.post(reverse("qa:judge", args=[item.pk]), {"label": own, "version": "0"}).status_code == 200
    own_scores = _scores(evaluation)  # the assessor's own judgments, before any reveal
    for item in (first, other):
        client.get(reverse("assess:assist_panel", args=[item.pk, "instance"]))  # the reveal
    client.post(reverse("qa:judge", args=[first.pk]), {"label": "globally-correct", "version": "1"})  # revised

    # off by default: the revised judgment is official, as without assistance
    assert official_values([question.pk], "instance")[first.pk]["label"] == "globally-correct"
    revised_scores = _scores(evaluation)
    assert revised_scores != own_scores
    assert assist_report.report(evaluation, "instance")[0]["official"] == "revised"

    StaleTopic.objects.all().delete()
    call_command("assist_official", evaluation.slug, "pre_reveal")
    assert "the pre-reveal one" in capsys.readouterr().out
    assert StaleTopic.objects.filter(evaluation=evaluation).count() == evaluation.topics.count()  # all rescored
    values = official_values([question.pk], "instance")
    assert (values[first.pk]["label"], values[other.pk]["label"]) == ("incorrect", "globally-correct")
    assert official_fields([question.pk], "instance", "label")[first.pk] == ("incorrect",)
    assert _scores(evaluation) == own_scores  # scored on the judgments from before the reveal
    evaluation.refresh_from_db()
    rows = assist_report.report(evaluation, "instance")
    assert {r["official"] for r in rows} == {"pre_reveal"}
    client.force_login(organizer)
    page = client.get(reverse("assess:assist", args=[evaluation.slug])).content.decode()
    assert "the value saved before the suggestion was shown" in page
    api = client.get(reverse("api:assist_report", args=[evaluation.slug]), {"kind": "instance"}).json()
    assert api["official"] == "pre_reveal"

    call_command("assist_official", evaluation.slug, "revised")
    assert _scores(evaluation) == revised_scores
    with pytest.raises(LoadError, match="assist_official must be 'revised' or 'pre_reveal', not 'machine'"):
        update_settings(evaluation, {"assist_official": "machine"})
