"""Issue 29 through a real Celery worker: a human judgment saved through the one judgment writer is rescored by the
worker, whose pass asks for the spaced agreement refresh (scoring.refresh_agreement_due) and the rankings refresh
(scoring.refresh_rankings), each a task of its own the same worker runs; both store their results with the new
judgment in them. Every wait takes its limit from config.patience (a busy machine stretches it)."""

import json

import pytest

from assess.judging import save_judgment
from assess.models import Judgment
from config import patience
from scoring import judgment_sets
from scoring.models import Agreement, RankingState, Score
from tracks.qa.synthetic import tiny_trec2007

WAIT = 120  # seconds of a quiet machine: the pass, then each refresh when due (spacing × a short last refresh)


def _set_agreement(evaluation, made, topic):
    row = Agreement.objects.filter(evaluation=evaluation, judgment_set=made, topic=topic, kind="instance").first()
    return row.stats if row else None


@pytest.mark.worker
def test_a_human_judgment_reaches_the_agreement_and_the_rankings_through_the_worker(transactional_db, celery_worker):
    from scoring.tasks import refresh_agreement
    from scoring.tasks import rescore_evaluation as full_task

    t = tiny_trec2007(slug="agree-worker")
    ev, item, question = t["evaluation"], t["items"]["f1"], t["q"]["217.1"]
    assert full_task.delay(ev.id).get(timeout=patience.scaled(60)) == 5
    official = Judgment.objects.get(item=item, kind="instance", role=Judgment.PRIMARY)
    assert official.value["label"] != "globally-correct"
    # a machine judge says runA's 217.1 answer is right: it disagrees with the assessor
    record = {
        "type": "judgment",
        "topic": question.ident,
        "kind": "instance",
        "item": {"topic": question.ident, "key": item.key},
        "value": {"label": "globally-correct", "answer_class": None},
    }
    made = judgment_sets.load_set(
        ev, (json.dumps(record) + "\n").encode(), "m.jsonl", "jsonl", "machine", by=official.assessor
    )
    refresh_agreement.delay(ev.id).get(timeout=patience.scaled(60))  # (what the loading page sends)
    before = _set_agreement(ev, made, question)
    assert before["items"] == 1 and before["percent"] == 0.0
    assert patience.wait_until(
        lambda: RankingState.objects.filter(evaluation=ev, computed_at__isnull=False).exists(), WAIT
    )
    first_rankings = RankingState.objects.get(evaluation=ev).computed_at

    # the assessor changes their mind through the judgment writer: the stale mark publishes the worker's pass
    save_judgment(
        official.assessor,
        topic=question,
        kind="instance",
        role=Judgment.PRIMARY,
        value={"label": "globally-correct", "answer_class": None},
        expected_version=official.version,
        item=item,
    )
    rescored = patience.wait_until(
        lambda: Score.objects.filter(
            run=t["runA"], scope="question", topic=question, measure="score", value=1.0
        ).exists(),
        WAIT,
    )
    assert rescored, "the worker did not rescore the judged question"
    agreed = patience.wait_until(lambda: (_set_agreement(ev, made, question) or {}).get("percent") == 1.0, WAIT)
    assert agreed, "the worker's agreement refresh did not store the new judgment"
    totals = Agreement.objects.get(evaluation=ev, judgment_set=made, topic__isnull=True, kind="instance").stats
    assert totals["items"] == 1 and totals["percent"] == 1.0  # the evaluation's totals moved with the topic's row

    run_score = Score.objects.get(run=t["runA"], scope="run", measure="score").value

    def ranked_with_the_new_score():
        state = RankingState.objects.get(evaluation=ev)
        if state.computed_at is None or state.computed_at <= first_rankings:
            return False
        scores = state.data["scores"]
        return scores["official"][str(t["runA"].pk)]["score"] == run_score

    assert patience.wait_until(ranked_with_the_new_score, WAIT), "the worker's rankings refresh did not follow"
    state = RankingState.objects.get(evaluation=ev)
    assert str(t["runA"].pk) in state.data["scores"][f"set:{made.pk}"]  # ranked under the set too
    assert state.official_as_of is not None and state.official_as_of >= official.updated_at
