"""The TAC demo step: answers really occur in their documents, runs load, pools build, series are assigned."""

from assess.models import Assignment
from corpus.demo import load_demo_collections
from corpus.models import Document
from pooling.demo import create_users
from pooling.models import Evaluation, PoolItem
from pooling.runs import check_run_file
from tracks.qa.demo_evaluation import BAD_RUN, SLUG, load_tac_demo


def test_demo_step_is_complete_and_idempotent(db):
    lines = []
    create_users(lines.append)
    load_demo_collections(lines.append)
    load_tac_demo(lines.append)
    evaluation = Evaluation.objects.get(slug=SLUG)
    assert evaluation.topics.filter(parent__isnull=False).count() == 8
    assert sorted(evaluation.runs.values_list("tag", "team__name")) == [
        ("AlphaQA1", "Team Alpha"),
        ("AlphaQA2", "Team Alpha"),
        ("BetaQA1", "Team Beta"),
        ("BetaQA2", "Team Beta"),
    ]
    assert not any("not loaded" in line or "no document" in line for line in lines)
    items = list(PoolItem.objects.filter(evaluation=evaluation))
    texts = dict(Document.objects.filter(collection__name="demo-blog06").values_list("docno", "text"))
    # every pooled answer string of the correct-looking runs is a phrase of its document, bar the deliberately
    # unsupported BetaQA1 "Nokia" line
    unsupported = [i for i in items if i.text.lower() not in " ".join(texts[i.docid].split()).lower()]
    assert [(i.topic.ident, i.text) for i in unsupported] == [("1002.3", "Nokia")]
    assert sorted(
        Assignment.objects.filter(evaluation=evaluation).values_list("topic__ident", "assessor__username", "role")
    ) == [
        ("1001", "assessor", "primary"),
        ("1001", "assessor2", "secondary"),
        ("1002", "assessor", "primary"),
        ("1003", "assessor", "primary"),
    ]
    keys = {(i.key, i.pool_id) for i in items}
    load_tac_demo(lines.append)
    assert {(i.key, i.pool_id) for i in PoolItem.objects.filter(evaluation=evaluation)} == keys

    problems, _ = check_run_file(evaluation, BAD_RUN.read_bytes(), BAD_RUN.name)
    assert len(problems) == 10 and problems[0].startswith("demo_tac2008_bad_run.txt:2: missing columns")
