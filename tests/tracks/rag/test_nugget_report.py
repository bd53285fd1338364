"""The assisted-judging report's "nugget_proposals" kind (issue 30, docs/assist.md "What the organizer sees"): per
condition and primary assessor, own nuggets, proposals shown, accepted (as proposed, edited), rejected, pending
and the share of the final nuggets from proposals — counted by hand on three RAG topics (reveal after, suggest
first, none) and read through the report, the page, the API (JSON and CSV) and the command."""

import csv
import io
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from assess import assist, assist_nuggets, assist_report
from assess.models import Assignment, Suggestion, SuggestionShown
from tests.tracks.rag.test_pipeline import T, judged, pooled  # noqa: F401 (fixtures)
from tracks.rag import judging

SUGGEST, NONE = "2024-212", "2025-31"


def _proposals(ev, topic, *texts):
    return Suggestion.objects.create(
        evaluation=ev,
        topic=topic,
        kind=assist_nuggets.KIND,
        value={"nuggets": [{"text": t, "importance": "okay"} for t in texts]},
        source="model",
        source_name="tiny-instruct",
    )


@pytest.fixture
def worked(judged):
    """The hand-counted fixture (ann is the primary assessor of all three topics):
    - T, reveal after: 2 own nuggets, list done, 4 proposals shown; #1 accepted as proposed (then deleted), #2
      accepted edited, #3 rejected, #4 pending; final 3 nuggets, 1 of them from a proposal;
    - 2024-212, suggest first: 1 own nugget before the page showed 2 proposals; #1 accepted, #2 pending; final 2,
      1 from a proposal;
    - 2025-31, none: 3 proposals never shown, 1 own nugget; final 1, 0 from proposals.
    A failed call (error row) on 2024-212 counts for nothing."""
    ev, topic, ann = judged
    suggest, none = ev.topics.get(ident=SUGGEST), ev.topics.get(ident=NONE)
    for t in (suggest, none):
        Assignment.objects.create(evaluation=ev, topic=t, assessor=ann, role=Assignment.PRIMARY)
    assist.set_design(ev, unit="topic", conditions=["reveal_after", "suggest_first"], seed=1)
    ev.assist_design.topics = {T: "reveal_after", SUGGEST: "suggest_first", NONE: "none"}
    ev.assist_design.save()
    assert "nugget_proposals" not in assist_report.assisted_kinds(ev)  # none yet

    judging.create_nugget(ann, topic, "Caffeine shortens sleep", "vital")
    judging.create_nugget(ann, topic, "Caffeine delays sleep onset", "okay")
    row = _proposals(ev, topic, "Caffeine blocks adenosine", "Half-life is five hours", "Coffee is tasty", "Tea too")
    assert assist_nuggets.visible(ann, topic).state == "waiting"
    assist_nuggets.mark_list_done(ann, topic)
    assert assist_nuggets.visible(ann, topic).state == "shown"
    taken = judging.accept_proposal(ann, topic, row.pk, 0)
    judging.accept_proposal(ann, topic, row.pk, 1, text="Caffeine's half-life is about five hours")
    judging.reject_proposal(ann, topic, row.pk, 2)
    judging.delete_nugget(ann, taken)

    judging.create_nugget(ann, suggest, "Leaves lose chlorophyll", "vital")
    Suggestion.objects.create(
        evaluation=ev, topic=suggest, kind=assist_nuggets.KIND, value=None, source="model", error="timed out"
    )
    row = _proposals(ev, suggest, "Carotenoids show through", "Cold nights help")
    assert assist_nuggets.visible(ann, suggest).state == "shown"
    judging.accept_proposal(ann, suggest, row.pk, 0)

    judging.create_nugget(ann, none, "Compost feeds the soil", "vital")
    _proposals(ev, none, "a", "b", "c")
    assert assist_nuggets.visible(ann, none).state == "off"
    assert SuggestionShown.objects.count() == 2
    return ev


def _row(condition, assessor, *numbers):
    return dict(zip(assist_report.NUGGET_COLUMNS, (condition, assessor, *numbers), strict=True))


# topics, own, shown, accepted, edited, rejected, pending, share, from proposals, final
EXPECTED = [
    _row("none", "*", 1, 1, 0, 0, 0, 0, 0, 0.0, 0, 1),
    _row("none", "ann", 1, 1, 0, 0, 0, 0, 0, 0.0, 0, 1),
    _row("reveal_after", "*", 1, 2, 4, 1, 1, 1, 1, 0.3333, 1, 3),
    _row("reveal_after", "ann", 1, 2, 4, 1, 1, 1, 1, 0.3333, 1, 3),
    _row("suggest_first", "*", 1, 1, 2, 1, 0, 0, 1, 0.5, 1, 2),
    _row("suggest_first", "ann", 1, 1, 2, 1, 0, 0, 1, 0.5, 1, 2),
]


def _strings(rows):
    return [{k: "" if v is None else str(v) for k, v in r.items()} for r in rows]


def test_the_report_counts_the_fixture_as_by_hand(worked):
    assert "nugget_proposals" in assist_report.assisted_kinds(worked)
    assert assist_report.report(worked, "nugget_proposals") == EXPECTED
    facts = {f.topic: f for f in assist_report.facts(worked, "nugget_proposals")}
    assert (facts[T].own, facts[T].shown, facts[T].accepted, facts[T].edited, facts[T].rejected) == (2, 4, 1, 1, 1)
    assert (facts[T].final, facts[T].from_proposals) == (3, 1)


def test_the_page_api_csv_and_command_show_the_same_numbers(worked, client, make_user, capsys):
    client.force_login(make_user("olga", "organizer"))
    page = client.get(reverse("assess:assist", args=[worked.slug]), {"kind": "nugget_proposals"})
    assert page.status_code == 200
    table = page.content.decode().split('id="assist-report"', 1)[1].split("</table>", 1)[0]
    header = re.findall(r"<th>(.*?)</th>", table)
    cells = [re.findall(r"<td>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", table)[1:]]
    assert header == list(assist_report.NUGGET_COLUMNS)
    assert [dict(zip(header, c, strict=True)) for c in cells] == _strings(EXPECTED)

    csv_page = client.get(reverse("assess:assist", args=[worked.slug]), {"kind": "nugget_proposals", "format": "csv"})
    assert list(csv.DictReader(io.StringIO(csv_page.content.decode()))) == _strings(EXPECTED)

    api = client.get(reverse("api:assist_report", args=[worked.slug]), {"kind": "nugget_proposals"})
    assert api.status_code == 200 and api.json()["rows"] == EXPECTED
    api_csv = client.get(
        reverse("api:assist_report", args=[worked.slug]), {"kind": "nugget_proposals", "output": "csv"}
    ).content.decode()
    assert list(csv.DictReader(io.StringIO(api_csv))) == _strings(EXPECTED)
    api_facts = client.get(
        reverse("api:assist_report", args=[worked.slug]), {"kind": "nugget_proposals", "output": "facts"}
    ).content.decode()
    assert api_facts.splitlines()[0] == ",".join(assist_report.NUGGET_FACT_COLUMNS)
    assert f"reveal_after,ann,{T},2,4,1,1,1,3,1" in api_facts.splitlines()

    call_command("assist_report", worked.slug, "--kind", "nugget_proposals")
    assert list(csv.DictReader(io.StringIO(capsys.readouterr().out))) == _strings(EXPECTED)


def test_nugget_proposals_are_no_report_kind_without_any(judged, client, make_user):
    ev, _, _ = judged
    assert "nugget_proposals" not in assist_report.assisted_kinds(ev)
    client.force_login(make_user("olga", "organizer"))
    api = client.get(reverse("api:assist_report", args=[ev.slug]), {"kind": "nugget_proposals"})
    assert api.status_code == 400
