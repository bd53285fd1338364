"""Machine nugget matches on QA's nugget page (issue 30): a suggestion loaded for a response shows in its row only
as the gate allows; under *reveal after* nothing of it is in the page, the workspace or the match rows before the
assessor's own match is saved, and the row the save answers with shows it by the page's nugget numbers."""

import pytest
from django.urls import reverse

from assess import assist
from assess.models import Assignment, Nugget, Suggestion, SuggestionShown

pytestmark = pytest.mark.django_db
SECRET = "ZEBRA-NUGGET-RATIONALE-5521"


@pytest.fixture
def matched(sample, primary):
    question = sample.questions["1.3"]  # Other: a nugget question
    n1, n2, n3 = (
        Nugget.objects.create(topic=question, text=t, position=p, created_by=primary)
        for p, t in ((1, "Founded in 1909"), (2, "Paris headquarters"), (3, "Known for perfume"))
    )
    item = sample.items["1.3"][0]
    Suggestion.objects.create(
        evaluation=sample.evaluation, topic=question, kind="nugget_match", item=item,
        value={"nuggets": [n3.pk, n1.pk]}, rationale=SECRET, source="file", source_name="assign.jsonl",
    )  # fmt: skip
    assignment = Assignment.objects.get(assessor=primary)
    return sample, question, item, assignment, (n1, n2, n3)


def _page(client, assignment, question):
    return {
        "page": client.get(reverse("qa:question", args=[assignment.pk, question.pk])),
        "workspace": client.get(reverse("qa:nuggets", args=[assignment.pk, question.pk])),
    }


def test_reveal_after_shows_the_suggested_nuggets_only_after_the_first_match(client, matched, primary):
    sample, question, item, assignment, (n1, n2, n3) = matched
    assist.set_design(sample.evaluation, unit="item", conditions=["reveal_after"], seed=9)
    client.force_login(primary)
    for name, response in _page(client, assignment, question).items():
        body = response.content.decode()
        assert response.status_code == 200 and SECRET not in body and "nuggets 1, 3" not in body, name
        assert "once you have saved your own match" in body, name
    assert not SuggestionShown.objects.exists()

    saved = client.post(reverse("qa:match", args=[item.pk]), {"version": "0", "nuggets": [str(n2.pk)]})
    row = saved.content.decode()
    assert saved.status_code == 200 and SECRET in row  # the save is done: its row may show it
    assert 'Machine suggestion: <strong class="assist-nuggets">nuggets 1, 3</strong>' in row
    assert f'data-assist-check="[{n3.pk}, {n1.pk}]"' in row and "saved before this suggestion was shown" in row
    for name, response in _page(client, assignment, question).items():
        assert SECRET in response.content.decode(), name
    assert SuggestionShown.objects.get().judgment_version == 1

    revised = client.post(reverse("qa:match", args=[item.pk]), {"version": "1", "nuggets": [str(n1.pk), str(n3.pk)]})
    assert "⚑ saved with this suggestion visible" in revised.content.decode()


def test_suggest_first_shows_it_at_once_and_none_never(client, matched, primary):
    sample, question, item, assignment, nuggets = matched
    assist.set_design(sample.evaluation, unit="item", conditions=["suggest_first"], seed=9)
    client.force_login(primary)
    assert SECRET in _page(client, assignment, question)["workspace"].content.decode()
    assist.set_design(sample.evaluation, unit="item", conditions=["none"], seed=9)
    for response in _page(client, assignment, question).values():
        body = response.content.decode()
        assert SECRET not in body and "Machine suggestion" not in body and "own match" not in body
